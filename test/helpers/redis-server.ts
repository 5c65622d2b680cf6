import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A throwaway redis-server on a loopback port, run as a daemon and stopped by the PID in its pidfile. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Starts it (again) on the same port, empty; does nothing while it runs. */
  start(): Promise<void>;
  /** Stops it by PID and waits until the port is closed. */
  stop(): Promise<void>;
  /** Freezes it (SIGSTOP): connections stay open and nothing answers, as with a hung server. */
  pause(): void;
  /** Lets a paused server run again (SIGCONT). */
  resume(): void;
  /** Stops it for good and removes its directory. */
  dispose(): Promise<void>;
}

const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? "redis-server";

export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "result-handles-redis-"));
  const pidfile = join(dir, "redis.pid");
  let pid: number | undefined;
  const killNow = () => {
    if (pid !== undefined) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
  };
  // If the test process dies first, do not leave the daemon behind.
  process.once("exit", killNow);

  const server: RedisServer = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      if (pid !== undefined) return; // already running
      rmSync(pidfile, { force: true });
      execFileSync(REDIS_SERVER, [
        "--bind",
        "127.0.0.1",
        "--port",
        String(port),
        "--save",
        "",
        "--appendonly",
        "no",
        "--daemonize",
        "yes",
        "--pidfile",
        pidfile,
        "--logfile",
        join(dir, "redis.log"),
        "--dir",
        dir,
      ]);
      await waitFor(async () => (await ping(port)) === "+PONG", `redis-server on port ${port} did not answer PING`);
      pid = Number(readFileSync(pidfile, "utf8").trim());
    },
    async stop() {
      if (pid === undefined) return;
      const stopping = pid;
      pid = undefined;
      try {
        process.kill(stopping, "SIGTERM");
        process.kill(stopping, "SIGCONT"); // a paused server handles SIGTERM only once it runs
      } catch {}
      await waitFor(
        async () => !alive(stopping) && (await ping(port)) === undefined,
        `redis-server ${stopping} did not stop`,
      );
    },
    pause() {
      if (pid !== undefined) process.kill(pid, "SIGSTOP");
    },
    resume() {
      if (pid !== undefined) process.kill(pid, "SIGCONT");
    },
    async dispose() {
      await server.stop();
      process.off("exit", killNow);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

/** Whether a process of that id still runs. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `+PONG` when a server answers on the port, undefined when nothing listens. */
function ping(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    let reply = "";
    socket.setTimeout(500, () => (socket.destroy(), resolve(undefined)));
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      reply += chunk.toString("latin1");
      if (reply.includes("\r\n")) {
        socket.destroy();
        resolve(reply.trim());
      }
    });
    socket.on("error", () => resolve(undefined));
  });
}

async function waitFor(check: () => Promise<boolean>, message: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(message);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
