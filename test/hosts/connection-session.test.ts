// S8.1: a connection that is not HTTP (stdio, in-process) is one verified session of its own.
import { McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { RESULT_HANDLE_META_KEY, ResultHandlesPlugin } from "mcp-result-handles";
import { linkInMemory } from "../helpers/in-memory.js";

type Result = { structuredContent?: Record<string, unknown>; _meta?: Record<string, unknown>; isError?: boolean };
const big = () => ({ rows: Array.from({ length: 300 }, (_, i) => ({ id: i, title: `Row number ${i}` })) });
const isFolded = (result: Result) => RESULT_HANDLE_META_KEY in (result._meta ?? {});
const handleOf = (result: Result) => (result.structuredContent as { handle: string }).handle;

function serverOn(plugin: ResultHandlesPlugin, warnings: string[] = []): McpServer {
  const server = new McpServer({ name: "t", version: "1" });
  plugin.install(server, { logger: { warn: (message) => void warnings.push(message) } });
  server.registerTool("report", { description: "report" }, async () => ({
    content: [{ type: "text", text: JSON.stringify(big()) }],
  }));
  return server;
}

describe("S8.1 in-process connections without a session id", () => {
  it("fold, and read their handles back", async () => {
    const plugin = ResultHandlesPlugin.init({ thresholdBytes: 1024, storage: { type: "memory" } });
    const client = await linkInMemory(serverOn(plugin)); // no sessionId on the transport
    const result = (await client.callTool({ name: "report", arguments: {} })) as Result;
    expect(isFolded(result)).toBe(true);
    const read = (await client.callTool({
      name: "result_query",
      arguments: { handle: handleOf(result), path: "$.rows[299].id" },
    })) as Result;
    expect(read.structuredContent).toEqual({ path: "$.rows[299].id", value: 299 });
    await client.close();
  });

  it("two connections sharing one store cannot read each other's handles", async () => {
    const plugin = ResultHandlesPlugin.init({ thresholdBytes: 1024, storage: { type: "memory" } });
    const first = await linkInMemory(serverOn(plugin));
    const second = await linkInMemory(serverOn(plugin));
    const handle = handleOf((await first.callTool({ name: "report", arguments: {} })) as Result);
    const stolen = (await second.callTool({ name: "result_query", arguments: { handle } })) as Result;
    expect(stolen.isError).toBe(true);
    expect(stolen.structuredContent).toMatchObject({ error: { code: "RESULT_HANDLE_NOT_FOUND" } });
    expect(
      ((await first.callTool({ name: "result_query", arguments: { handle, path: "$.rows", limit: 1 } })) as Result)
        .isError,
    ).toBeFalsy();
    await Promise.all([first.close(), second.close()]);
  });

  it(
    "a server reconnected on a new transport is a new session: the old connection's handles do not " + "read back",
    async () => {
      const plugin = ResultHandlesPlugin.init({ thresholdBytes: 1024, storage: { type: "memory" } });
      const server = serverOn(plugin);
      const before = await linkInMemory(server);
      const handle = handleOf((await before.callTool({ name: "report", arguments: {} })) as Result);
      await before.close();
      await server.close();
      const after = await linkInMemory(server);
      expect(
        ((await after.callTool({ name: "result_query", arguments: { handle } })) as Result).structuredContent,
      ).toMatchObject({
        error: { code: "RESULT_HANDLE_NOT_FOUND" },
      });
      await after.close();
    },
  );

  it("a transport's own session id is kept as the session", async () => {
    const plugin = ResultHandlesPlugin.init({ thresholdBytes: 1024, storage: { type: "memory" } });
    const seen: (string | undefined)[] = [];
    const server = new McpServer({ name: "t", version: "1" });
    plugin.install(server, { owner: (ctx) => (seen.push(ctx.sessionId), { session: ctx.sessionId }) });
    server.registerTool("report", { description: "report" }, async () => ({
      content: [{ type: "text", text: JSON.stringify(big()) }],
    }));
    const client = await linkInMemory(server, "given-session");
    await client.callTool({ name: "report", arguments: {} });
    expect(seen).toEqual(["given-session"]);
  });
});

describe("S4.4 an anonymous call is told once per tool why it did not fold", () => {
  it("one warning per tool, only for answers over the threshold", async () => {
    const plugin = ResultHandlesPlugin.init({ thresholdBytes: 1024, storage: { type: "memory" } });
    const warnings: string[] = [];
    const server = new McpServer({ name: "t", version: "1" });
    // anonymous
    plugin.install(server, { owner: () => ({}), logger: { warn: (message) => void warnings.push(message) } });
    for (const name of ["a", "b"]) {
      server.registerTool(name, { description: name }, async () => ({
        content: [{ type: "text", text: JSON.stringify(big()) }],
      }));
    }
    server.registerTool("small", { description: "small" }, async () => ({ content: [{ type: "text", text: "{}" }] }));
    const client = await linkInMemory(server);
    for (const name of ["a", "a", "b", "small", "b", "small"]) {
      const result = (await client.callTool({ name, arguments: {} })) as Result;
      expect(isFolded(result)).toBe(false);
    }
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/tool "a" answered \d+ bytes to an anonymous call/);
    expect(warnings[1]).toMatch(/tool "b" answered/);
  });
});
