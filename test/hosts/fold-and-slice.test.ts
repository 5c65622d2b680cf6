// S4.3 S7.6 S19.2 S23.1 S23.2 from the outside: the fold threshold and the slice limit are two values. One
// option (`thresholdBytes`) sets both; the viewer's `result_view` raises the slice limit alone (pages up to
// 1 MiB) and changes nothing of what folds; a host's cut lowers both for that host's calls, each within the
// cut. Real MCP clients over real HTTP, bearer tokens; the expected sizes are counted here in plain code.
import { McpServer } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { RESULT_HANDLE_META_KEY, ResultHandlesPlugin } from "mcp-result-handles";
import { connect, type Era } from "../helpers/mcp-client.js";
import { startHttpMcpServer, userToken, type HttpMcpServer } from "../helpers/http-mcp-server.js";

type Result = {
  structuredContent?: any;
  content?: { type: string; text?: string }[];
  isError?: boolean;
  _meta?: Record<string, any>;
};

const THRESHOLD = 4096;
// A host of the test's own, by the `hostLimits` option: its cut less a sixteenth for the envelope (S23.1).
const TIGHT = { name: "tight-host", bytes: 2000 };
const withinCut = TIGHT.bytes - Math.floor(TIGHT.bytes / 16);

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
const rowsOf = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ id: i, title: `Row number ${i}`, note: "x".repeat(40) }));
const ROWS = rowsOf(3000);
/** The oracle of a list slice: how many of the first rows fit `limit` bytes as one JSON array. */
const rowsFitting = (limit: number) => {
  let count = 0;
  while (count < ROWS.length && bytesOf(ROWS.slice(0, count + 1)) <= limit) count++;
  return count;
};

function build(plugin: ResultHandlesPlugin, viewer: boolean) {
  return () => {
    const server = new McpServer({ name: "fold-and-slice", version: "1" });
    plugin.install(server, { logger: { warn: () => {} }, viewer });
    // A text of `length` ASCII characters: S4.3 counts it as a JSON string, quotes and all (length + 2 bytes);
    // a host measures the text as sent (S23.1: length bytes).
    server.registerTool("text", { inputSchema: z.object({ length: z.number().int() }) }, async ({ length }) => ({
      content: [{ type: "text" as const, text: "x".repeat(length) }],
    }));
    server.registerTool("report", { description: "3000 rows" }, async () => ({
      content: [{ type: "text" as const, text: JSON.stringify({ rows: ROWS }) }],
      structuredContent: { rows: ROWS },
    }));
    return server;
  };
}

const tokens = new Map([["alice", userToken("app", "alice")]]);
const options = { thresholdBytes: THRESHOLD, hostLimits: { [TIGHT.name]: { bytes: TIGHT.bytes } } };
const servers: Record<"viewer" | "plain", HttpMcpServer> = {} as never;
const plugins: ResultHandlesPlugin[] = [];
beforeAll(async () => {
  for (const viewer of [true, false]) {
    const plugin = ResultHandlesPlugin.init({ ...options, storage: { type: "memory" } });
    plugins.push(plugin);
    servers[viewer ? "viewer" : "plain"] = await startHttpMcpServer(build(plugin, viewer), tokens);
  }
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server.close()));
  await Promise.all(plugins.map((plugin) => plugin.onShutdown()));
});

async function client(server: "viewer" | "plain", era: Era, name?: string) {
  const c = await connect(servers[server].url, { era, token: "alice", ...(name && { name }) });
  return async (tool: string, args: Record<string, unknown> = {}) =>
    (await c.callTool({ name: tool, arguments: args })) as Result;
}
const folded = (result: Result) => result._meta?.[RESULT_HANDLE_META_KEY] !== undefined;
const handleOf = (result: Result) => result._meta![RESULT_HANDLE_META_KEY].handle as string;
const suggestedLimit = (refusal: Result) => Number(/limit (\d+)/.exec(refusal.content![0]!.text!)?.[1]);

describe("S19.2 S4.3 the viewer raises the slice limit only", () => {
  it("an answer folds over thresholdBytes with the viewer on as without it", async () => {
    for (const server of ["viewer", "plain"] as const) {
      const call = await client(server, "2025");
      const under = await call("text", { length: THRESHOLD - 2 });
      expect(folded(under), server).toBe(false);
      expect(under.content![0]!.text).toHaveLength(THRESHOLD - 2);
      expect(folded(await call("text", { length: THRESHOLD - 1 })), server).toBe(true);
      // S5.4: the folded answer is at most half of the fold threshold, not of the viewer's 1 MiB.
      const report = await call("report");
      expect(folded(report)).toBe(true);
      expect(report._meta![RESULT_HANDLE_META_KEY].bytes).toBe(bytesOf({ rows: ROWS }));
      expect(bytesOf(report.structuredContent)).toBeLessThanOrEqual(THRESHOLD / 2);
    }
  });

  it("result_view answers a page far over thresholdBytes that result_query refuses at thresholdBytes", async () => {
    const call = await client("viewer", "2025");
    const handle = handleOf(await call("report"));
    const args = { handle, path: "$.rows", limit: 1000 };
    const view = await call("result_view", args);
    expect(view.isError).toBeFalsy();
    expect(view.structuredContent.value).toEqual(ROWS.slice(0, 1000));
    expect(bytesOf(view.structuredContent.value)).toBeGreaterThan(THRESHOLD * 10);
    const refused = await call("result_query", args);
    expect(refused.structuredContent.error.code).toBe("RESULT_SLICE_TOO_LARGE");
    expect(refused.content![0]!.text).toContain(`over the ${THRESHOLD}-byte limit`);
    // The call it names is the most that fits the slice limit (S7.6), and it works.
    expect(suggestedLimit(refused)).toBe(rowsFitting(THRESHOLD));
    const slice = await call("result_query", { ...args, limit: suggestedLimit(refused) });
    expect(slice.structuredContent.value).toEqual(ROWS.slice(0, rowsFitting(THRESHOLD)));
    const oneMore = await call("result_query", { ...args, limit: suggestedLimit(refused) + 1 });
    expect(oneMore.structuredContent.error.code).toBe("RESULT_SLICE_TOO_LARGE");
  });
});

describe("S23.1 S23.2 a host's cut lowers what folds and the slices, each within the cut", () => {
  it("the host's calls fold past its cut, another client's only past thresholdBytes", async () => {
    const tight = await client("plain", "2026-07-28", TIGHT.name);
    const other = await client("plain", "2026-07-28", "another-host");
    expect(folded(await tight("text", { length: withinCut }))).toBe(false);
    const over = await tight("text", { length: withinCut + 1 });
    expect(folded(over)).toBe(true);
    expect(over.content![1]!.text).toContain("was folded to fit tight-host's 2,000-byte limit");
    expect(folded(await other("text", { length: withinCut + 1 }))).toBe(false);
    expect(folded(await other("text", { length: THRESHOLD - 2 }))).toBe(false);
    expect(folded(await other("text", { length: THRESHOLD - 1 }))).toBe(true);
    // The folded answer and its hint pass the host whole.
    const report = await tight("report");
    const sent = report.content!.map((part) => Buffer.byteLength(part.text!)).reduce((a, b) => a + b);
    expect(sent).toBeLessThanOrEqual(withinCut);
  });

  it("a slice within thresholdBytes but over the cut is refused for the host, with a call that fits it", async () => {
    const tight = await client("plain", "2026-07-28", TIGHT.name);
    const other = await client("plain", "2026-07-28", "another-host");
    const limit = rowsFitting(THRESHOLD); // the most the instance's own slice limit lets through
    const whole = await other("result_query", { handle: handleOf(await other("report")), path: "$.rows", limit });
    expect(whole.structuredContent.value).toEqual(ROWS.slice(0, limit));
    const handle = handleOf(await tight("report"));
    const refused = await tight("result_query", { handle, path: "$.rows", limit });
    expect(refused.structuredContent.error.code).toBe("RESULT_SLICE_TOO_LARGE");
    const fits = suggestedLimit(refused);
    expect(fits).toBeGreaterThan(0);
    expect(fits).toBeLessThan(limit);
    const slice = await tight("result_query", { handle, path: "$.rows", limit: fits });
    expect(slice.structuredContent.value).toEqual(ROWS.slice(0, fits));
    expect(Buffer.byteLength(slice.content![0]!.text!)).toBeLessThanOrEqual(withinCut);
  });
});
