/**
 * The servers the bench's Node stores talk to, started and stopped here so the bench depends on nothing of
 * the test suite: a redis-server in the foreground on a free loopback port (a child of this process, ended
 * with it), a 3-master Redis Cluster of such children, and a loopback bridge from the Upstash REST protocol to it, so
 * the Upstash figure is the real
 * @upstash/redis client plus a local hop, not a remote service. The bridge serves what that client sends
 * for the store's commands: `POST /` (one command) and `/pipeline` (a list), a bearer token, and the
 * `Upstash-Encoding: base64` replies the client asks for.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createServer as createHttpServer, type IncomingMessage } from "node:http";
import { createServer as createTcpServer, type AddressInfo } from "node:net";
import { Redis } from "ioredis";

export interface BenchServer {
  readonly url: string;
  close(): Promise<void>;
}

export interface UpstashEndpoint extends BenchServer {
  readonly token: string;
}

/** A port nothing listens on now (the kernel's pick, released at once). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createTcpServer().once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** redis-server with nothing saved to disk; resolves once it accepts connections. */
export async function startRedis(binary = REDIS_SERVER): Promise<BenchServer> {
  const port = await freePort();
  return { url: `redis://127.0.0.1:${port}`, close: await spawnRedis(binary, port, []) };
}

const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? "redis-server";
const REDIS_CLI = process.env.REDIS_CLI_PATH ?? "redis-cli";

/**
 * A redis-server in the foreground on `port`, a child of this process; resolves to its stop once it accepts
 * connections.
 */
async function spawnRedis(binary: string, port: number, args: readonly string[]): Promise<() => Promise<void>> {
  const child: ChildProcess = spawn(
    binary,
    ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no", ...args],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const stop = () => child.kill("SIGKILL");
  process.once("exit", stop);
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`redis-server exited with code ${code} before it was ready`)));
    child.stdout!.on("data", (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      if (seen.includes("Ready to accept connections")) resolve();
    });
  });
  child.stdout!.resume();
  return () =>
    new Promise<void>((resolve) => {
      process.off("exit", stop);
      if (child.exitCode !== null) return resolve();
      child.removeAllListeners("exit").once("exit", () => resolve());
      child.kill("SIGTERM");
    });
}

export interface BenchCluster {
  /** As `storage.redis.cluster` takes them. */
  readonly endpoints: readonly { host: string; port: number }[];
  close(): Promise<void>;
}

/**
 * A Redis Cluster of three masters, no replicas (S17.2), each a foreground child on free loopback ports with
 * its config in a temp folder; resolves once every master reports `cluster_state:ok`.
 */
export async function startRedisCluster(binary = REDIS_SERVER): Promise<BenchCluster> {
  const dir = mkdtempSync(join(tmpdir(), "result-handles-bench-cluster-"));
  const stops: (() => Promise<void>)[] = [];
  const ports: number[] = [];
  const close = async () => {
    await Promise.all(stops.map((stop) => stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 3; i++) {
      // The bus port is given, not port + 10000, which can run past 65535 from an ephemeral port.
      const [port, bus] = [await freePort(), await freePort()];
      ports.push(port);
      const node = join(dir, `node-${i}`);
      mkdirSync(node);
      stops.push(
        await spawnRedis(binary, port, [
          "--cluster-enabled",
          "yes",
          "--cluster-port",
          String(bus),
          "--cluster-config-file",
          join(node, "nodes.conf"),
          "--dir",
          node,
        ]),
      );
    }
    await promisify(execFile)(
      REDIS_CLI,
      ["--cluster", "create", ...ports.map((port) => `127.0.0.1:${port}`), "--cluster-yes"],
      { timeout: 30_000 },
    );
    const clients = ports.map((port) => new Redis({ host: "127.0.0.1", port, lazyConnect: true }));
    try {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const infos = await Promise.all(clients.map((client) => client.call("cluster", "info") as Promise<string>));
        if (infos.every((info) => info.includes("cluster_state:ok"))) break;
        if (Date.now() > deadline) throw new Error("the bench's Redis Cluster did not reach cluster_state:ok");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      for (const client of clients) client.disconnect();
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { endpoints: ports.map((port) => ({ host: "127.0.0.1", port })), close };
}

type Reply = null | number | Buffer | Reply[];
type Sent = null | number | string | Sent[];

/** Upstash REST in front of the Redis at `redisUrl`. */
export async function startUpstashBridge(redisUrl: string, token = "bench-token"): Promise<UpstashEndpoint> {
  const redis = new Redis(redisUrl);
  const send = (reply: Reply, base64: boolean): Sent =>
    Buffer.isBuffer(reply)
      ? reply.toString(base64 ? "base64" : "utf8")
      : Array.isArray(reply)
        ? reply.map((item) => send(item, base64))
        : reply;
  const run = async (command: unknown, base64: boolean) => {
    try {
      const [name, ...args] = (command as unknown[]).map(String);
      return { result: send((await redis.callBuffer(name!, ...args)) as Reply, base64) };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  };
  const body = async (request: IncomingMessage): Promise<unknown> => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  };
  const http = createHttpServer(async (request, response) => {
    const answer = (status: number, json: unknown) =>
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(json));
    if (request.method !== "POST" || request.headers.authorization !== `Bearer ${token}`)
      return answer(401, { error: "Unauthorized" });
    const base64 = request.headers["upstash-encoding"] === "base64";
    const path = new URL(request.url ?? "/", "http://bridge").pathname;
    if (path === "/") return answer(200, await run(await body(request), base64));
    if (path !== "/pipeline" && path !== "/multi-exec") return answer(404, { error: `no route ${path}` });
    const replies = [];
    for (const command of (await body(request)) as unknown[]) replies.push(await run(command, base64));
    return answer(200, replies);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    token,
    async close() {
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
      redis.disconnect();
    },
  };
}
