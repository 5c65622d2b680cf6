/**
 * The server of test/fixtures/held-server.ts in a process of its own (S21.4, S26.3): a test times the SERVER's event
 * loop there, apart from its own (its MCP clients parse every answer they get: twenty whole answers of 1.4 MB are
 * the client's work, not the server's). Its store is the Redis at `redisUrl`; callers "alice" and "bob".
 */
import { spawn, type ChildProcess } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** What the server says of its own loop since the last `watch()`. */
export interface ServerHolds {
  /** The longest gap between two ticks of its 5 ms timer, in wall time (it counts time spent waiting for a processor). */
  holdMs: number;
  /** The most its main thread ran between two such ticks (Linux; undefined elsewhere): the hold it made itself. */
  ranHoldMs: number | undefined;
  heapBytes: number;
  rssBytes: number;
}

export interface HeldServer {
  readonly url: string;
  readonly child: ChildProcess;
  /** Off: every answer goes out whole. */
  fold(on: boolean): Promise<void>;
  /** Starts timing its loop afresh. */
  watch(): Promise<void>;
  holds(): Promise<ServerHolds>;
  stop(): Promise<void>;
}

export async function spawnHeldServer(redisUrl: string): Promise<HeldServer> {
  const child = spawn(process.execPath, ["--import", "tsx", "test/fixtures/held-server.ts"], {
    cwd: root,
    env: { ...process.env, REDIS_URL: redisUrl },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exit = new Promise<void>((resolveExit) => child.on("exit", () => resolveExit()));
  const url = await new Promise<string>((resolveUrl, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk) => {
      out += chunk;
      const line = /(http:\/\/\S+)/.exec(out)?.[1];
      if (line) resolveUrl(line);
    });
    void exit.then(() => reject(new Error(`the server exited: ${stderr}`)));
  });
  const ask = <T>(message: object) =>
    new Promise<T>((resolveAnswer) => {
      child.once("message", (answer) => resolveAnswer(answer as T));
      child.send(message);
    });
  return {
    url,
    child,
    fold: async (on) => void (await ask({ fold: on })),
    watch: async () => void (await ask({ watch: true })),
    holds: () => ask<ServerHolds>({ holds: true }),
    async stop() {
      if (child.connected) child.disconnect(); // it closes its server and store, then exits
      const killer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exit;
      clearTimeout(killer);
    },
  };
}
