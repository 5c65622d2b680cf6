// S15.1-S15.2 with the clients people use: the SDK v1 client (the MCP Inspector's) and the v2 client,
// over stdio (a real server process, test/fixtures/stdio-server.ts) and over Streamable HTTP; and the
// figure S15 is for: a 10 MB answer passed on by reference in a request under 1 KB.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as V1HttpClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as V2Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport as V2StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { McpServer } from "@modelcontextprotocol/server";
import { afterAll, describe, expect, it } from "vitest";
import { RESULT_HANDLE_META_KEY, ResultHandlesPlugin } from "mcp-result-handles";
import { startHttpMcpServer, userToken } from "../helpers/http-mcp-server.js";
import { noRuns, registerReferenceTools } from "../helpers/reference-tools.js";
import { expectFoldMeta } from "../helpers/fold-meta.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const stdioServer = {
  command: process.execPath,
  args: ["--import", "tsx", "test/fixtures/stdio-server.ts"],
  cwd: root,
  stderr: "pipe" as const,
};
type Result = {
  structuredContent?: Record<string, unknown>;
  content?: { type: string; text?: string }[];
  _meta?: Record<string, unknown>;
  isError?: boolean;
};
interface AnyClient {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  listTools(): Promise<unknown>;
  close(): Promise<void>;
}
const open: AnyClient[] = [];
afterAll(async () => {
  await Promise.allSettled(open.map((client) => client.close()));
});
const call = async (client: AnyClient, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as Result;
const handleOf = (result: Result) => (result.structuredContent as { handle: string }).handle;

const stdioClients: [string, () => Promise<AnyClient>][] = [
  [
    "SDK v1",
    async () => {
      const client = new V1Client({ name: "v1-stdio", version: "1" });
      await client.connect(new V1StdioClientTransport(stdioServer));
      return client;
    },
  ],
  [
    "SDK v2",
    async () => {
      const client = new V2Client({ name: "v2-stdio", version: "1" });
      await client.connect(new V2StdioClientTransport(stdioServer));
      return client;
    },
  ],
];

describe.each(stdioClients)("%s client over stdio", (_, connect) => {
  it("passes a folded report to another tool by reference; another process's handle runs nothing", async () => {
    const client = await connect();
    open.push(client);
    await client.listTools(); // the v1 client checks answers against what it listed
    const folded = await call(client, "report");
    expectFoldMeta(folded, { overBytes: 1024 }); // the stdio fixture's 200 tickets, threshold 1024
    const handle = handleOf(folded);
    expect(folded.content?.[1]?.text).toContain(JSON.stringify({ $result: handle, path: "$.rows" }));
    expect(
      (await call(client, "count_tickets", { tickets: { $result: handle, path: "$.rows" } })).structuredContent,
    ).toEqual({ count: 200, last: "T-199", runs: 1 });
    const nested = await call(client, "count_tickets", {
      tickets: [{ $result: handle, path: "/rows/3" }, { id: "own" }, { $result: handle, path: "$.rows[-1]" }],
    });
    expect(nested.structuredContent).toMatchObject({ count: 3 });

    const other = await connect();
    open.push(other);
    await other.listTools();
    const refused = await call(other, "count_tickets", { tickets: { $result: handle, path: "$.rows" } });
    expect(refused.isError).toBe(true);
    expect(refused.content?.[0]?.text).toMatch(/^RESULT_HANDLE_NOT_FOUND: /);
    const schemaRefused = await call(client, "count_tickets", {
      tickets: { $result: handle, path: "$.rows[0].title" },
    });
    expect(schemaRefused.isError).toBe(true);
    expect(schemaRefused.content?.[0]?.text).toMatch(/Input validation error/);
    // nothing ran before
    expect((await call(other, "count_tickets", { tickets: [] })).structuredContent).toMatchObject({ runs: 1 });
    expect((await call(client, "count_tickets", { tickets: [] })).structuredContent).toMatchObject({ runs: 3 });
  });
});

describe("S15 a 10 MB answer passed on by reference (Streamable HTTP)", () => {
  it("the request stays under 1 KB; the tool gets all 10 MB", async () => {
    const n = 135_000; // about 10 MB of { id, title }
    const big = () => ({
      rows: Array.from({ length: n }, (_, i) => ({ id: i, title: `Row number ${i} ${"x".repeat(40)}` })),
    });
    const plugin = ResultHandlesPlugin.init({ storage: { type: "memory" } });
    const runs = noRuns();
    const http = await startHttpMcpServer(
      () => {
        const server = new McpServer({ name: "ten", version: "1" });
        plugin.install(server, { logger: { warn: () => {} } });
        registerReferenceTools(server, runs, big);
        return server;
      },
      new Map([["alice", userToken("app", "alice")]]),
    );
    const sent: number[] = [];
    const countingFetch: typeof fetch = async (input, init) => {
      if (typeof init?.body === "string") sent.push(new TextEncoder().encode(init.body).byteLength);
      return fetch(input, init);
    };
    const client = new V2Client({ name: "ten", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(http.url), {
        fetch: countingFetch,
        requestInit: { headers: { Authorization: "Bearer alice" } },
      }),
    );
    open.push(client);

    let started = performance.now();
    const folded = await call(client, "report");
    const foldMs = performance.now() - started;
    const bytes = (folded._meta?.[RESULT_HANDLE_META_KEY] as { bytes: number }).bytes;
    expect(bytes).toBeGreaterThan(10_000_000);

    sent.length = 0;
    started = performance.now();
    const counted = await call(client, "count_items", { items: { $result: handleOf(folded), path: "$.rows" } });
    const referenceMs = performance.now() - started;
    expect(counted.structuredContent).toMatchObject({ count: n, idSum: ((n - 1) * n) / 2 });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBeLessThan(1024);
    console.log(
      `S15 10 MB by reference: answer ${bytes} bytes; tools/call folding it ${foldMs.toFixed(0)} ms; ` +
        `tools/call passing it by reference ${referenceMs.toFixed(0)} ms with a ${sent[0]}-byte request`,
    );
    await http.close();
    await plugin.onShutdown();
  }, 60_000);
});
