// S23.4: each known host, by the clientInfo.name a real client sends, over stdio (a server process) and
// over Streamable HTTP in both eras (2025 with a session: `initialize`; 2026-07-28: the request's _meta):
// an answer just under the host's cut less its margin stays whole, just over it folds, and the hint says
// whose cut did it; Codex's 300 short lines fold under 10 KiB; an unknown name, no name and
// `hostLimits: false` keep today's behaviour; result_query's slices stay within the same cut.
import { randomUUID } from "node:crypto";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { toNodeHandler } from "@modelcontextprotocol/node";
import {
  createMcpHandler,
  isLegacyRequest,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RESULT_HANDLE_META_KEY, ResultHandlesPlugin, type ResultHandlesOptions } from "mcp-result-handles";
import { registerHostCutTools, sizedText } from "../fixtures/host-cut-tools.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
type Result = {
  structuredContent?: Record<string, unknown>;
  content?: { type: string; text?: string }[];
  _meta?: Record<string, unknown>;
  isError?: boolean;
};

// The oracle: the hosts' cuts as their sources state them (docs/model.md's table), and the margin of S23.1
// (a sixteenth of the cut, for the envelope). Written out here, not read from the package.
const within = (limit: number) => limit - Math.floor(limit / 16);
const KNOWN: { name: string; host: string; unit: "bytes" | "chars" | "lines"; count: number; says: string }[] = [
  { name: "codex-mcp-client", host: "Codex", unit: "bytes", count: within(10 * 1024), says: "Codex's 10 KiB limit" },
  { name: "codex-mcp-client", host: "Codex", unit: "lines", count: within(256), says: "Codex's 256-line limit" },
  {
    name: "gemini-cli-mcp-client",
    host: "Gemini CLI",
    unit: "chars",
    count: within(40_000),
    says: "Gemini CLI's 40,000-character limit",
  },
  // Claude Code counts 4 characters a token: 25,000 tokens less the margin, as characters.
  {
    name: "claude-code",
    host: "Claude Code",
    unit: "bytes",
    count: within(25_000) * 4,
    says: "Claude Code's 25,000-token limit",
  },
  { name: "Cline", host: "Cline", unit: "bytes", count: within(100_000), says: "Cline's 100,000-byte limit" },
  { name: "goose", host: "Goose", unit: "chars", count: within(200_000), says: "Goose's 200,000-character limit" },
  { name: "Zed", host: "Zed", unit: "bytes", count: within(64 * 1024), says: "Zed's 64 KiB limit" },
];

const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.allSettled(open.map((client) => client.close()));
});

const stdioClient = async (name: string, hostLimits?: ResultHandlesOptions["hostLimits"]) => {
  const client = new Client({ name, version: "1.0.0" });
  const env = {
    ...process.env,
    ...(hostLimits === undefined ? {} : { HOST_LIMITS: JSON.stringify(hostLimits) }),
  } as Record<string, string>;
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ["--import", "tsx", "test/fixtures/host-cut-stdio.ts"],
      cwd: root,
      env,
      stderr: "pipe",
    }),
  );
  open.push(client);
  return client;
};
const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as Result;
const folded = (result: Result) => result._meta?.[RESULT_HANDLE_META_KEY] !== undefined;
const hint = (result: Result) => result.content?.[1]?.text ?? "";

/** Under the cut stays whole (its text as sent); one more unit folds, and the hint names the host's cut. */
async function expectCut(client: Client, known: (typeof KNOWN)[number]): Promise<void> {
  const under = await call(client, "sized", { unit: known.unit, count: known.count });
  expect(folded(under), `${known.name} ${known.unit} ${known.count}`).toBe(false);
  expect(under.content).toEqual([{ type: "text", text: sizedText(known.unit, known.count) }]);
  const over = await call(client, "sized", { unit: known.unit, count: known.count + 1 });
  expect(folded(over), `${known.name} ${known.unit} ${known.count + 1}`).toBe(true);
  expect(hint(over)).toContain(`was folded to fit ${known.says}:`);
}

describe("S23.4 over stdio", () => {
  it.each([...new Set(KNOWN.map((known) => known.name))])(
    "%s: just under its cut whole, just over folded",
    async (name) => {
      const client = await stdioClient(name);
      for (const known of KNOWN.filter((entry) => entry.name === name)) await expectCut(client, known);
    },
  );

  it("Codex: 300 short lines, under 10 KiB, fold (its 256-line cut); another client gets them whole", async () => {
    const codex = await stdioClient("codex-mcp-client");
    const lines = await call(codex, "sized", { unit: "lines", count: 300 });
    expect(folded(lines)).toBe(true);
    expect(JSON.parse(lines.content![0]!.text!)).toHaveProperty("preview");
    expect((lines._meta?.[RESULT_HANDLE_META_KEY] as { bytes: number }).bytes).toBeLessThan(10 * 1024);
    const other = await stdioClient("some-other-client");
    expect(folded(await call(other, "sized", { unit: "lines", count: 300 }))).toBe(false);
  });

  it("an unknown name keeps today's behaviour", async () => {
    const unknown = await stdioClient("codex-mcp-client-2");
    expect(folded(await call(unknown, "sized", { unit: "bytes", count: 200_000 }))).toBe(false);
    // the threshold still folds
    expect(folded(await call(unknown, "sized", { unit: "bytes", count: 1_000_001 }))).toBe(true);
  });

  it("hostLimits: false keeps today's behaviour for a known name", async () => {
    const off = await stdioClient("codex-mcp-client", false);
    expect(folded(await call(off, "sized", { unit: "bytes", count: 20_000 }))).toBe(false);
    expect(folded(await call(off, "sized", { unit: "lines", count: 1000 }))).toBe(false);
  });

  it("an entry of the option adds a host, or replaces a known one whole", async () => {
    const added = await stdioClient("my-agent", { "my-agent": { bytes: 2000 }, "codex-mcp-client": { lines: 1000 } });
    expect(folded(await call(added, "sized", { unit: "bytes", count: within(2000) }))).toBe(false);
    const over = await call(added, "sized", { unit: "bytes", count: within(2000) + 1 });
    expect(hint(over)).toContain("was folded to fit my-agent's 2,000-byte limit:");
    // An entry replaces the known one whole: Codex's bytes no longer count, its lines at 1000.
    const codex = await stdioClient("codex-mcp-client", { "codex-mcp-client": { lines: 1000 } });
    expect(folded(await call(codex, "sized", { unit: "bytes", count: 50_000 }))).toBe(false);
    expect(hint(await call(codex, "sized", { unit: "lines", count: within(1000) + 1 }))).toContain(
      "Codex's 1,000-line limit",
    );
  });
});

/**
 * A Streamable HTTP server serving 2025 clients with sessions (so `initialize` names the client) and 2026-07-28 clients
 * without.
 */
async function startServer(options: ResultHandlesOptions = {}): Promise<{ url: string; close(): Promise<void> }> {
  const plugin = ResultHandlesPlugin.init({ thresholdBytes: 1_000_000, storage: { type: "memory" }, ...options });
  const build = () => {
    const server = new McpServer({ name: "host-cut", version: "1" });
    plugin.install(server, { logger: { warn: () => {} } });
    registerHostCutTools(server);
    return server;
  };
  const modern = createMcpHandler(build, { legacy: "reject", onerror: () => {} });
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  // The 2026-07-28 era has no sessions: a bearer token names the caller, so its answers fold (S8.1).
  const authInfo = { token: "t", clientId: "host-cut", scopes: [], extra: { sub: "user" } };
  async function fetch(request: Request): Promise<Response> {
    if (!(await isLegacyRequest(request))) return modern.fetch(request, { authInfo });
    const id = request.headers.get("mcp-session-id");
    if (id)
      return sessions.get(id)?.handleRequest(request, { authInfo }) ?? new Response("no session", { status: 404 });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => void sessions.set(sid, transport),
    });
    await build().connect(transport);
    return transport.handleRequest(request, { authInfo });
  }
  const handle = toNodeHandler({ fetch });
  const http: HttpServer = createServer(
    (req, res) => void handle(req, res).catch(() => res.headersSent || res.writeHead(500).end()),
  );
  await new Promise<void>((done) => http.listen(0, "127.0.0.1", done));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    close: async () => {
      await Promise.allSettled([...sessions.values()].map((transport) => transport.close()));
      await modern.close();
      await new Promise<void>((done) => {
        http.close(() => done());
        http.closeAllConnections();
      });
      await plugin.onShutdown();
    },
  };
}

const eras = ["2025", "2026-07-28"] as const;
async function httpClient(url: string, name: string, era: (typeof eras)[number]): Promise<Client> {
  const client = new Client(
    { name, version: "1.0.0" },
    era === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  open.push(client);
  return client;
}

describe.each(eras)("S23.4 over Streamable HTTP, %s era", (era) => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let off: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    server = await startServer();
    off = await startServer({ hostLimits: false });
  });
  afterAll(async () => {
    await server.close();
    await off.close();
  });

  it("each known name: just under its cut whole, just over folded, the hint naming the cut", async () => {
    for (const name of new Set(KNOWN.map((known) => known.name))) {
      const client = await httpClient(server.url, name, era);
      for (const known of KNOWN.filter((entry) => entry.name === name)) await expectCut(client, known);
    }
  });

  it("Codex's 300 short lines fold; an unknown name and hostLimits: false send them whole", async () => {
    expect(
      folded(await call(await httpClient(server.url, "codex-mcp-client", era), "sized", { unit: "lines", count: 300 })),
    ).toBe(true);
    expect(
      folded(await call(await httpClient(server.url, "an-unknown-host", era), "sized", { unit: "lines", count: 300 })),
    ).toBe(false);
    expect(
      folded(await call(await httpClient(off.url, "codex-mcp-client", era), "sized", { unit: "lines", count: 300 })),
    ).toBe(false);
  });

  it("result_query's slices stay within Codex's cut: a slice over it is refused with the call that fits", async () => {
    const codex = await httpClient(server.url, "codex-mcp-client", era);
    const rows = await call(codex, "rows", { count: 400 }); // about 12 KB: under the threshold, over Codex's cut
    expect(folded(rows)).toBe(true);
    expect(hint(rows)).toContain("Codex's 10 KiB limit");
    const handle = (rows.structuredContent as { handle: string }).handle;
    // The folded answer and its hint pass Codex whole.
    expect(
      Buffer.byteLength(JSON.stringify(rows.structuredContent)) + Buffer.byteLength(hint(rows)),
    ).toBeLessThanOrEqual(within(10 * 1024));
    const refused = await call(codex, "result_query", { handle, path: "$.rows", limit: 400 });
    expect(refused.isError).toBe(true);
    expect(refused.content?.[0]?.text).toMatch(/^RESULT_SLICE_TOO_LARGE: /);
    const fits = /limit (\d+)/.exec(refused.content![0]!.text!)?.[1];
    expect(Number(fits)).toBeGreaterThan(0);
    const slice = await call(codex, "result_query", { handle, path: "$.rows", limit: Number(fits) });
    expect(slice.isError).toBeFalsy();
    expect(Buffer.byteLength(slice.content![0]!.text!)).toBeLessThanOrEqual(within(10 * 1024));
    // Its hint's own example works as written for Codex.
    const example = /result_query (\{[^}]*\})/.exec(hint(rows))![1]!;
    expect((await call(codex, "result_query", JSON.parse(example) as Record<string, unknown>)).isError).toBeFalsy();
  });
});
