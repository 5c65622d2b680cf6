/**
 * The servers the bench's Node stores talk to, started and stopped here so the bench depends on nothing of
 * the test suite: a redis-server in the foreground on a free loopback port (a child of this process, ended
 * with it), and a loopback bridge from the Upstash REST protocol to it, so the Upstash figure is the real
 * @upstash/redis client plus a local hop, not a remote service. The bridge serves what that client sends
 * for the store's commands: `POST /` (one command) and `/pipeline` (a list), a bearer token, and the
 * `Upstash-Encoding: base64` replies the client asks for.
 */
import { spawn, type ChildProcess } from "node:child_process";
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
export async function startRedis(binary = process.env.REDIS_SERVER_PATH ?? "redis-server"): Promise<BenchServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(binary, ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
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
  return {
    url: `redis://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        process.off("exit", stop);
        if (child.exitCode !== null) return resolve();
        child.removeAllListeners("exit").once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

type Reply = null | number | Buffer | Reply[];
type Sent = null | number | string | Sent[];

/** Upstash REST in front of the Redis at `redisUrl`. */
export async function startUpstashBridge(redisUrl: string, token = "bench-token"): Promise<UpstashEndpoint> {
  const redis = new Redis(redisUrl);
  const send = (reply: Reply, base64: boolean): Sent =>
    Buffer.isBuffer(reply) ? reply.toString(base64 ? "base64" : "utf8") : Array.isArray(reply) ? reply.map((item) => send(item, base64)) : reply;
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
    const answer = (status: number, json: unknown) => response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(json));
    if (request.method !== "POST" || request.headers.authorization !== `Bearer ${token}`) return answer(401, { error: "Unauthorized" });
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
