// S10.2 WebMCP host in Chromium, on the draft's document.modelContext as @mcp-b/webmcp-polyfill provides it.
import { initializeWebMCPPolyfill } from "@mcp-b/webmcp-polyfill";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  foldedAnswerSchema,
  RESULT_HANDLE_META_KEY,
  ResultHandlesPlugin,
  WebMcpUnavailableError,
  findModelContext,
  type Owner,
} from "mcp-result-handles";

interface Testing {
  listTools(): { name: string }[];
  executeTool(name: string, argsJson: string): Promise<string | null>;
}
const testing = () => (navigator as unknown as { modelContextTesting: Testing }).modelContextTesting;
const call = async (name: string, args: Record<string, unknown> = {}) =>
  JSON.parse((await testing().executeTool(name, JSON.stringify(args)))!);
const rows = (n: number) => ({ rows: Array.from({ length: n }, (_, i) => ({ id: `T-${i}`, title: `Ticket ${i}` })) });

beforeAll(() => initializeWebMCPPolyfill({ installTestingShim: true }));

describe("S10.2 plugin.webmcp()", () => {
  it("a tool registered through the plugin folds, and result_query beside it reads the answer back", async () => {
    const plugin = ResultHandlesPlugin.init({ thresholdBytes: 4096, namespace: "webmcp-fold" });
    const host = plugin.webmcp();
    expect(host.modelContext).toBe((document as unknown as { modelContext: unknown }).modelContext);
    await host.registerTool({ name: "tickets", description: "Every ticket", execute: () => rows(200) });
    expect(
      testing()
        .listTools()
        .map((tool) => tool.name),
    ).toEqual(expect.arrayContaining(["tickets", "result_query"]));

    const folded = await call("tickets");
    expect(Object.keys(folded.structuredContent).sort()).toEqual(["handle", "preview", "shape"]);
    expect(folded._meta[RESULT_HANDLE_META_KEY].bytes).toBe(
      new TextEncoder().encode(JSON.stringify(rows(200))).byteLength,
    );
    const slice = await call("result_query", {
      handle: folded.structuredContent.handle,
      path: "/rows",
      page: 2,
      limit: 20,
      fields: ["id"],
    });
    expect(slice.structuredContent).toEqual({
      path: "$.rows",
      value: rows(200)
        .rows.slice(20, 40)
        .map(({ id }) => ({ id })),
      total: 200,
      offset: 20,
      nextOffset: 40,
    });
  });

  it(
    "S4.6 a JSON Schema outputSchema is listed; the tool folds only if it admits { " +
      "preview, shape, handle }, else sends whole and warns once per tool",
    async () => {
      const warnings: string[] = [];
      const host = ResultHandlesPlugin.init({ thresholdBytes: 4096, namespace: "webmcp-output-schema" }).webmcp({
        tools: ["strict_rows", "open_rows", "rows_or_folded"], // this instance folds them, with its logger (S10.1)
        logger: { warn: (m) => void warnings.push(m) },
      });
      const own = {
        type: "object",
        properties: { rows: { type: "array" } },
        required: ["rows"],
        additionalProperties: false,
      };
      const schemas: Record<string, Record<string, unknown>> = {
        strict_rows: own, // requires rows: the folded form would break it
        open_rows: { type: "object", properties: { rows: { type: "array" } } }, // nothing required: admits it
        rows_or_folded: { anyOf: [own, z.toJSONSchema(foldedAnswerSchema)] },
      };
      for (const [name, outputSchema] of Object.entries(schemas)) {
        await host.registerTool({ name, description: "Every ticket", outputSchema, execute: () => rows(200) });
      }
      // The polyfill keeps no outputSchema; a model context of our own shows what the browser is given.
      const declared: Record<string, unknown>[] = [];
      const seen = ResultHandlesPlugin.init({ namespace: "webmcp-output-schema-listed" }).webmcp({
        modelContext: { registerTool: (tool) => void declared.push(tool) },
      });
      await seen.registerTool({
        name: "strict_rows",
        description: "Every ticket",
        outputSchema: own,
        execute: () => rows(200),
      });
      expect(declared.find((tool) => tool.name === "strict_rows")!.outputSchema).toEqual(own);

      expect(await call("strict_rows")).toEqual(rows(200));
      expect(await call("strict_rows")).toEqual(rows(200));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('tool "strict_rows"');
      for (const name of ["open_rows", "rows_or_folded"]) {
        expect(Object.keys((await call(name)).structuredContent).sort(), name).toEqual(["handle", "preview", "shape"]);
      }
      expect(warnings).toHaveLength(1);
    },
  );

  it("a small answer comes back exactly as the tool returned it", async () => {
    const host = ResultHandlesPlugin.init({ thresholdBytes: 4096, namespace: "webmcp-small" }).webmcp();
    await host.registerTool({ name: "few", description: "Three tickets", execute: () => rows(3) });
    expect(await call("few")).toEqual(rows(3));
  });

  it("aborting a tool's signal removes it", async () => {
    const host = ResultHandlesPlugin.init({ namespace: "webmcp-abort" }).webmcp();
    const controller = new AbortController();
    await host.registerTool(
      { name: "short_lived", description: "Goes away", execute: () => "ok" },
      { signal: controller.signal },
    );
    expect(
      testing()
        .listTools()
        .some((tool) => tool.name === "short_lived"),
    ).toBe(true);
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(
      testing()
        .listTools()
        .some((tool) => tool.name === "short_lived"),
    ).toBe(false);
  });

  it("S8.2 a handle folded for one owner is not found for another (hostOptions.owner)", async () => {
    let owner: Owner = { caller: "alice" };
    const modelContext = (document as unknown as { modelContext: never }).modelContext;
    const plugin = ResultHandlesPlugin.init({ thresholdBytes: 4096, namespace: "webmcp-owner" });
    // A model context of its own, so this test's owner does not leak into the shared one.
    const registered = new Map<string, { execute(input: unknown): unknown }>();
    const host = plugin.webmcp({
      owner: () => owner,
      modelContext: { registerTool: (tool) => void registered.set(tool.name as string, tool as never) },
    });
    expect(host.modelContext).not.toBe(modelContext);
    await host.registerTool({ name: "tickets", description: "Every ticket", execute: () => rows(200) });
    const folded = (await registered.get("tickets")!.execute({})) as { structuredContent: { handle: string } };
    const read = (args: Record<string, unknown>) =>
      registered.get("result_query")!.execute(args) as Promise<{ structuredContent: Record<string, unknown> }>;
    const args = { handle: folded.structuredContent.handle, path: "$.rows[-1].id" };
    expect((await read(args)).structuredContent).toMatchObject({ path: "$.rows[199].id", value: "T-199" });
    owner = { caller: "bob" };
    expect((await read(args)).structuredContent).toMatchObject({ error: { code: "RESULT_HANDLE_NOT_FOUND" } });
  });

  it(
    "with document.modelContext present, navigator.modelContext is never read (the polyfill warns on " + "that read)",
    () => {
      const descriptor = Object.getOwnPropertyDescriptor(navigator, "modelContext")!;
      const modelContext = (document as unknown as { modelContext: unknown }).modelContext;
      let reads = 0;
      Object.defineProperty(navigator, "modelContext", {
        configurable: true,
        get: () => {
          reads += 1;
          return modelContext;
        },
      });
      try {
        expect(findModelContext()).toBe(modelContext);
        expect(ResultHandlesPlugin.init({ namespace: "webmcp-document-first" }).webmcp().modelContext).toBe(
          modelContext,
        );
        expect(reads).toBe(0);
      } finally {
        Object.defineProperty(navigator, "modelContext", descriptor);
      }
    },
  );

  it("a page of the older draft: navigator.modelContext is accepted as a fallback", async () => {
    // An older-draft page: the context only on navigator, as a plain getter (the polyfill's own alias warns on read).
    const fromNavigator = (document as unknown as { modelContext: unknown }).modelContext;
    expect(fromNavigator).toBeTruthy();
    const descriptor = Object.getOwnPropertyDescriptor(Document.prototype, "modelContext")!;
    const navigatorDescriptor = Object.getOwnPropertyDescriptor(navigator, "modelContext")!;
    Object.defineProperty(Document.prototype, "modelContext", { configurable: true, get: () => undefined });
    Object.defineProperty(navigator, "modelContext", { configurable: true, get: () => fromNavigator });
    try {
      expect(ResultHandlesPlugin.init({ namespace: "webmcp-navigator" }).webmcp().modelContext).toBe(fromNavigator);
    } finally {
      Object.defineProperty(Document.prototype, "modelContext", descriptor);
      Object.defineProperty(navigator, "modelContext", navigatorDescriptor);
    }
  });

  it("without WebMCP and without a model context given, a coded error says how to get one", () => {
    const plugin = ResultHandlesPlugin.init({});
    const descriptor = Object.getOwnPropertyDescriptor(Document.prototype, "modelContext")!;
    const navigatorDescriptor = Object.getOwnPropertyDescriptor(navigator, "modelContext");
    Object.defineProperty(Document.prototype, "modelContext", { configurable: true, get: () => undefined });
    if (navigatorDescriptor)
      Object.defineProperty(navigator, "modelContext", { configurable: true, get: () => undefined });
    try {
      expect(() => plugin.webmcp()).toThrow(WebMcpUnavailableError);
      expect(() => plugin.webmcp()).toThrow(/document\.modelContext/);
    } finally {
      Object.defineProperty(Document.prototype, "modelContext", descriptor);
      if (navigatorDescriptor) Object.defineProperty(navigator, "modelContext", navigatorDescriptor);
    }
  });
});
