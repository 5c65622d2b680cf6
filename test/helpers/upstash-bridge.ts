// A loopback bridge from the Upstash REST protocol to a real redis-server, so the real @upstash/redis client
// can be tested here (no local Upstash server exists). POST / runs one command, /pipeline a list of them,
// /multi-exec a list in order; commands are JSON arrays, the token a bearer token. With the
// `Upstash-Encoding: base64` header, every string reply goes back base64-encoded, as Upstash does.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Redis } from "ioredis";

export interface UpstashBridge {
  readonly url: string;
  readonly token: string;
  /** Requests served, by path: lets a test see the real client reached the bridge. */
  readonly requests: Record<string, number>;
  close(): Promise<void>;
}

type Reply = null | number | string | Buffer | Reply[];
type Encoded = null | number | string | Encoded[];

export async function startUpstashBridge(redisUrl: string, token = "bridge-token"): Promise<UpstashBridge> {
  const redis = new Redis(redisUrl);
  const requests: Record<string, number> = {};

  const run = async (command: unknown, base64: boolean) => {
    try {
      if (!Array.isArray(command) || command.length === 0) throw new Error("ERR a command is a non-empty JSON array");
      const [name, ...args] = command.map(String);
      return { result: encode((await redis.callBuffer(name!, ...args)) as Reply, base64) };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  };

  const http = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const send = (status: number, body: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (req.method !== "POST") return send(405, { error: "POST only" });
    if (req.headers.authorization !== `Bearer ${token}`) return send(401, { error: "Unauthorized" });
    const path = new URL(req.url ?? "/", "http://bridge").pathname;
    requests[path] = (requests[path] ?? 0) + 1;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
    const base64 = req.headers["upstash-encoding"] === "base64";
    if (path === "/") {
      const reply = await run(body, base64);
      return send("error" in reply ? 400 : 200, reply);
    }
    if (path === "/pipeline" || path === "/multi-exec") {
      const commands = body as unknown[];
      // In order on one connection; /multi-exec is not made atomic here, as the adapter sends no transactions.
      const replies = [];
      for (const command of commands) replies.push(await run(command, base64));
      return send(200, replies);
    }
    return send(404, { error: `no route ${path}` });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    requests,
    async close() {
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
      redis.disconnect();
    },
  };
}

function encode(reply: Reply, base64: boolean): Encoded {
  if (Buffer.isBuffer(reply)) return base64 ? reply.toString("base64") : reply.toString("utf8");
  if (Array.isArray(reply)) return reply.map((item) => encode(item, base64));
  return reply;
}
