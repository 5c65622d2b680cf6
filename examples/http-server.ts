/**
 * A complete MCP server over Streamable HTTP whose large answers fold for signed-in callers.
 * Run: npx tsx http-server.ts, then point a client at http://127.0.0.1:3000/mcp with the header
 * "Authorization: Bearer token-alice". PORT changes the port (0 picks a free one).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "@modelcontextprotocol/node";
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  McpServer,
  originValidationResponse,
  type AuthInfo,
} from "@modelcontextprotocol/server";
import { ResultHandlesPlugin, foldedAnswerSchema } from "mcp-result-handles";
import { z } from "zod";

// Create the plugin once: createMcpHandler builds a server per request, and the plugin keeps one store for all.
const plugin = ResultHandlesPlugin.init({ thresholdBytes: 4096 });

const ticket = z.object({ id: z.string(), title: z.string() });

function buildServer(): McpServer {
  const server = new McpServer({ name: "tickets", version: "1.0.0" });
  plugin.install(server); // cheap: safe to run for every request
  server.registerTool(
    "tickets",
    {
      description: "Every open ticket",
      outputSchema: z.union([z.object({ rows: z.array(ticket) }), foldedAnswerSchema]),
    },
    async () => {
      const answer = { rows: Array.from({ length: 200 }, (_, i) => ({ id: `T-${i}`, title: `Ticket ${i}` })) };
      return { content: [{ type: "text", text: JSON.stringify(answer) }], structuredContent: answer };
    },
  );
  return server;
}

const mcp = createMcpHandler(buildServer);

// Your own token check goes here. A folded answer reads back only for the caller it was folded for.
const callers = new Map([
  ["token-alice", "alice"],
  ["token-bob", "bob"],
]);

async function fetch(request: Request): Promise<Response> {
  if (new URL(request.url).pathname !== "/mcp") return new Response("Not found\n", { status: 404 });
  // A localhost server refuses other Host and Origin headers, against DNS rebinding.
  const refused =
    hostHeaderValidationResponse(request, localhostAllowedHostnames()) ??
    originValidationResponse(request, localhostAllowedOrigins());
  if (refused) return refused;
  const token = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
  const caller = token === undefined ? undefined : callers.get(token);
  if (token !== undefined && caller === undefined) return new Response("Unknown token\n", { status: 401 });
  // The plugin reads the caller from authInfo.extra.sub (else clientId). No token: anonymous, answers come whole.
  const authInfo: AuthInfo | undefined = caller
    ? { token: token!, clientId: "tickets-example", scopes: [], extra: { sub: caller } }
    : undefined;
  return mcp.fetch(request, { authInfo });
}

const port = Number(process.env.PORT ?? 3000);
const handle = toNodeHandler({ fetch });
const http = createServer((req, res) => void handle(req, res));
http.once("error", (error: NodeJS.ErrnoException) => {
  // One line and exit code 1, no stack trace: the usual cause is a server already running there.
  console.error(
    error.code === "EADDRINUSE"
      ? `Port ${port} is already in use: start on another with PORT=${port + 1}`
      : `Cannot listen on port ${port}: ${error.message}`,
  );
  process.exit(1);
});
http.listen(port, "127.0.0.1", () => {
  console.log(`MCP server on http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, async () => {
    http.close();
    http.closeAllConnections();
    await mcp.close();
    await plugin.onShutdown();
    process.exit(0);
  });
}
