/**
 * A real MCP server over real HTTP (Streamable HTTP on loopback, through `createMcpHandler`): a fresh
 * `McpServer` per request from `build`, both protocol eras (2025 served statelessly), and a bearer-token
 * check whose `AuthInfo` the test chooses, as an OAuth resource server's token verifier would give it.
 */
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, type AuthInfo, type McpServer } from "@modelcontextprotocol/server";

export interface HttpMcpServer {
  url: string;
  close(): Promise<void>;
}

/**
 * `tokens` maps a bearer token to what the verifier says of it; an unknown token gets HTTP 401, no token no `authInfo`.
 */
export async function startHttpMcpServer(
  build: () => McpServer,
  tokens: ReadonlyMap<string, AuthInfo> = new Map(),
): Promise<HttpMcpServer> {
  const handler = createMcpHandler(build, { onerror: () => {} });
  async function fetch(request: Request): Promise<Response> {
    const header = request.headers.get("authorization");
    const token = header ? /^Bearer\s+(\S+)$/i.exec(header)?.[1] : undefined;
    const authInfo = token ? tokens.get(token) : undefined;
    if (header && !authInfo) return new Response("unknown token", { status: 401 });
    return handler.fetch(request, authInfo ? { authInfo } : {});
  }
  const handle = toNodeHandler({ fetch });
  const http: HttpServer = createServer(
    (req, res) => void handle(req, res).catch(() => res.headersSent || res.writeHead(500).end()),
  );
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      await handler.close();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}

/** What a token verifier gives for one user of a shared OAuth client. */
export function userToken(clientId: string, sub: unknown): AuthInfo {
  return { token: "t", clientId, scopes: [], extra: { sub } };
}
