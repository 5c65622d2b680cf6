/**
 * For the attack tests (S16): a real McpServer over real HTTP with the plugin installed and tools that take
 * data, alice and bob as two users of one OAuth client, and a bystander client whose `tools/list` is timed
 * while an attack runs, so a test can show that other clients keep being served.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/server";
import type { Client } from "@modelcontextprotocol/client";
import { z } from "zod";
import { ResultHandlesPlugin, type McpHostOptions, type ResultHandlesOptions } from "mcp-result-handles";
import { connect } from "./mcp-client.js";
import { startHttpMcpServer, userToken, type HttpMcpServer } from "./http-mcp-server.js";
import { startRedisServer } from "./redis-server.js";
import { noRuns, registerReferenceTools, type ToolRuns } from "./reference-tools.js";

export type Result = {
  structuredContent?: Record<string, unknown>;
  content?: { type: string; text?: string }[];
  _meta?: Record<string, unknown>;
  isError?: boolean;
};
export type Caller = (name: string, args?: Record<string, unknown>) => Promise<Result>;

export interface AttackBench {
  http: HttpMcpServer;
  runs: ToolRuns & { lists: number };
  /** Answers each `report` (and `report_structured`) call gives; set before calling it. */
  answer: { next: unknown };
  alice: Caller;
  bob: Caller;
  aliceClient: Client;
  bystander: Client;
  close(): Promise<void>;
}

export async function startAttackBench(
  options: Partial<ResultHandlesOptions> = {},
  host: McpHostOptions = {},
): Promise<AttackBench> {
  const plugin = ResultHandlesPlugin.init({ thresholdBytes: 1024, storage: { type: "memory" }, ...options });
  const runs = { ...noRuns(), lists: 0 };
  const answer = { next: undefined as unknown };
  const tokens = new Map([
    ["alice", userToken("app", "alice")],
    ["bob", userToken("app", "bob")],
    ["carol", userToken("app", "carol")],
  ]);
  const http = await startHttpMcpServer(() => {
    const server = new McpServer({ name: "attacks", version: "1" });
    plugin.install(server, { logger: { warn: () => {} }, ...host });
    registerReferenceTools(server, runs, () => answer.next);
    // `report` without a JSON text beside its structuredContent: a fold timed alone, not the tool's own stringify.
    server.registerTool("report_structured", { description: "the next answer, structured only" }, async () => ({
      content: [],
      structuredContent: answer.next as Record<string, unknown>,
    }));
    // A tool whose schema walks and copies what it gets (zod rebuilds every object it checks).
    server.registerTool(
      "merge_lists",
      {
        description: "Merges lists of { id }",
        inputSchema: z.object({ lists: z.array(z.array(z.object({ id: z.number() }))) }),
      },
      async ({ lists }) => {
        runs.lists++;
        return { content: [{ type: "text" as const, text: String(lists.reduce((n, list) => n + list.length, 0)) }] };
      },
    );
    return server;
  }, tokens);
  const clients: Client[] = [];
  const as = async (token: string): Promise<[Caller, Client]> => {
    const client = await connect(http.url, { era: "2026-07-28", token });
    clients.push(client);
    return [
      async (name, args = {}) => (await client.callTool({ name, arguments: args }, { timeout: 600_000 })) as Result,
      client,
    ];
  };
  const [alice, aliceClient] = await as("alice");
  const [bob] = await as("bob");
  const [, bystander] = await as("carol");
  return {
    http,
    runs,
    answer,
    alice,
    bob,
    aliceClient,
    bystander,
    close: async () => {
      await Promise.allSettled(clients.map((client) => client.close()));
      await http.close();
      await plugin.onShutdown();
    },
  };
}

/** Where a bench on a store of its own keeps its answers. */
export type BenchStore = "memory" | "redis" | "sqlite";

/**
 * `startAttackBench` with its answers on `store`: in memory, in a real redis-server of its own, or in a real SQLite
 * file in a folder of its own; `close` stops that server and removes that folder too. `storage` adds the store
 * deadline of a call (S26.3) and, in memory, the most it keeps.
 */
export async function startAttackBenchOn(
  store: BenchStore,
  storage: { deadlineMs?: number; memory?: { maxBytes: number } } = {},
): Promise<AttackBench> {
  const { memory, ...deadline } = storage;
  const redis = store === "redis" ? await startRedisServer() : undefined;
  const folder = store === "sqlite" ? await mkdtemp(join(tmpdir(), "result-handles-bench-")) : undefined;
  const bench = await startAttackBench({
    storage: redis
      ? { type: "redis", redis: { url: redis.url }, ...deadline }
      : folder
        ? { type: "sqlite", sqlite: { path: join(folder, "answers.db") }, ...deadline }
        : { type: "memory", ...(memory ? { memory } : {}), ...deadline },
  }).catch(async (error: unknown) => {
    await redis?.dispose();
    throw error;
  });
  return {
    ...bench,
    async close() {
      await bench.close();
      await redis?.dispose();
      if (folder) await rm(folder, { recursive: true, force: true });
    },
  };
}

/** Watches the event loop from now on: `stop()` gives its longest stall in ms (the gap between two 5 ms ticks). */
export function watchStalls(): { stop(): number } {
  let stallMs = 0;
  let tick = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - tick);
    tick = now;
  }, 5);
  return {
    stop() {
      clearInterval(ticker);
      return Math.max(stallMs, performance.now() - tick);
    },
  };
}

/**
 * Runs `attack` while `bystander` lists tools every 20 ms; returns the attack's result, its time, the
 * slowest and median `tools/list` latency seen meanwhile, and the longest stall of the event loop (ms):
 * client and server share this process, so a stall is how long any other client's request would wait.
 */
export async function whileServing<T>(
  bystander: Client,
  attack: () => Promise<T>,
): Promise<{ value: T; ms: number; listMaxMs: number; listMedianMs: number; lists: number; stallMs: number }> {
  const latencies: number[] = [];
  let done = false;
  const stalls = watchStalls();
  const poll = (async () => {
    while (!done) {
      const start = performance.now();
      await bystander.listTools();
      latencies.push(performance.now() - start);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const start = performance.now();
  const value = await attack().finally(() => (done = true));
  const ms = performance.now() - start;
  const stallMs = stalls.stop();
  await poll;
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    value,
    ms,
    listMaxMs: sorted.at(-1) ?? 0,
    listMedianMs: sorted[Math.floor(sorted.length / 2)] ?? 0,
    lists: latencies.length,
    stallMs,
  };
}

export const handleOf = (result: Result) => (result.structuredContent as { handle: string }).handle;
export const textOf = (result: Result) => result.content?.[0]?.text ?? "";
export const round = (n: number) => Math.round(n * 10) / 10;
/** One line of figures for an attack: its time, the longest event-loop stall, the bystander's tools/list. */
export const figures = (m: { ms: number; stallMs: number; listMaxMs: number; lists: number }) =>
  `${round(m.ms)} ms, event loop stalled up to ${round(m.stallMs)} ms, bystander ` +
  `tools/list max ${round(m.listMaxMs)} ms over ${m.lists} calls`;
