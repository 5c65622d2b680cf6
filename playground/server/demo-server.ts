/**
 * The demo MCP server behind `npm start` (S11.1, S11.2): Streamable HTTP on 127.0.0.1 at /mcp, serving
 * 2025 clients with sessions and 2026-07-28 clients without, with two result-handles plugin instances.
 * It closes 2025 sessions left idle, and logs one `info` line per tools/call (call-log.ts).
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "@modelcontextprotocol/node";
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  McpServer,
  originValidationResponse,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
} from "@modelcontextprotocol/server";
import { ResultHandlesPlugin, type FoldPolicy, type Logger } from "mcp-result-handles";
import { logToolCalls } from "./call-log.js";
import { FoldCap, folderOf } from "./session-cap.js";
import { chartPng } from "./chart-png.js";
import { registerCountTickets, registerOrders, registerReport, registerServerLog } from "../demo-tools.js";

/**
 * Bearer tokens the demo accepts, and the caller each one names (S11.1). A Map, not an object literal:
 * `constructor`, `__proto__` or `toString` must be unknown tokens, not inherited members.
 */
const DEMO_TOKENS: ReadonlyMap<string, string> = new Map([
  ["demo-alice", "alice"],
  ["demo-bob", "bob"],
]);

/** Warnings, and one `info` line per tools/call (S11.1). */
export interface DemoLogger extends Logger {
  info?(message: string): void;
}

export interface DemoServerOptions {
  port?: number;
  host?: string;
  logger?: DemoLogger;
  /** A 2025 session idle for longer than this is closed; its id then gets HTTP 404 (S11.1). Default 1800. */
  sessionIdleSeconds?: number;
  /** Most 2025 sessions open at once; past it a new session gets HTTP 503 and the log a line (S16.3). Default 1000. */
  maxSessions?: number;
  /**
   * More tools on every per-request server (the bench adds a 10 MB one); those named in `folded` fold with the reports
   * instance.
   */
  extraTools?: { register(server: McpServer): void; folded?: readonly string[] };
  /** Serve the result viewer to MCP Apps hosts (S19.1) on both instances' tools. Default false. */
  viewer?: boolean;
  /**
   * Most bytes of answers one session (or caller) may fold per answer lifetime (S16.3, S26.5); past it its
   * large answers go out whole. Default `DEFAULT_SESSION_FOLD_BYTES` (16 MiB).
   */
  maxSessionFoldBytes?: number;
}

export const DEFAULT_SESSION_IDLE_SECONDS = 1800;
export const DEFAULT_MAX_SESSIONS = 1000;
export const DEFAULT_SESSION_FOLD_BYTES = 16 * 1024 * 1024;
/** Refused sessions are logged at most this often, with how many were refused since: a flood must not flood the log. */
const REFUSAL_LOG_MS = 10_000;

export interface DemoServer {
  url: string;
  reports: ResultHandlesPlugin;
  orders: ResultHandlesPlugin;
  close(): Promise<void>;
}

export async function startDemoServer(options: DemoServerOptions = {}): Promise<DemoServer> {
  const logger = options.logger ?? console;
  // One plugin per app, created once: per-request servers share their stores (S10.1). A session's folds in
  // both count against one cap (S26.5), over the answers' lifetime.
  const foldPolicy: FoldPolicy = (_tool, _answer, { bytes, request }) => cap.admit(folderOf(request), bytes);
  const reports = ResultHandlesPlugin.init({ thresholdBytes: 4096, storage: { type: "auto" }, foldPolicy });
  const orders = ResultHandlesPlugin.init({
    thresholdBytes: 8192,
    preview: { items: 2 },
    storage: { type: "auto" },
    foldPolicy,
  });
  const cap = new FoldCap(options.maxSessionFoldBytes ?? DEFAULT_SESSION_FOLD_BYTES, reports.config.ttlSeconds * 1000);

  const buildServer = (): McpServer => {
    const server = logToolCalls(new McpServer({ name: "result-handles-demo", version: "0.1.0" }), (line) =>
      logger.info?.(line),
    );
    const viewer = options.viewer ? { viewer: true } : {};
    reports.install(server, {
      tools: ["report", "server_log", "chart", "count_tickets", ...(options.extraTools?.folded ?? [])],
      logger,
      ...viewer,
    });
    orders.install(server, { tools: ["orders"], logger, ...viewer });
    registerReport(server);
    registerServerLog(server);
    registerOrders(server);
    registerCountTickets(server);
    options.extraTools?.register(server);
    server.registerTool("chart", { description: "Ticket counts per week, as a PNG bar chart" }, async () => ({
      content: [
        { type: "image", data: chartPng([12, 30, 22, 41, 18, 35, 27, 44]).toString("base64"), mimeType: "image/png" },
      ],
    }));
    return server;
  };

  const modern = createMcpHandler(buildServer, {
    legacy: "reject",
    onerror: (error) => logger.warn(`mcp: ${error.message}`),
  });
  const sessions = new Map<string, { transport: WebStandardStreamableHTTPServerTransport; lastSeen: number }>();
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  let opening = 0;
  let refusedSince = 0;
  let lastRefusalLog = -Infinity;

  // Clients that vanish without DELETE must not grow the server: close sessions idle too long (S11.1).
  // Idle means no request since; a client that still holds a stream open reconnects on the 404 it then gets.
  const idleMs = (options.sessionIdleSeconds ?? DEFAULT_SESSION_IDLE_SECONDS) * 1000;
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, session] of sessions) {
        if (now - session.lastSeen <= idleMs) continue;
        sessions.delete(id);
        session.transport.close().catch((error: unknown) => logger.warn(`mcp: closing idle session: ${String(error)}`));
      }
      cap.sweep(now);
    },
    Math.min(Math.max(idleMs / 4, 100), 60_000),
  );
  sweep.unref();

  /** 2025 clients: one transport and one server per session. */
  async function serveLegacy(request: Request, authInfo: AuthInfo | undefined): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId) {
      const session = sessions.get(sessionId);
      if (!session) return jsonRpcError(404, -32001, "Session not found: initialize a new session");
      session.lastSeen = Date.now();
      return session.transport.handleRequest(request, { authInfo });
    }
    // S16.3: sessions being set up count too, or a burst of initializations would pass the cap together.
    if (sessions.size + opening >= maxSessions) return refuseSession();
    opening++;
    let counted = true;
    const settle = () => {
      if (counted) opening--;
      counted = false;
    };
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        settle();
        sessions.set(id, { transport, lastSeen: Date.now() });
      },
      onsessionclosed: (id) => void sessions.delete(id),
    });
    try {
      await buildServer().connect(transport);
      return await transport.handleRequest(request, { authInfo });
    } finally {
      settle(); // not an initialization after all, or it failed: no session is being set up any more
    }
  }

  /** HTTP 503 past the session cap, and a line in the log (at most one per REFUSAL_LOG_MS, with a count). */
  function refuseSession(): Response {
    refusedSince++;
    const now = Date.now();
    if (now - lastRefusalLog >= REFUSAL_LOG_MS) {
      logger.warn(
        `mcp: ${sessions.size} sessions are open, the most this server keeps (maxSessions ` +
          `${maxSessions}); refused ${refusedSince} new session(s) with HTTP 503`,
      );
      lastRefusalLog = now;
      refusedSince = 0;
    }
    return jsonRpcError(
      503,
      -32000,
      `Too many open sessions (${maxSessions}): close one (HTTP DELETE) or try again later`,
      { "Retry-After": "60" },
    );
  }

  async function fetch(request: Request): Promise<Response> {
    if (new URL(request.url).pathname !== "/mcp")
      return new Response("Not found: the MCP endpoint is /mcp\n", { status: 404 });
    // Against DNS rebinding, as every localhost MCP server should (S11.1).
    const refused =
      hostHeaderValidationResponse(request, localhostAllowedHostnames()) ??
      originValidationResponse(request, localhostAllowedOrigins());
    if (refused) return refused;
    // S25.4: a page on this machine (another loopback port: an MCP Apps host, `npm run host`) may call the
    // demo from the browser. Only loopback origins get here (the check above), and only they get CORS headers.
    const origin = request.headers.get("origin");
    const cors = origin && isLoopbackOrigin(origin) ? corsHeaders(origin) : undefined;
    if (request.method === "OPTIONS") {
      if (!cors) return new Response(null, { status: 204, headers: { Allow: "GET, POST, DELETE, OPTIONS" } });
      return new Response(null, { status: 204, headers: { ...cors, ...PREFLIGHT_HEADERS } });
    }
    const auth = authenticate(request);
    const response =
      auth === "refused"
        ? jsonRpcError(401, -32001, "Unknown bearer token: use demo-alice, demo-bob or none", {
            "WWW-Authenticate": 'Bearer realm="demo"',
          })
        : (await isLegacyRequest(request))
          ? await serveLegacy(request, auth)
          : await modern.fetch(request, { authInfo: auth });
    return cors ? withHeaders(response, cors) : response;
  }

  const handle = toNodeHandler({ fetch }, { onerror: (error) => logger.warn(`http: ${error.message}`) });
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      logger.warn(`http: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  const host = options.host ?? "127.0.0.1";
  try {
    await new Promise<void>((resolve, reject) => {
      http.once("error", reject);
      http.listen(options.port ?? 3000, host, resolve);
    });
  } catch (error) {
    clearInterval(sweep);
    throw error; // start.ts turns a busy port into one line (S11.1)
  }
  const { port } = http.address() as AddressInfo;

  return {
    url: `http://${host}:${port}/mcp`,
    reports,
    orders,
    async close() {
      clearInterval(sweep);
      await Promise.allSettled([...sessions.values()].map((session) => session.transport.close()));
      await modern.close();
      await closeHttp(http);
      await Promise.all([reports.onShutdown(), orders.onShutdown()]);
    },
  };
}

/** What a preflight from a loopback origin is told (S25.4): the MCP methods and the headers its clients send. */
const PREFLIGHT_HEADERS = {
  "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
  "Access-Control-Allow-Headers":
    "authorization, content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id",
  "Access-Control-Max-Age": "600",
};

/**
 * S25.4: whether `origin` is a loopback web origin as a browser sends it: http or https, host localhost,
 * 127.0.0.1 or [::1], any port, and nothing else. The rebinding check lets more through (it compares only the
 * URL's host name): other schemes whose host is localhost (`tauri://localhost`, `capacitor://localhost`,
 * `app://localhost`: apps' web views), and texts that are no serialized origin (`http://evil.example@localhost`,
 * `http://localhost\@evil.example`, `http://127.1`); none of these gets CORS headers.
 */
function isLoopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return (
    (url.protocol === "http:" || url.protocol === "https:") && url.origin === origin && LOOPBACK_HOSTS.has(url.hostname)
  );
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** CORS headers for a loopback origin (isLoopbackOrigin; the rebinding check has refused other hosts before). */
function corsHeaders(origin: string): Record<string, string> {
  return {
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Expose-Headers": "mcp-session-id, mcp-protocol-version, www-authenticate",
    Vary: "Origin",
  };
}

/** The response with more headers (a response's own headers may be immutable): its body streams on as it was. */
function withHeaders(response: Response, headers: Record<string, string>): Response {
  const merged = new Headers(response.headers);
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: merged });
}

/** `demo-alice` and `demo-bob` name callers; no token means no caller; any other token is refused. */
function authenticate(request: Request): AuthInfo | undefined | "refused" {
  const header = request.headers.get("authorization");
  if (!header) return undefined;
  const token = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
  const caller = token ? DEMO_TOKENS.get(token) : undefined;
  if (!token || !caller) return "refused";
  return { token, clientId: "demo-client", scopes: [], extra: { sub: caller } };
}

function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

function closeHttp(http: HttpServer): Promise<void> {
  return new Promise((resolve) => {
    http.close(() => resolve());
    http.closeAllConnections();
  });
}
