// S15.1-S15.2 on a real redis-server, with an answer large enough to be stored in pieces (S8.5): a
// reference reads the pieces its path needs, afresh, for the owner of the call only.
import { McpServer } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResultHandlesPlugin } from "mcp-result-handles";
import { linkInMemory } from "../helpers/in-memory.js";
import { noRuns, registerReferenceTools, rows } from "../helpers/reference-tools.js";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.js";

type Result = { structuredContent?: Record<string, unknown>; content?: { text?: string }[]; isError?: boolean };
let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.dispose();
});

describe("S15 references on Redis", () => {
  it(
    "whole, a list, one item from the end, in a 2 MB answer kept in pieces; another session's call " + "runs nothing",
    async () => {
      const plugin = ResultHandlesPlugin.init({
        thresholdBytes: 1024,
        storage: { type: "redis", redis: { url: redis.url } },
        namespace: "refs",
      });
      const server = new McpServer({ name: "t", version: "1" });
      plugin.install(server, { logger: { warn: () => {} } });
      const runs = noRuns();
      registerReferenceTools(server, runs, () => rows(60_000));
      const mine = await linkInMemory(server, "session-a");
      const call = async (name: string, args: Record<string, unknown> = {}) =>
        (await mine.callTool({ name, arguments: args })) as Result;
      const handle = (await call("report")).structuredContent!.handle as string;

      expect(
        (await call("count_items", { items: { $result: handle, path: "$.rows" } })).structuredContent,
      ).toMatchObject({ count: 60_000, idSum: (59_999 * 60_000) / 2 });
      expect((await call("echo_shape", { data: { $result: handle } })).structuredContent).toMatchObject({
        got: { keys: ["rows"], rows: { list: 60_000 } },
      });
      expect(
        (await call("title_of", { title: { $result: handle, path: "$.rows[-1].title" } })).structuredContent,
      ).toEqual({ title: "ROW NUMBER 59999" });

      const server2 = new McpServer({ name: "t", version: "1" });
      plugin.install(server2, { logger: { warn: () => {} } });
      registerReferenceTools(server2, runs);
      const other = await linkInMemory(server2, "session-b");
      const before = { ...runs };
      const refused = (await other.callTool({
        name: "count_items",
        arguments: { items: { $result: handle, path: "$.rows" } },
      })) as Result;
      expect(refused.content?.[0]?.text).toMatch(/^RESULT_HANDLE_NOT_FOUND: /);
      expect(runs).toEqual(before);
      await plugin.onShutdown();
    },
    30_000,
  );

  it(
    "the store down while resolving: RESULT_STORE_UNAVAILABLE, the tool does not run; back up, " + "it resolves",
    async () => {
      const plugin = ResultHandlesPlugin.init({
        thresholdBytes: 1024,
        storage: { type: "redis", redis: { url: redis.url }, timeoutMs: 500 },
        namespace: "refs-down",
      });
      const server = new McpServer({ name: "t", version: "1" });
      plugin.install(server, { logger: { warn: () => {} } });
      const runs = noRuns();
      registerReferenceTools(server, runs);
      const client = await linkInMemory(server, "s");
      const call = async (name: string, args: Record<string, unknown> = {}) =>
        (await client.callTool({ name, arguments: args })) as Result;
      const handle = (await call("report")).structuredContent!.handle as string;
      redis.pause();
      try {
        const refused = await call("count_items", { items: { $result: handle, path: "$.rows" } });
        expect(refused.content?.[0]?.text).toMatch(/^RESULT_STORE_UNAVAILABLE: /);
        expect(runs.count).toBe(0);
      } finally {
        redis.resume();
      }
      // Back up: the client may first answer what it queued while the server was frozen; then it resolves.
      let after: Result | undefined;
      for (let attempt = 0; attempt < 20; attempt++) {
        after = await call("count_items", { items: { $result: handle, path: "$.rows" } });
        if (!after.isError) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(after?.structuredContent).toMatchObject({ count: 300 });
      await plugin.onShutdown();
    },
    30_000,
  );
});
