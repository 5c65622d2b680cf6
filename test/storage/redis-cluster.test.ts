// S17.2 Redis Cluster through ioredis's cluster client, on a real cluster of three masters the test starts:
// the S9.0 contract, two processes sharing answers, records spread over the masters, and one master
// hung or stopped while the others keep serving.
import type { Client } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResultHandlesPlugin } from "mcp-result-handles";
import { redisDriver } from "../../src/storage/redis.js";
import { keySlot } from "../../src/storage/redis-slot.js";
import { spawnDemo, type ChildServer } from "../helpers/child-server.js";
import { linkInMemory } from "../helpers/in-memory.js";
import { connect } from "../helpers/mcp-client.js";
import { startRedisCluster, type RedisCluster } from "../helpers/redis-cluster.js";
import { testDriver } from "./contract.js";
// the demo's tickets, as its report tool answers them (S18.7)
import { reportRows } from "../../playground/demo-tools.js";
import { metaHandleOf } from "../helpers/fold-meta.js";

type Result = Awaited<ReturnType<Client["callTool"]>>;

let cluster: RedisCluster;
beforeAll(async () => {
  cluster = await startRedisCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.dispose();
});

const clusterBlock = () => ({ redis: { cluster: [...cluster.endpoints] } });

testDriver({ name: "redis cluster (3 masters)", driver: redisDriver, config: clusterBlock, persistent: true });

describe("S17.2 two processes share answers through the cluster (REDIS_CLUSTER_URLS)", () => {
  let first: ChildServer | undefined;
  let second: ChildServer | undefined;
  const clients: Client[] = [];
  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    const ends = await Promise.all([first?.stop(), second?.stop()]);
    expect(ends.map((end) => end?.code)).toEqual([0, 0]);
  });

  it("alice folds on one demo server and reads back on the other", async () => {
    [first, second] = await Promise.all([
      spawnDemo({ REDIS_CLUSTER_URLS: cluster.urls }),
      spawnDemo({ REDIS_CLUSTER_URLS: cluster.urls }),
    ]);
    for (const demo of [first, second]) expect(demo.startLine).toContain("storage: redis");
    const [onFirst, onSecond] = await Promise.all(
      [first, second].map((demo) => connect(demo.url, { era: "2026-07-28", token: "demo-alice" })),
    );
    clients.push(onFirst!, onSecond!);
    const handle = metaHandleOf((await onFirst!.callTool({ name: "report", arguments: {} })) as Result);
    expect(handle).toBeTypeOf("string");
    const read = (await onSecond!.callTool({
      name: "result_query",
      arguments: { handle, path: "$.rows[42]" },
    })) as Result;
    expect(read.structuredContent).toMatchObject({ value: { id: "T-42", title: reportRows().rows[42]!.title } });
  }, 30_000);
});

describe("S17.2 the store tells which master a key lives on as the servers do", () => {
  it("keySlot agrees with CLUSTER KEYSLOT, hash tags and non-ASCII included", async () => {
    const keys = [
      "ns:" + "ab".repeat(32),
      "{user1000}.following",
      "a{}b",
      "{}x",
      "x{y",
      "é{ü}",
      "",
      ...Array.from({ length: 40 }, (_, i) => `result-handles:${i}-${Math.random().toString(16).slice(2)}`),
    ];
    for (const key of keys) expect(keySlot(key), key).toBe(Number(await cluster.cli(0, "cluster", "keyslot", key)));
  });
});

describe("S17.2 S8.5 records of one answer are independent keys, spread over the slots", () => {
  it("a pieced answer of about 12 MB lands on all three masters and reads back whole", async () => {
    const plugin = ResultHandlesPlugin.init({ namespace: "spread", storage: { type: "redis", ...clusterBlock() } });
    try {
      const store = await plugin.store();
      const handle = store.newHandle();
      // About 25 records: the chance that random keys leave one of three masters empty is 3 × (2/3)^25, 0.01 %.
      const rows = Array.from({ length: 200_000 }, (_, i) => ({
        i,
        text: `row ${i} of the answer that is cut in pieces`,
      }));
      await store.save(handle, { rows }, { caller: "c" });
      const perMaster = await Promise.all([0, 1, 2].map(async (i) => (await cluster.keysOn(i, "spread:*")).length));
      expect(perMaster.reduce((a, b) => a + b, 0)).toBeGreaterThan(20); // an index and its pieces
      for (const count of perMaster) expect(count).toBeGreaterThan(0);
      const read = await store.read(handle, { caller: "c" });
      expect((read as { value: { rows: unknown[] } }).value.rows).toHaveLength(rows.length);
      expect(read).toEqual({ value: { rows } });
    } finally {
      await plugin.onShutdown();
    }
  });
});

/** A plugin on the cluster installed on an MCP server with a tool whose answers fold (one record each). */
async function foldingServer(namespace: string, timeoutMs: number) {
  const warnings: string[] = [];
  const plugin = ResultHandlesPlugin.init({
    thresholdBytes: 1024,
    namespace,
    storage: { type: "redis", ...clusterBlock(), timeoutMs },
  });
  const server = new McpServer({ name: "cluster", version: "1" });
  plugin.install(server, {
    owner: () => ({ caller: "alice" }),
    logger: { warn: (message) => void warnings.push(message) },
  });
  server.registerTool("rows", { description: "a few KB of rows" }, async () => ({
    content: [
      {
        type: "text",
        text: JSON.stringify({ rows: Array.from({ length: 100 }, (_, i) => ({ i, title: `Row ${i}` })) }),
      },
    ],
  }));
  const client = await linkInMemory(server, "s");
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as Result;
  return { plugin, client, call, warnings };
}

describe("S17.2 one master down", () => {
  it("a hung master (SIGSTOP) costs at most one timeoutMs, and only the keys on it fail", async () => {
    const timeoutMs = 500;
    const { plugin, client, call } = await foldingServer("hung", timeoutMs);
    cluster.pause(2);
    try {
      const outcomes: boolean[] = [];
      for (let i = 0; i < 20; i++) {
        const started = performance.now();
        const result = await call("rows");
        expect(performance.now() - started).toBeLessThan(timeoutMs + 400);
        const handle = metaHandleOf(result);
        outcomes.push(handle !== undefined);
        if (handle)
          expect((await call("result_query", { handle, path: "$.rows[7].title" })).structuredContent).toMatchObject({
            value: "Row 7",
          });
        else expect(JSON.parse((result.content as { text: string }[])[0]!.text).rows).toHaveLength(100); // sent whole
      }
      expect(outcomes).toContain(true); // folds onto the live masters went on
      expect(outcomes).toContain(false);
    } finally {
      cluster.resume(2);
      await client.close();
      await plugin.onShutdown();
    }
  }, 30_000);

  it(
    "a stopped master: folds that would land there go out whole, queries " +
      "that need it answer RESULT_STORE_UNAVAILABLE, the rest work",
    async () => {
      const { plugin, client, call, warnings } = await foldingServer("stopped", 3000);
      try {
        const handles: string[] = [];
        for (let i = 0; i < 24; i++) handles.push(metaHandleOf(await call("rows"))!);
        expect(handles.every((handle) => typeof handle === "string")).toBe(true);
        const onStopped = (await cluster.keysOn(2, "stopped:*")).length;
        expect(onStopped).toBeGreaterThan(0);
        expect(onStopped).toBeLessThan(24);
        await cluster.stop(2);

        const started = performance.now();
        const codes = [];
        for (const handle of handles) {
          const read = await call("result_query", { handle, path: "$.rows[3].i" });
          codes.push(
            read.isError
              ? (read.structuredContent as { error: { code: string } }).error.code
              : (read.structuredContent as { value: unknown }).value,
          );
        }
        expect(codes.filter((code) => code === "RESULT_STORE_UNAVAILABLE")).toHaveLength(onStopped);
        expect(codes.filter((code) => code === 3)).toHaveLength(24 - onStopped);

        let folded = 0;
        let whole = 0;
        for (let i = 0; i < 24; i++) {
          const result = await call("rows");
          const handle = metaHandleOf(result);
          if (!handle) {
            whole++;
            expect(JSON.parse((result.content as { text: string }[])[0]!.text).rows).toHaveLength(100);
            continue;
          }
          folded++;
          expect((await call("result_query", { handle, path: "$.rows[99].title" })).structuredContent).toMatchObject({
            value: "Row 99",
          });
        }
        expect(folded).toBeGreaterThan(0);
        expect(whole).toBeGreaterThan(0);
        expect(warnings.length).toBeGreaterThanOrEqual(whole);
        // Nothing waited on the stopped master: 48 queries and 24 folds well under one store timeout each.
        expect(performance.now() - started).toBeLessThan(3000);
      } finally {
        await client.close();
        await plugin.onShutdown();
        await cluster.start(2);
      }
    },
    60_000,
  );
});

describe("S17.2 S9.2 the cluster in the config", () => {
  const NAMES = ["REDIS_CLUSTER_URLS", "REDIS_URL"] as const;
  const saved = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));
  afterAll(() => {
    for (const name of NAMES)
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
  });
  const withEnv = (env: Partial<Record<(typeof NAMES)[number], string>>) => {
    for (const name of NAMES) delete process.env[name];
    Object.assign(process.env, env);
  };

  it("auto picks REDIS_CLUSTER_URLS before REDIS_URL, and so does a redis config without its block", () => {
    withEnv({
      REDIS_CLUSTER_URLS: "redis://10.0.0.1:7000, redis://10.0.0.2:7001,",
      REDIS_URL: "redis://10.0.0.9:6379",
    });
    const cluster = [
      { host: "10.0.0.1", port: 7000 },
      { host: "10.0.0.2", port: 7001 },
    ];
    expect(ResultHandlesPlugin.init().config.storage).toEqual({
      type: "redis",
      redis: { cluster },
      timeoutMs: 3000,
      deadlineMs: 1500,
    });
    expect(ResultHandlesPlugin.init({ storage: { type: "redis" } }).config.storage).toEqual({
      type: "redis",
      redis: { cluster },
      timeoutMs: 3000,
      deadlineMs: 1500,
    });
    withEnv({ REDIS_CLUSTER_URLS: "rediss://:s%40cret@10.0.0.1" });
    expect(ResultHandlesPlugin.init().config.storage).toMatchObject({
      redis: { cluster: [{ host: "10.0.0.1", port: 6379 }], password: "s@cret", tls: true },
    });
  });

  it("S3.1 a REDIS_CLUSTER_URLS that is not a list of redis URLs is refused at init, naming it", () => {
    withEnv({ REDIS_CLUSTER_URLS: "10.0.0.1:7000,redis://10.0.0.2:7001" });
    expect(() => ResultHandlesPlugin.init()).toThrow(
      /REDIS_CLUSTER_URLS must list redis:\/\/host:port URLs.*"10\.0\.0\.1:7000"/,
    );
  });

  it(
    "S3.1 a redis block names its three shapes; a cluster needs at " +
      "least one node; without block or variables it is refused",
    () => {
      withEnv({});
      const error = (redis: unknown) => {
        try {
          ResultHandlesPlugin.init({ storage: { type: "redis", redis: redis as never } });
        } catch (e) {
          return (e as Error).message;
        }
        return "accepted";
      };
      expect(error({ cluster: [] })).toContain("storage.redis.cluster: must be at least 1");
      for (const redis of [{ cluster: [{ host: "h" }] }, { host: "h" }, { url: "redis://h", cluster: [] }]) {
        let message = "";
        try {
          ResultHandlesPlugin.init({ storage: { type: "redis", redis: redis as never } });
        } catch (error) {
          message = (error as Error).message;
        }
        expect(message).toContain(
          "storage.redis: must be { url }, { host, port, password?, db?, tls? } " +
            "or { cluster: [{ host, port }, …], password?, tls? }",
        );
      }
      expect(() => ResultHandlesPlugin.init({ storage: { type: "redis" } })).toThrow(
        "storage.redis: required unless REDIS_CLUSTER_URLS or REDIS_URL is set",
      );
    },
  );
});
