// Clients on the MCP SDK v1 (the MCP Inspector, most desktop clients): `Client.callTool` checks
// structuredContent against the listed outputSchema even when isError is true (S7.9). Over stdio, with a
// real stdio server process, and over Streamable HTTP with the demo server; v2 clients beside.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as V1HttpClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as V2Client } from "@modelcontextprotocol/client";
import { StdioClientTransport as V2StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoServer, type DemoServer } from "../../playground/server/demo-server.js";
import { expectFoldMeta } from "../helpers/fold-meta.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const stdioServer = {
  command: process.execPath,
  args: ["--import", "tsx", "test/fixtures/stdio-server.ts"],
  cwd: root,
  stderr: "pipe" as const,
};

type Result = {
  content?: unknown;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  isError?: boolean;
};
interface AnyClient {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  listTools(): Promise<{ tools: { name: string; annotations?: unknown }[] }>;
  close(): Promise<void>;
}

const clients: AnyClient[] = [];
afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
});

async function v1OverStdio(): Promise<V1Client> {
  const client = new V1Client({ name: "v1-stdio-test", version: "1.0.0" });
  await client.connect(new V1StdioClientTransport(stdioServer));
  clients.push(client);
  return client;
}

async function v1OverHttp(url: string, token?: string): Promise<V1Client> {
  const client = new V1Client({ name: "v1-http-test", version: "1.0.0" });
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  await client.connect(new V1HttpClientTransport(new URL(url), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

const call = async (client: AnyClient, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as Result;
const handleOf = (result: Result) => (result.structuredContent as { handle: string }).handle;
const firstText = (result: Result) => (result.content as { type: string; text: string }[])[0]!.text;

/** Refusals reach the client as isError results carrying their code, never as MCP error -32602 (S7.6, S7.9). */
function refusalsReachTheClient(connect: () => Promise<AnyClient>, tool: string) {
  let client: AnyClient;
  let handle: string;
  beforeAll(async () => {
    client = await connect();
    await client.listTools(); // the v1 client validates against the schemas it listed
    const result = await call(client, tool);
    expectFoldMeta(result, { overBytes: 4096 });
    handle = handleOf(result);
  });

  it("reads slices back through the validating client", async () => {
    expect((await call(client, "result_query", { handle, path: "$.rows[199].id" })).structuredContent).toEqual({
      path: "$.rows[199].id",
      value: "T-199",
      total: 5,
      offset: 0,
    });
  });

  it.each([
    ["a path that names nothing", { path: "$.missing" }, "RESULT_PATH_NOT_FOUND"],
    ["an unknown handle", { handle: "00000000-0000-4000-8000-000000000000" }, "RESULT_HANDLE_NOT_FOUND"],
    ["offset -1", { offset: -1 }, "INVALID_INPUT"],
    ["no handle", { handle: undefined }, "INVALID_INPUT"],
    ["a slice too large", { path: "$.rows", limit: 200 }, "RESULT_SLICE_TOO_LARGE"],
  ])("S7.9 %s: an isError result with its code", async (_, args, code) => {
    const refused = await call(client, "result_query", { handle, ...args });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ error: { code } });
    expect(firstText(refused).startsWith(`${code}: `)).toBe(true);
  });

  it("S14.4 S14.7 search hits, a hint-bearing refusal and fields [] pass the validating client", async () => {
    const hits = await call(client, "result_query", { handle, search: "T-19", limit: 2 });
    expect(hits.isError).toBeFalsy();
    expect(hits.structuredContent).toEqual({
      path: "$",
      value: [
        { path: "$.rows[19].id", text: "T-19" },
        { path: "$.rows[190].id", text: "T-190" },
      ],
      total: 11,
      offset: 0,
      nextOffset: 2,
    });
    const whole = await call(client, "result_query", { handle });
    expect(whole.structuredContent).toMatchObject({ error: { code: "RESULT_SLICE_TOO_LARGE" } });
    expect(firstText(whole)).toContain('Try: result_query with path "$.rows" and limit');
    const all = await call(client, "result_query", { handle, path: "$.rows", limit: 2, fields: [] });
    expect(all.structuredContent).toMatchObject({
      value: [
        { id: "T-0", title: expect.any(String) },
        { id: "T-1", title: expect.any(String) },
      ],
    }); // the fixture's and the demo's tickets
  });

  it("S7.1 offset 0 beside page, as a client that fills schema defaults sends it, is accepted", async () => {
    const page = await call(client, "result_query", { handle, path: "$.rows", page: 2, limit: 10, offset: 0 });
    expect(page.isError).toBeFalsy();
    expect(page.structuredContent).toMatchObject({ offset: 10, nextOffset: 20 });
  });

  it("S7.10 a 1 MB path is refused in well under 64 KB", async () => {
    const refused = await call(client, "result_query", { handle, path: `$.${"p".repeat(1_000_000)}` });
    // over MAX_PATH_CHARS (S21.2)
    expect(refused.structuredContent).toMatchObject({ error: { code: "INVALID_INPUT" } });
    expect(JSON.stringify(refused).length).toBeLessThan(2_000);
  });

  it("S7.10 a 1 MB handle is refused in well under 64 KB", async () => {
    const refused = await call(client, "result_query", { handle: "h".repeat(1_000_000) });
    expect(refused.structuredContent).toMatchObject({ error: { code: "RESULT_HANDLE_NOT_FOUND" } });
    expect(JSON.stringify(refused).length).toBeLessThan(2_000);
  });

  it("S7.8 lists result_query read-only and idempotent", async () => {
    const tool = (await client.listTools()).tools.find((t) => t.name === "result_query");
    expect(tool?.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
  });
}

describe("MCP SDK v1 client over stdio (a real stdio server process)", () => {
  refusalsReachTheClient(v1OverStdio, "report");

  it("S8.1 two stdio server processes are two sessions: one cannot read the other's handle", async () => {
    const one = await v1OverStdio();
    const other = await v1OverStdio();
    const handle = handleOf(await call(one, "report"));
    expect((await call(other, "result_query", { handle })).structuredContent).toMatchObject({
      error: { code: "RESULT_HANDLE_NOT_FOUND" },
    });
    expect((await call(one, "result_query", { handle, path: "/rows/0/id" })).structuredContent).toMatchObject({
      value: "T-0",
    });
  });
});

describe("MCP SDK v2 client over stdio, beside", () => {
  it("S8.1 a stdio server folds for its client and reads back", async () => {
    const client = new V2Client({ name: "v2-stdio-test", version: "1.0.0" });
    await client.connect(new V2StdioClientTransport(stdioServer));
    clients.push(client);
    await client.listTools();
    const result = await call(client, "report");
    expect(Object.keys(result.structuredContent ?? {})).toEqual(["preview", "shape", "handle"]);
    expect(
      (await call(client, "result_query", { handle: handleOf(result), path: "rows.150.title" })).structuredContent,
    ).toMatchObject({
      value: "Ticket 150",
    });
    const refused = await call(client, "result_query", { handle: handleOf(result), offset: -1 });
    expect(refused.structuredContent).toMatchObject({ error: { code: "INVALID_INPUT" } });
  });
});

describe("MCP SDK v1 client over Streamable HTTP (the demo server)", () => {
  let demo: DemoServer;
  beforeAll(async () => {
    demo = await startDemoServer({ port: 0, logger: { warn: () => {}, info: () => {} } });
  });
  afterAll(async () => {
    await demo?.close();
  });

  describe("signed in as alice", () => {
    refusalsReachTheClient(() => v1OverHttp(demo.url, "demo-alice"), "report");
  });
  describe("without a token (a 2025 session)", () => {
    refusalsReachTheClient(() => v1OverHttp(demo.url), "report");
  });
});
