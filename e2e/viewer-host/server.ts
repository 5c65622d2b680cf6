/**
 * What the viewer's e2e test serves on one loopback origin: the built test host page, the viewer's HTML
 * alone (for the no-host case), and `/mcp` passed through to the real demo server, so the page talks to
 * it without cross-origin requests. Streams (SSE) pass through as they arrive.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readFile } from "node:fs/promises";
import { extname, join } from "node:path";
import { Readable } from "node:stream";

const TYPES: Record<string, string> = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css" };
const DROPPED = new Set(["content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive"]);

export async function serveHost(
  pageDir: string,
  viewerHtml: string,
  mcpUrl: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const http: Server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      if (path === "/mcp") {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const body = req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks);
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers))
          if (name !== "host" && typeof value === "string") headers.set(name, value);
        const upstream = await fetch(mcpUrl, { method: req.method, headers, body });
        res.writeHead(
          upstream.status,
          Object.fromEntries([...upstream.headers].filter(([name]) => !DROPPED.has(name))),
        );
        if (upstream.body) Readable.fromWeb(upstream.body as never).pipe(res);
        else res.end();
        return;
      }
      if (path === "/viewer.html") return void res.writeHead(200, { "content-type": "text/html" }).end(viewerHtml);
      const file = join(pageDir, path === "/" ? "index.html" : path);
      if (!file.startsWith(pageDir)) return void res.writeHead(404).end();
      const data = await readFile(file).catch(() => undefined);
      if (!data) return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(data);
    })().catch(() => res.headersSent || res.writeHead(502).end());
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}
