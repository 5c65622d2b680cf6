// Reliability from the outside (S4.7, S7.6, S9.1): the demo server of `npm start` in its own process with
// REDIS_URL, a real MCP client over HTTP, and a real redis-server that is stopped, frozen and started again.
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reportRows } from "../../playground/demo-tools.js";
import { spawnDemo, type ChildServer } from "../helpers/child-server.js";
import { connect } from "../helpers/mcp-client.js";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.js";
import { metaHandleOf } from "../helpers/fold-meta.js";

type Result = Awaited<ReturnType<Client["callTool"]>>;

/** The store timeout the demo runs with: the default of S9.1. */
const STORE_TIMEOUT_MS = 3000;

let redis: RedisServer;
let demo: ChildServer;
let alice: Client;

beforeAll(async () => {
  redis = await startRedisServer();
  demo = await spawnDemo({ REDIS_URL: redis.url });
  alice = await connect(demo.url, { era: "2026-07-28", token: "demo-alice" });
}, 30_000);
afterAll(async () => {
  await alice?.close().catch(() => {});
  if (demo) expect((await demo.stop()).code).toBe(0);
  await redis?.dispose();
});

/** A tool call and how long it took. */
async function timed(name: string, args: Record<string, unknown> = {}): Promise<{ result: Result; ms: number }> {
  const started = performance.now();
  const result = (await alice.callTool({ name, arguments: args })) as Result;
  return { result, ms: performance.now() - started };
}

describe("S4.7 S7.6 the demo server with REDIS_URL when Redis goes away and comes back", () => {
  let before: string;

  it("S11.1 names redis in its start line, folds into Redis and reads back", async () => {
    expect(demo.startLine).toContain("storage: redis");
    const { result } = await timed("report");
    before = metaHandleOf(result)!;
    expect(before).toBeTypeOf("string");
    const read = await timed("result_query", { handle: before, path: "$.rows[1]" });
    expect(read.result.structuredContent).toMatchObject({ value: { id: "T-1", title: reportRows().rows[1]!.title } });
  });

  it(
    "with redis-server stopped: folds send the full answer with a warning, " +
      "queries answer RESULT_STORE_UNAVAILABLE, nothing waits",
    async () => {
      await redis.stop();
      const warningsBefore = demo.stderr().length;

      const report = await timed("report");
      expect(report.result.isError).toBeFalsy();
      expect(report.result.structuredContent).toEqual(reportRows());
      expect(metaHandleOf(report.result)).toBeUndefined();
      expect(report.ms).toBeLessThan(STORE_TIMEOUT_MS / 2); // failed at once, not after waiting out the timeout

      const orders = await timed("orders", { n: 400 }); // the other plugin instance, on the same Redis
      expect(orders.result.isError).toBeFalsy();
      expect((orders.result.structuredContent as { orders: unknown[] }).orders).toHaveLength(400);
      expect(metaHandleOf(orders.result)).toBeUndefined();

      const query = await timed("result_query", { handle: before });
      expect(query.result.isError).toBe(true);
      expect(query.result.structuredContent).toMatchObject({ error: { code: "RESULT_STORE_UNAVAILABLE" } });
      expect(query.ms).toBeLessThan(STORE_TIMEOUT_MS / 2);

      const warnings = demo.stderr().slice(warningsBefore);
      expect(warnings).toMatch(
        /result-handles: .*"report".*sent it whole|result-handles: .*"report".*sent its answer whole/,
      );
      expect(warnings).toMatch(/"orders"/);
    },
  );

  it(
    "started again: folding resumes without restarting the demo server (the client reconnects " + "by itself)",
    async () => {
      await redis.start();
      let handle: string | undefined;
      const deadline = Date.now() + 10_000;
      while (!handle && Date.now() < deadline) {
        handle = metaHandleOf((await timed("report")).result);
        if (!handle) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(handle).toBeTypeOf("string");
      const read = await timed("result_query", { handle, path: "$.rows[199].id" });
      expect(read.result.structuredContent).toMatchObject({ value: "T-199" });
      // The restarted server kept nothing (no persistence): the earlier handle is gone, not unavailable.
      const old = await timed("result_query", { handle: before });
      expect(old.result.structuredContent).toMatchObject({ error: { code: "RESULT_HANDLE_NOT_FOUND" } });
    },
    20_000,
  );

  it(
    "S9.1 with redis-server frozen (connected, never answering): every call returns within the " + "store timeout",
    async () => {
      const handle = metaHandleOf((await timed("report")).result)!;
      redis.pause();
      try {
        const [report, query] = await Promise.all([timed("report"), timed("result_query", { handle })]);
        expect(report.result.structuredContent).toEqual(reportRows());
        expect(metaHandleOf(report.result)).toBeUndefined();
        // It did wait for the store, until Redis had answered nothing for a second (S26.3: REDIS_SILENT_MS)…
        expect(report.ms).toBeGreaterThanOrEqual(1000 - 100);
        // …but no longer than the call's store deadline (S26.3, default 1500 ms), with margin for a loaded machine
        expect(report.ms).toBeLessThan(1500 + 1000);
        expect(query.result.structuredContent).toMatchObject({ error: { code: "RESULT_STORE_UNAVAILABLE" } });
        expect(query.ms).toBeLessThan(1500 + 1000);
      } finally {
        redis.resume();
      }
      // Once thawed, reads work again within a second (S26.3): the lane's probe is answered as soon as Redis
      // runs (src/storage/redis-client.ts), not a timeout later. A loaded machine gets margin.
      const thawed = Date.now();
      const deadline = thawed + 2000;
      let after = await timed("result_query", { handle, path: "$.rows[0].id" });
      while ((after.result.structuredContent as { error?: unknown } | undefined)?.error && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        after = await timed("result_query", { handle, path: "$.rows[0].id" });
      }
      expect(after.result.structuredContent).toMatchObject({ value: "T-0" });
      expect(Date.now() - thawed).toBeLessThan(2000);
    },
    30_000,
  );
});
