// S9.6: two demo server processes sharing one redis-server through REDIS_URL, driven by real MCP clients.
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RESULT_HANDLE_META_KEY } from "mcp-result-handles";
import { spawnDemo, type ChildServer } from "../helpers/child-server.js";
import { connect, type Era } from "../helpers/mcp-client.js";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.js";
// the demo's tickets, as its report tool answers them (S18.7)
import { reportRows } from "../../playground/demo-tools.js";

type Result = Awaited<ReturnType<Client["callTool"]>>;

let redis: RedisServer;
let first: ChildServer;
let second: ChildServer;
const clients: Client[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
  [first, second] = await Promise.all([spawnDemo({ REDIS_URL: redis.url }), spawnDemo({ REDIS_URL: redis.url })]);
}, 30_000);
afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  const codes = (await Promise.all([first?.stop(), second?.stop()])).map((end) => end?.code);
  await redis?.dispose();
  expect(codes).toEqual([0, 0]);
});

async function client(demo: ChildServer, era: Era, token?: string): Promise<Client> {
  const c = await connect(demo.url, { era, token });
  clients.push(c);
  return c;
}
const call = async (c: Client, name: string, args: Record<string, unknown> = {}) =>
  (await c.callTool({ name, arguments: args })) as Result;
const handleOf = (result: Result) => (result._meta?.[RESULT_HANDLE_META_KEY] as { handle: string }).handle;

describe("S9.6 a handle folded by one process reads back through another that shares its Redis", () => {
  it("two separate processes, both on redis", () => {
    expect(first.child.pid).not.toBe(second.child.pid);
    expect(first.url).not.toBe(second.url);
    for (const demo of [first, second]) expect(demo.startLine).toContain("storage: redis");
  });

  it(
    "2026-07-28 era: alice folds on one and reads on the other; bob " +
      "and anonymous callers get RESULT_HANDLE_NOT_FOUND",
    async () => {
      const aliceOnFirst = await client(first, "2026-07-28", "demo-alice");
      const aliceOnSecond = await client(second, "2026-07-28", "demo-alice");
      const bobOnSecond = await client(second, "2026-07-28", "demo-bob");
      const anonymousOnSecond = await client(second, "2026-07-28");

      const handle = handleOf(await call(aliceOnFirst, "report"));
      expect(
        (await call(aliceOnSecond, "result_query", { handle, path: "$.rows[42]" })).structuredContent,
      ).toMatchObject({
        path: "$.rows[42]",
        value: { id: "T-42", title: reportRows().rows[42]!.title },
      });
      const orders = handleOf(await call(aliceOnSecond, "orders"));
      expect(
        (await call(aliceOnFirst, "result_query", { handle: orders, path: "$.orders[1].status" })).structuredContent,
      ).toMatchObject({ value: "shipped" });

      for (const other of [bobOnSecond, anonymousOnSecond]) {
        const refused = await call(other, "result_query", { handle });
        expect(refused.isError).toBe(true);
        expect(refused.structuredContent).toMatchObject({ error: { code: "RESULT_HANDLE_NOT_FOUND" } });
      }
    },
  );

  it(
    "2025 era: a handle is bound to its session, which lives in one process, so another process " + "cannot read it",
    async () => {
      const onFirst = await client(first, "2025", "demo-alice");
      const onSecond = await client(second, "2025", "demo-alice");
      const handle = handleOf(await call(onFirst, "report"));
      expect((await call(onFirst, "result_query", { handle, path: "$.rows[0].id" })).structuredContent).toMatchObject({
        value: "T-0",
      });
      expect((await call(onSecond, "result_query", { handle })).structuredContent).toMatchObject({
        error: { code: "RESULT_HANDLE_NOT_FOUND" },
      });
    },
  );
});
