// S19.1, S19.2 from the outside: install(server, { viewer }) on a real McpServer over real HTTP, read by a
// real MCP client with bearer tokens (alice, bob): what tools/list, resources/read and result_view answer.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RESULT_HANDLE_META_KEY, ResultHandlesPlugin } from "mcp-result-handles";
import { connect } from "../helpers/mcp-client.js";
import { startHttpMcpServer, userToken, type HttpMcpServer } from "../helpers/http-mcp-server.js";

const VIEWER = "ui://result-handles/viewer";
type Result = {
  structuredContent?: any;
  content?: { type: string; text?: string }[];
  isError?: boolean;
  _meta?: Record<string, any>;
};
const quiet = { warn: () => {} };
const tokens = new Map([
  ["alice", userToken("app", "alice")],
  ["bob", userToken("app", "bob")],
]);
const rows = (n: number) => ({
  rows: Array.from({ length: n }, (_, i) => ({ id: i, title: `Row number ${i}`, note: "x".repeat(40) })),
});
const json = (value: Record<string, unknown>) => ({
  content: [{ type: "text" as const, text: JSON.stringify(value) }],
  structuredContent: value,
});

function build(viewer: boolean | { tools: string[] } | undefined, plugin: ResultHandlesPlugin) {
  return () => {
    const server = new McpServer({ name: "viewer-test", version: "1" });
    plugin.install(server, { logger: quiet, ...(viewer === undefined ? {} : { viewer }) });
    server.registerTool("report", { description: "3000 rows" }, async () => json(rows(3000)));
    server.registerTool("small", { description: "a few rows" }, async () => json(rows(2)));
    server.registerTool(
      "own_ui",
      { description: "has its own UI", _meta: { ui: { resourceUri: "ui://mine/chart" } } },
      async () => json(rows(2)),
    );
    return server;
  };
}

const servers: Record<string, HttpMcpServer> = {};
beforeAll(async () => {
  const plugin = () => ResultHandlesPlugin.init({ thresholdBytes: 4096, storage: { type: "memory" } });
  servers.off = await startHttpMcpServer(build(undefined, plugin()), tokens);
  servers.all = await startHttpMcpServer(build(true, plugin()), tokens);
  servers.some = await startHttpMcpServer(build({ tools: ["report"] }, plugin()), tokens);
});
afterAll(async () => Promise.all(Object.values(servers).map((server) => server.close())));

async function client(name: string, token = "alice") {
  const c = await connect(servers[name]!.url, { era: "2025", token });
  return {
    c,
    tools: async () =>
      Object.fromEntries((await c.listTools()).tools.map((tool) => [tool.name, tool])) as Record<
        string,
        { _meta?: Record<string, any> }
      >,
    call: async (tool: string, args: Record<string, unknown> = {}) =>
      (await c.callTool({ name: tool, arguments: args })) as Result,
  };
}

describe("S19.1 the viewer is listed only where it is turned on", () => {
  it("without the option: no _meta.ui on any tool, no result_view, no ui:// resource", async () => {
    const { c, tools } = await client("off");
    const listed = await tools();
    expect(Object.keys(listed).sort()).toEqual(["own_ui", "report", "result_query", "small"]);
    expect(listed.report!._meta).toBeUndefined();
    const resources = await c.listResources().catch(() => ({ resources: [] }));
    expect(resources.resources.map((resource) => resource.uri)).not.toContain(VIEWER);
  });

  it("viewer: true names the viewer on every tool it folds, keeps a tool's own UI, and lists result_view", async () => {
    const listed = await (await client("all")).tools();
    for (const name of ["report", "small"]) {
      expect(listed[name]!._meta?.ui?.resourceUri, name).toBe(VIEWER);
      expect(listed[name]!._meta?.["ui/resourceUri"], name).toBe(VIEWER);
    }
    expect(listed.own_ui!._meta?.ui?.resourceUri).toBe("ui://mine/chart");
    expect(listed.result_query!._meta?.ui).toBeUndefined();
    expect(listed.result_view!._meta?.ui?.visibility).toEqual(["app"]);
  });

  it("viewer: { tools } names it on those tools only", async () => {
    const listed = await (await client("some")).tools();
    expect(listed.report!._meta?.ui?.resourceUri).toBe(VIEWER);
    expect(listed.small!._meta).toBeUndefined();
    expect(listed.result_view).toBeDefined();
  });

  it(
    "resources/read of the ui:// URI is one self-contained HTML " + "page, mime text/html;profile=mcp-app, no domains",
    async () => {
      const { c } = await client("all");
      expect((await c.listResources()).resources.map((resource) => resource.uri)).toContain(VIEWER);
      const read = (await c.readResource({ uri: VIEWER })) as {
        contents: { uri: string; mimeType: string; text: string; _meta?: any }[];
      };
      const [page] = read.contents;
      expect(page!.mimeType).toBe("text/html;profile=mcp-app");
      expect(page!.text).toMatch(/^<!doctype html>/i);
      expect(page!.text).toContain('<script type="module">');
      // Nothing loaded from anywhere: no src or href but data: (the empty icon that stops a favicon request).
      expect(/<(script|link|img|iframe)[^>]*\s(src|href)\s*=\s*(?!["']?data:)/i.test(page!.text)).toBe(false);
      expect(/(src|href)\s*=\s*["']?https?:/i.test(page!.text)).toBe(false);
      expect(page!._meta?.ui?.csp ?? {}).toEqual({});
    },
  );

  it("hosts without MCP Apps get the same folded answer as before", async () => {
    const [off, on] = await Promise.all([client("off"), client("all")]);
    const [a, b] = await Promise.all([off.call("report"), on.call("report")]);
    expect(b.structuredContent.shape).toEqual(a.structuredContent.shape);
    expect(b.structuredContent.preview).toEqual(a.structuredContent.preview);
    expect(Object.keys(b._meta ?? {})).toEqual(Object.keys(a._meta ?? {}));
    expect(b.content!.map((block) => block.type)).toEqual(a.content!.map((block) => block.type));
  });
});

describe("S19.1 clients known not to render MCP Apps see the list as before", () => {
  const UI = { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } };
  async function modern(extensions?: typeof UI): Promise<{ tools: Record<string, any>; resources: string[] }> {
    const c = new Client(
      { name: "viewer-test", version: "1" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } }, ...(extensions ? { capabilities: { extensions } } : {}) },
    );
    await c.connect(
      new StreamableHTTPClientTransport(new URL(servers.all!.url), {
        requestInit: { headers: { Authorization: "Bearer alice" } },
      }),
    );
    const tools = Object.fromEntries((await c.listTools()).tools.map((tool) => [tool.name, tool]));
    return { tools, resources: (await c.listResources()).resources.map((resource) => resource.uri) };
  }

  it(
    "a 2026-07-28 client without the MCP Apps extension: no result_view, no _meta.ui, no ui:// " + "resource listed",
    async () => {
      const { tools, resources } = await modern();
      expect(Object.keys(tools).sort()).toEqual(["own_ui", "report", "result_query", "small"]);
      expect(tools.report!._meta).toBeUndefined();
      expect(resources).not.toContain(VIEWER);
    },
  );

  it("a 2026-07-28 client declaring io.modelcontextprotocol/ui gets the viewer", async () => {
    const { tools, resources } = await modern(UI);
    expect(tools.report!._meta?.ui?.resourceUri).toBe(VIEWER);
    expect(tools.result_view!._meta?.ui?.visibility).toEqual(["app"]);
    expect(resources).toContain(VIEWER);
  });
});

describe("S19.2 result_view reads for the viewer, with result_query's rules and larger pages", () => {
  it("answers a page of 1000 rows that result_query refuses as too large, and refuses a larger page", async () => {
    const alice = await client("all");
    const handle = (await alice.call("report"))._meta![RESULT_HANDLE_META_KEY].handle as string;
    const query = await alice.call("result_query", { handle, path: "$.rows", offset: 1000, limit: 1000 });
    expect(query.structuredContent.error.code).toBe("RESULT_SLICE_TOO_LARGE");
    const view = await alice.call("result_view", { handle, path: "$.rows", offset: 1000, limit: 1000 });
    expect(view.isError).toBeFalsy();
    expect(view.structuredContent.value).toHaveLength(1000);
    expect(view.structuredContent.value[999].id).toBe(1999);
    expect(view.structuredContent).toMatchObject({ path: "$.rows", total: 3000, offset: 1000, nextOffset: 2000 });
    const filter = await alice.call("result_view", { handle, path: "$.rows[?@.id == 2999]" });
    expect(filter.structuredContent.paths).toEqual(["$.rows[2999]"]);
    const tooMany = await alice.call("result_view", { handle, path: "$.rows", limit: 1001 });
    expect(tooMany.structuredContent.error.code).toBe("INVALID_INPUT");
    expect(tooMany.content![0]!.text).toContain("at most 1000");
  });

  it("refuses another caller's handle exactly as result_query does (S8.2)", async () => {
    const [alice, bob] = await Promise.all([client("all"), client("all", "bob")]);
    const handle = (await bob.call("report"))._meta![RESULT_HANDLE_META_KEY].handle as string;
    expect((await bob.call("result_view", { handle, path: "$.rows[0]" })).structuredContent.value.id).toBe(0);
    const view = await alice.call("result_view", { handle, path: "$.rows[0]" });
    const query = await alice.call("result_query", { handle, path: "$.rows[0]" });
    expect(view.isError).toBe(true);
    expect(view.structuredContent.error.code).toBe("RESULT_HANDLE_NOT_FOUND");
    expect(view.content).toEqual(query.content);
  });

  it("is never folded itself: a 1000-row page comes back whole", async () => {
    const alice = await client("all");
    const handle = (await alice.call("report"))._meta![RESULT_HANDLE_META_KEY].handle as string;
    const view = await alice.call("result_view", { handle, path: "$.rows", limit: 1000 });
    expect(view._meta?.[RESULT_HANDLE_META_KEY]).toBeUndefined();
    expect(JSON.stringify(view.structuredContent).length).toBeGreaterThan(4096);
  });
});
