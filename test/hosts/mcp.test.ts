// The McpServer adapter (S10.1) with the real SDK server and client, linked in memory.
import { McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  RESULT_HANDLE_META_KEY,
  ResultHandlesPlugin,
  UnsupportedMcpServerError,
  foldedAnswerSchema,
  type McpHostOptions,
} from "mcp-result-handles";
import { brokenStorage, hangs, pluginOver, rejects, StorageDouble } from "../helpers/storage-double.js";
import { linkInMemory } from "../helpers/in-memory.js";

const big = (n = 300) => ({ rows: Array.from({ length: n }, (_, i) => ({ id: i, title: `Row number ${i}` })) });
type Result = {
  structuredContent?: Record<string, unknown>;
  content?: unknown[];
  _meta?: Record<string, unknown>;
  isError?: boolean;
};
const isFolded = (result: Result) => RESULT_HANDLE_META_KEY in (result._meta ?? {});
const handleOf = (result: Result) => (result.structuredContent as { handle: string }).handle;

function addTool(server: McpServer, name: string, answer: () => unknown, extra: Record<string, unknown> = {}) {
  server.registerTool(name, { description: name, ...extra }, async () => {
    const value = answer();
    return {
      content: [{ type: "text" as const, text: JSON.stringify(value) }],
      structuredContent: value as Record<string, unknown>,
    };
  });
}

/** Installs `plugin` on a new server with a large `report` tool and calls it over a session. */
async function callReport(plugin: ResultHandlesPlugin, hostOptions: McpHostOptions): Promise<Result> {
  const server = new McpServer({ name: "t", version: "1" });
  plugin.install(server, hostOptions);
  addTool(server, "report", () => big());
  const client = await linkInMemory(server, "s");
  return (await client.callTool({ name: "report", arguments: {} })) as Result;
}

function quietPlugin(options: Parameters<typeof ResultHandlesPlugin.init>[0] = {}) {
  const warnings: string[] = [];
  const plugin = ResultHandlesPlugin.init({ thresholdBytes: 1024, storage: { type: "memory" }, ...options });
  return { plugin, warnings, logger: { warn: (message: string) => warnings.push(message) } };
}

describe("S10.1 install", () => {
  it("folds tools registered before and after install", async () => {
    const server = new McpServer({ name: "t", version: "1" });
    addTool(server, "before", () => big());
    const { plugin, logger } = quietPlugin();
    plugin.install(server, { logger });
    addTool(server, "after", () => big());
    const client = await linkInMemory(server, "session-1");
    for (const name of ["before", "after"]) {
      const result = (await client.callTool({ name, arguments: {} })) as Result;
      expect(isFolded(result)).toBe(true);
      const read = (await client.callTool({
        name: "result_query",
        arguments: { handle: handleOf(result), path: "$.rows[299].id" },
      })) as Result;
      expect(read.structuredContent).toEqual({ path: "$.rows[299].id", value: 299 });
    }
  });

  it("S4.4 an anonymous call gets the full answer", async () => {
    const server = new McpServer({ name: "t", version: "1" });
    const { plugin, logger } = quietPlugin();
    // In memory, the connection itself is a session (S8.1): a resolver naming no one makes the call anonymous.
    plugin.install(server, { logger, owner: () => ({}) });
    addTool(server, "report", () => big());
    const client = await linkInMemory(server);
    expect(((await client.callTool({ name: "report", arguments: {} })) as Result).structuredContent).toEqual(big());
  });

  it(
    "several instances list one result_query that reads each instance's handles, each with its own " + "threshold",
    async () => {
      const server = new McpServer({ name: "t", version: "1" });
      const small = quietPlugin({ thresholdBytes: 1024, namespace: "small" });
      const large = quietPlugin({ thresholdBytes: 65536, namespace: "large" });
      const other = quietPlugin({ thresholdBytes: 2048, namespace: "other" });
      small.plugin.install(server, { tools: ["a"], logger: small.logger });
      large.plugin.install(server, { tools: ["b"], logger: large.logger });
      other.plugin.install(server, { logger: other.logger });
      for (const name of ["a", "b", "c"]) addTool(server, name, () => big(1000));
      const client = await linkInMemory(server, "s");
      const { tools } = await client.listTools();
      expect(tools.filter((tool) => tool.name === "result_query")).toHaveLength(1);

      const a = (await client.callTool({ name: "a", arguments: {} })) as Result;
      const b = (await client.callTool({ name: "b", arguments: {} })) as Result;
      const c = (await client.callTool({ name: "c", arguments: {} })) as Result;
      expect([isFolded(a), isFolded(b), isFolded(c)]).toEqual([true, false, true]); // b's 30 KB is under 64 KiB
      expect(new TextEncoder().encode(JSON.stringify(a.structuredContent)).byteLength).toBeLessThanOrEqual(512);
      expect(new TextEncoder().encode(JSON.stringify(c.structuredContent)).byteLength).toBeLessThanOrEqual(1024);

      // The same 40-item slice is too large for a's 1024-byte instance, fine for c's 2048-byte one.
      const slice = { path: "$.rows", limit: 40 };
      const fromA = (await client.callTool({
        name: "result_query",
        arguments: { handle: handleOf(a), ...slice },
      })) as Result;
      const fromC = (await client.callTool({
        name: "result_query",
        arguments: { handle: handleOf(c), ...slice },
      })) as Result;
      expect(fromA.structuredContent).toMatchObject({ error: { code: "RESULT_SLICE_TOO_LARGE" } });
      expect(fromC.structuredContent).toMatchObject({ total: 1000, offset: 0, nextOffset: 40 });
    },
  );

  it("installs on many per-request servers while keeping one store per plugin", async () => {
    const { plugin, logger } = quietPlugin();
    const clients = [];
    for (let i = 0; i < 3; i++) {
      const server = new McpServer({ name: "t", version: "1" });
      plugin.install(server, { logger });
      addTool(server, "report", () => big());
      clients.push(await linkInMemory(server, "same-session"));
    }
    const result = (await clients[0]!.callTool({ name: "report", arguments: {} })) as Result;
    const read = (await clients[2]!.callTool({
      name: "result_query",
      arguments: { handle: handleOf(result), path: "/rows/0/id" },
    })) as Result;
    expect(read.structuredContent).toMatchObject({ value: 0 });
  });

  it("S8.1 hostOptions.owner replaces the default owner", async () => {
    const server = new McpServer({ name: "t", version: "1" });
    let caller = "carol";
    const { plugin, logger } = quietPlugin();
    plugin.install(server, { logger, owner: () => ({ caller }) });
    addTool(server, "report", () => big());
    const client = await linkInMemory(server); // no session: the resolver's caller is what makes it fold
    const result = (await client.callTool({ name: "report", arguments: {} })) as Result;
    expect(isFolded(result)).toBe(true);
    const args = { handle: handleOf(result), path: "$.rows", limit: 1 };
    expect(((await client.callTool({ name: "result_query", arguments: args })) as Result).isError).toBeFalsy();
    caller = "dave";
    expect(
      ((await client.callTool({ name: "result_query", arguments: args })) as Result).structuredContent,
    ).toMatchObject({
      error: { code: "RESULT_HANDLE_NOT_FOUND" },
    });
  });
});

describe("S4 through the host", () => {
  it("S4.2 a tool whose definition names a UI resource never folds", async () => {
    const server = new McpServer({ name: "t", version: "1" });
    const { plugin, logger } = quietPlugin();
    plugin.install(server, { logger });
    addTool(server, "widget", () => big(), { _meta: { ui: { resourceUri: "ui://report/widget.html" } } });
    const client = await linkInMemory(server, "s");
    expect(((await client.callTool({ name: "widget", arguments: {} })) as Result).structuredContent).toEqual(big());
  });

  it("S4.6 folds when the output schema admits the folded form, and the client validates it", async () => {
    const server = new McpServer({ name: "t", version: "1" });
    const { plugin, logger, warnings } = quietPlugin();
    plugin.install(server, { logger });
    const row = z.object({ id: z.number(), title: z.string() });
    addTool(server, "typed", () => big(), {
      outputSchema: z.union([z.object({ rows: z.array(row) }), foldedAnswerSchema]),
    });
    const client = await linkInMemory(server, "s");
    await client.listTools();
    expect(isFolded((await client.callTool({ name: "typed", arguments: {} })) as Result)).toBe(true);
    expect(warnings).toEqual([]);
  });

  it("S4.6 a schema that does not admit it: the full answer and exactly one warning for that tool", async () => {
    const server = new McpServer({ name: "t", version: "1" });
    const { plugin, logger, warnings } = quietPlugin();
    plugin.install(server, { logger });
    addTool(server, "strict", () => big(), { outputSchema: z.object({ rows: z.array(z.unknown()) }) });
    const client = await linkInMemory(server, "s");
    for (let i = 0; i < 3; i++)
      expect(((await client.callTool({ name: "strict", arguments: {} })) as Result).structuredContent).toEqual(big());
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('"strict"');
    expect(warnings[0]).toContain("foldedAnswerSchema");
  });

  it(
    "S4.7 a store whose set rejects, or that never answers: the " + "call succeeds with the full answer and a warning",
    async () => {
      for (const [set, reason] of [
        [rejects("READONLY replica"), /READONLY replica/],
        [hangs, /longer than 100 ms/],
      ] as const) {
        const { plugin, warnings, logger } = pluginOver(brokenStorage({ set }), {
          thresholdBytes: 1024,
          storage: { type: "memory", timeoutMs: 100 },
        });
        const result = await callReport(plugin, { logger });
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toEqual(big());
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(reason);
      }
    },
  );

  it("S4.7 an owner resolver that throws never fails the call: the full answer and a warning", async () => {
    const { plugin, warnings, logger } = quietPlugin();
    const owner = () => {
      throw new Error("identity service down");
    };
    const result = await callReport(plugin, { logger, owner });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(big());
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/"report".*identity service down/);
  });

  it("S7.6 a store that cannot be read answers RESULT_STORE_UNAVAILABLE", async () => {
    const { plugin, logger } = pluginOver(brokenStorage({ get: rejects("connection reset") }), {
      thresholdBytes: 1024,
    });
    const server = new McpServer({ name: "t", version: "1" });
    plugin.install(server, { logger });
    addTool(server, "report", () => big());
    const client = await linkInMemory(server, "s");
    const handle = handleOf((await client.callTool({ name: "report", arguments: {} })) as Result);
    const read = (await client.callTool({ name: "result_query", arguments: { handle } })) as Result;
    expect(read.structuredContent).toMatchObject({ error: { code: "RESULT_STORE_UNAVAILABLE" } });
  });

  it(
    "S7.6 several instances whose stores hang: result_query " + "answers after one store timeout, not one per instance",
    async () => {
      const timeoutMs = 400;
      const server = new McpServer({ name: "t", version: "1" });
      for (const tool of ["a", "b", "c"]) {
        const { plugin, logger } = pluginOver(brokenStorage({ get: hangs }), {
          thresholdBytes: 1024,
          storage: { type: "memory", timeoutMs },
        });
        plugin.install(server, { tools: [tool], logger });
      }
      const client = await linkInMemory(server, "s");
      const started = performance.now();
      const read = (await client.callTool({
        name: "result_query",
        arguments: { handle: crypto.randomUUID() },
      })) as Result;
      const elapsed = performance.now() - started;
      expect(read.structuredContent).toMatchObject({ error: { code: "RESULT_STORE_UNAVAILABLE" } });
      expect(elapsed).toBeGreaterThanOrEqual(timeoutMs - 50);
      expect(elapsed).toBeLessThan(2 * timeoutMs); // one after another would take 3 timeouts
    },
  );

  it("passes error results through untouched", async () => {
    const server = new McpServer({ name: "t", version: "1" });
    const { plugin, logger } = quietPlugin();
    plugin.install(server, { logger });
    server.registerTool("failing", { description: "fails" }, async () => ({
      content: [{ type: "text", text: "x".repeat(5000) }],
      isError: true,
    }));
    const client = await linkInMemory(server, "s");
    const result = (await client.callTool({ name: "failing", arguments: {} })) as Result;
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: "text", text: "x".repeat(5000) }]);
  });
});

describe("S8.3 what a store holder sees, through a whole MCP exchange", () => {
  it("keys and values never contain the handle, the session, the caller or the answer", async () => {
    const storage = new StorageDouble();
    const { plugin, logger } = pluginOver(storage, { thresholdBytes: 1024 });
    const server = new McpServer({ name: "t", version: "1" });
    const marker = "PLAINTEXT-MARKER-91c2";
    const session = "session-e2e-5f3b";
    const caller = "caller-e2e-erin";
    plugin.install(server, { logger, owner: (ctx) => ({ session: ctx.sessionId, caller }) });
    addTool(server, "report", () => ({ rows: Array.from({ length: 100 }, (_, i) => ({ i, note: `${marker} ${i}` })) }));
    const client = await linkInMemory(server, session);
    const handle = handleOf((await client.callTool({ name: "report", arguments: {} })) as Result);
    const read = (await client.callTool({
      name: "result_query",
      arguments: { handle, path: "$.rows[7].note" },
    })) as Result;
    expect(read.structuredContent).toMatchObject({ value: `${marker} 7` });

    const seen = storage.seen();
    expect(seen.length).toBeGreaterThanOrEqual(3);
    const text = (bytes: Uint8Array) => new TextDecoder("latin1").decode(bytes);
    const b64 = (value: string) => btoa(value);
    for (const secret of [
      handle,
      handle.replace(/-/g, ""),
      session,
      caller,
      marker,
      b64(handle),
      b64(marker).slice(0, 16),
    ]) {
      for (const blob of seen) expect(text(blob)).not.toContain(secret);
    }
  });
});

describe("S7.8 result_query as the model sees it", () => {
  it("describes the path forms, the defaults and that handles expire", async () => {
    const server = new McpServer({ name: "t", version: "1" });
    quietPlugin().plugin.install(server);
    const client = await linkInMemory(server, "s");
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === "result_query")!;
    for (const part of [
      "$.rows[2].title",
      "rows.2.title",
      "/rows/2/title",
      "20 items",
      "2000 characters",
      "expire",
      "page",
      "fields",
    ]) {
      expect(tool.description).toContain(part);
    }
    expect(tool.inputSchema).toMatchObject({
      type: "object",
      required: ["handle"],
      properties: { limit: { maximum: 100000 } },
    });
  });

  it("S7.8 is listed read-only and idempotent", async () => {
    const server = new McpServer({ name: "t", version: "1" });
    quietPlugin().plugin.install(server);
    const client = await linkInMemory(server, "s");
    const tool = (await client.listTools()).tools.find((t) => t.name === "result_query")!;
    expect(tool.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
  });

  it(
    "S7.9 its listed output schema has an object root and requires a " +
      "slice, an aggregate's groups (S24.1) or an error",
    async () => {
      const server = new McpServer({ name: "t", version: "1" });
      quietPlugin().plugin.install(server);
      const client = await linkInMemory(server, "s");
      const tool = (await client.listTools()).tools.find((t) => t.name === "result_query")!;
      expect(tool.outputSchema).toMatchObject({
        type: "object",
        properties: { error: { type: "object", required: ["code", "message"] } },
        anyOf: [{ required: ["path", "value"] }, { required: ["path", "groups"] }, { required: ["error"] }],
      });
    },
  );
});

describe("SDK internals (one adapter file)", () => {
  it("the pinned SDK has the members the adapter relies on", () => {
    const server = new McpServer({ name: "t", version: "1" }) as unknown as Record<string, unknown>;
    expect(
      typeof server.executeToolHandler,
      "McpServer.executeToolHandler changed: update src/hosts/mcp-sdk-internals.ts",
    ).toBe("function");
    expect(
      typeof server._registeredTools,
      "McpServer._registeredTools changed: update src/hosts/mcp-sdk-internals.ts",
    ).toBe("object");
    expect(
      typeof server.validateToolInput,
      "McpServer.validateToolInput changed: update src/hosts/mcp-sdk-internals.ts",
    ).toBe("function");
  });

  it("install refuses, loudly, a server without them", () => {
    const { plugin } = quietPlugin();
    const stripped = { registerTool: () => undefined };
    expect(() => plugin.install(stripped)).toThrow(UnsupportedMcpServerError);
    expect(() => plugin.install(stripped)).toThrow(/executeToolHandler/);
  });
});
