// S19.1, S19.2, S19.4 in Chromium: webmcp({ viewer }) names the viewer on the page's tools, host.resultView
// reads folded answers in viewer-sized pages for the page's owner, and the page build serves the HTML.
import { initializeWebMCPPolyfill } from "@mcp-b/webmcp-polyfill";
import { beforeAll, describe, expect, it } from "vitest";
import { loadViewerHtml, RESULT_HANDLE_META_KEY, ResultHandlesPlugin, VIEWER_RESOURCE_URI } from "mcp-result-handles";

interface Testing {
  executeTool(name: string, argsJson: string): Promise<string | null>;
  listTools(): { name: string }[];
}
const testing = () => (navigator as unknown as { modelContextTesting: Testing }).modelContextTesting;
const call = async (name: string) => JSON.parse((await testing().executeTool(name, "{}"))!);
const rows = (n: number) => ({ rows: Array.from({ length: n }, (_, i) => ({ id: `T-${i}`, title: `Ticket ${i}` })) });

beforeAll(() => initializeWebMCPPolyfill({ installTestingShim: true }));

describe("S19 the viewer on a WebMCP page", () => {
  it("names the viewer on the tools it shows only, and keeps a tool's own UI", async () => {
    const declared: Record<string, any>[] = [];
    const modelContext = { registerTool: (tool: Record<string, unknown>) => void declared.push(tool) };
    const host = ResultHandlesPlugin.init({ namespace: "webmcp-viewer-listed" }).webmcp({
      modelContext,
      viewer: { tools: ["shown"] },
    });
    for (const name of ["shown", "plain"]) await host.registerTool({ name, description: name, execute: () => rows(2) });
    await host.registerTool({
      name: "shown_own",
      description: "own UI",
      _meta: { ui: { resourceUri: "ui://mine/x" } },
      execute: () => rows(2),
    });
    const byName = Object.fromEntries(declared.map((tool) => [tool.name, tool]));
    expect(byName.shown._meta.ui.resourceUri).toBe(VIEWER_RESOURCE_URI);
    expect(byName.plain._meta).toBeUndefined();
    expect(byName.shown_own._meta).toBeUndefined(); // a tool's own _meta is not listed on WebMCP, as before
    expect(declared.map((tool) => tool.name)).not.toContain("result_view"); // never offered to the page's agent
  });

  it("host.resultView answers pages of 1000 rows that result_query refuses, for the page's own handles", async () => {
    const host = ResultHandlesPlugin.init({ thresholdBytes: 4096, namespace: "webmcp-viewer-read" }).webmcp({
      viewer: true,
    });
    await host.registerTool({ name: "big_tickets", description: "3000 tickets", execute: () => rows(3000) });
    const folded = await call("big_tickets");
    const handle = folded._meta[RESULT_HANDLE_META_KEY].handle as string;
    const page = await host.resultView({ handle, path: "$.rows", offset: 2000, limit: 1000 });
    expect((page.structuredContent as { value: unknown[] }).value).toHaveLength(1000);
    expect((page.structuredContent as { value: { id: string }[] }).value[999]!.id).toBe("T-2999");
    const query = JSON.parse(
      (await testing().executeTool("result_query", JSON.stringify({ handle, path: "$.rows", limit: 1000 })))!,
    );
    expect(query.structuredContent.error.code).toBe("RESULT_SLICE_TOO_LARGE");
    const unknown = await host.resultView({ handle: crypto.randomUUID(), path: "$" });
    expect((unknown.structuredContent as { error: { code: string } }).error.code).toBe("RESULT_HANDLE_NOT_FOUND");
  });

  it("the page build serves the viewer's one HTML file", async () => {
    const html = await loadViewerHtml();
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain('<script type="module">');
    expect(html.length).toBeGreaterThan(10_000);
  });
});
