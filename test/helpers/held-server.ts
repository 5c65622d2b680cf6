/**
 * The server of test/fixtures/held-server.ts in a process of its own (S21.4, S26.3): a test times the SERVER's event
 * loop there, apart from its own (its MCP clients parse every answer they get: twenty whole answers of 1.4 MB are
 * the client's work, not the server's). Its store is the Redis at `redisUrl`; callers "alice" and "bob".
 */
import type { Client } from "@modelcontextprotocol/client";
import type { Result } from "./attack-bench.js";
import { spawnChildServer, type ChildServer } from "./child-server.js";
import { connect } from "./mcp-client.js";
import { startRedisServer, type RedisServer } from "./redis-server.js";
import { withSecondCaller, type Measured } from "./second-caller.js";

/** What the server says of its own loop since the last `watch()`. */
export interface ServerHolds {
  /** The longest gap between two ticks of its 5 ms timer, in wall time (it counts time spent waiting for a processor). */
  holdMs: number;
  /** The most its main thread ran between two such ticks (Linux; undefined elsewhere): the hold it made itself. */
  ranHoldMs: number | undefined;
  heapBytes: number;
  rssBytes: number;
}

export interface HeldServer extends ChildServer {
  /** Off: every answer goes out whole. */
  fold(on: boolean): Promise<void>;
  /** Starts timing its loop afresh. */
  watch(): Promise<void>;
  holds(): Promise<ServerHolds>;
}

export async function spawnHeldServer(redisUrl: string): Promise<HeldServer> {
  const server = await spawnChildServer("test/fixtures/held-server.ts", { REDIS_URL: redisUrl }, { ipc: true });
  const ask = <T>(message: object) =>
    new Promise<T>((resolveAnswer) => {
      server.child.once("message", (answer) => resolveAnswer(answer as T));
      server.child.send(message);
    });
  return {
    ...server,
    fold: async (on) => void (await ask({ fold: on })),
    watch: async () => void (await ask({ watch: true })),
    holds: () => ask<ServerHolds>({ holds: true }),
  };
}

/** A tool call of `client` to the held server, given 120 s (a 10 MB answer, a store frozen under it). */
export const callHeld = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args }, { timeout: 120_000 })) as Result;

/** A real redis-server, the held server over it, and its two callers alice and bob (era 2026-07-28). */
export interface HeldBench {
  redis: RedisServer;
  server: HeldServer;
  alice: Client;
  bob: Client;
  /** Lets Redis run if a test left it frozen, closes the callers, stops the server, then Redis. */
  close(): Promise<void>;
}

export async function startHeldBench(): Promise<HeldBench> {
  const redis = await startRedisServer();
  const server = await spawnHeldServer(redis.url);
  const [alice, bob] = await Promise.all(
    ["alice", "bob"].map((token) => connect(server.url, { era: "2026-07-28", token })),
  );
  return {
    redis,
    server,
    alice: alice!,
    bob: bob!,
    async close() {
      redis.resume();
      await Promise.allSettled([alice!.close(), bob!.close()]);
      await server.stop();
      await redis.dispose();
    },
  };
}

/**
 * `withSecondCaller` (S21.5) timed in the held server: the server's holds meanwhile and its heap's growth, beside
 * what `withSecondCaller` measures in this process.
 */
export async function withSecondCallerInServer<T, S>(
  server: HeldServer,
  attack: () => Promise<T>,
  second: () => Promise<S>,
): Promise<Measured<T, S> & { holds: ServerHolds; heapGrowth: number }> {
  await server.watch();
  const before = await server.holds();
  const measured = await withSecondCaller(attack, second);
  const holds = await server.holds();
  return { ...measured, holds, heapGrowth: holds.heapBytes - before.heapBytes };
}

/** The server's longest hold, in words: wall time, and the time its thread ran of it. */
export const heldText = (holds: ServerHolds) =>
  `${Math.round(holds.holdMs)} ms (its thread ran up to ` +
  `${holds.ranHoldMs === undefined ? "?" : Math.round(holds.ranHoldMs)} ms of it)`;
