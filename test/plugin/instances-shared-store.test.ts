// S16.6 plugin instances sharing one store and namespace: a handle is answered by the instance that folded
// it, under its rules. The demo's set-up: a "reports" instance of 4096 bytes installed first, an "orders"
// instance of 8192 bytes, one McpServer, a real SDK client; on one real redis-server and on one memory storage.
import { McpServer } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryStorage, ResultHandlesPlugin, type ResultHandlesOptions } from "mcp-result-handles";
import { ordersAnswer } from "../../playground/demo-tools.js";
import { linkInMemory } from "../helpers/in-memory.js";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.js";
import { pluginOver } from "../helpers/storage-double.js";

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.dispose();
});

type Instance = { install: ResultHandlesPlugin["install"]; onShutdown(): Promise<void> };

async function twoInstances(reports: Instance, orders: Instance) {
  const server = new McpServer({ name: "two-instances", version: "1" });
  reports.install(server, { tools: ["report"] });
  orders.install(server, { tools: ["orders"] });
  server.registerTool("report", { description: "A report", inputSchema: z.object({}) }, async () => ({
    content: [
      {
        type: "text",
        text: JSON.stringify({ tickets: Array.from({ length: 200 }, (_, i) => ({ id: i, title: `Ticket ${i}` })) }),
      },
    ],
  }));
  server.registerTool("orders", { description: "Orders", inputSchema: z.object({ n: z.number() }) }, async ({ n }) => {
    const answer = ordersAnswer(n);
    return { content: [{ type: "text", text: JSON.stringify(answer) }], structuredContent: answer };
  });
  const client = await linkInMemory(server, "session-s166");
  return {
    client,
    close: async () => (await client.close(), await Promise.all([reports.onShutdown(), orders.onShutdown()])),
  };
}

async function sliceOfOrders(reports: Instance, orders: Instance) {
  const { client, close } = await twoInstances(reports, orders);
  try {
    const folded = await client.callTool({ name: "orders", arguments: { n: 2000 } });
    const handle = (folded.structuredContent as { handle: string }).handle;
    expect(handle).toMatch(/^[0-9a-f-]{36}$/);
    const slice = await client.callTool({ name: "result_query", arguments: { handle, path: "$.orders", limit: 200 } });
    const report = await client.callTool({ name: "report", arguments: {} });
    const reportHandle = (report.structuredContent as { handle: string }).handle;
    // Under the reports instance's rules: 4096 bytes, so a 200-ticket slice is refused as too large.
    const reportSlice = await client.callTool({
      name: "result_query",
      arguments: { handle: reportHandle, path: "$.tickets", limit: 200 },
    });
    return { slice, reportSlice };
  } finally {
    await close();
  }
}

function expectAnsweredByOrders(slice: Awaited<ReturnType<typeof sliceOfOrders>>["slice"]) {
  expect(slice.isError, JSON.stringify(slice.structuredContent)).toBeFalsy();
  const value = (slice.structuredContent as { value: unknown[] }).value;
  expect(value).toHaveLength(200);
  expect(value).toEqual(ordersAnswer(200).orders);
  const bytes = new TextEncoder().encode(JSON.stringify(value)).byteLength;
  console.log(`S16.6 a 200-item slice of the 8192-byte instance's handle: ${bytes} bytes, answered`);
  expect(bytes).toBeGreaterThan(4096);
  expect(bytes).toBeLessThanOrEqual(8192);
}

describe("S16.6 two instances on one store and namespace", () => {
  it("on one real redis-server: the orders handle is answered under the 8192-byte instance's rules", async () => {
    const storage = { type: "redis", redis: { url: redis.url } } as const;
    const reports = ResultHandlesPlugin.init({ thresholdBytes: 4096, storage });
    const orders = ResultHandlesPlugin.init({ thresholdBytes: 8192, preview: { items: 2 }, storage });
    const { slice, reportSlice } = await sliceOfOrders(reports, orders);
    expectAnsweredByOrders(slice);
    expect(reportSlice.isError).toBe(true);
    expect((reportSlice.structuredContent as { error: { code: string } }).error.code).toBe("RESULT_SLICE_TOO_LARGE");
  });

  it("on one memory storage both open: the same", async () => {
    const shared = new MemoryStorage("one");
    const open = (options: ResultHandlesOptions) =>
      pluginOver(shared, { storage: { type: "memory" }, ...options }).plugin;
    const { slice, reportSlice } = await sliceOfOrders(
      open({ thresholdBytes: 4096 }),
      open({ thresholdBytes: 8192, preview: { items: 2 } }),
    );
    expectAnsweredByOrders(slice);
    expect(reportSlice.isError).toBe(true);
  });

  it("two processes' instances of the same rules still read each other's handles (S9.6)", async () => {
    const storage = { type: "redis", redis: { url: redis.url } } as const;
    const options = { thresholdBytes: 8192, preview: { items: 2 }, storage, namespace: "s96" };
    const [writer, reader] = [ResultHandlesPlugin.init(options), ResultHandlesPlugin.init(options)];
    const handle = (await writer.store()).newHandle();
    await (await writer.store()).save(handle, ordersAnswer(10), { session: "s" });
    expect(await (await reader.store()).read(handle, { session: "s" })).toEqual({ value: ordersAnswer(10) });
    const other = ResultHandlesPlugin.init({ ...options, thresholdBytes: 4096 });
    expect(await (await other.store()).read(handle, { session: "s" })).toBeUndefined();
    await Promise.all([writer.onShutdown(), reader.onShutdown(), other.onShutdown()]);
  });
});
