/**
 * The server of test/fixtures/held-server.ts in a process of its own (S21.4, S26.3): a test times the SERVER's event
 * loop there, apart from its own (its MCP clients parse every answer they get: twenty whole answers of 1.4 MB are
 * the client's work, not the server's). Its store is the Redis at `redisUrl`; callers "alice" and "bob".
 */
import { spawnChildServer, type ChildServer } from "./child-server.js";

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
