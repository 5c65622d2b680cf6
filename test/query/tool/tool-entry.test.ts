// S18.3 S18.5 what every conversation pays: result_query's tools/list entry as the demo lists it over HTTP
// (SDK v2 and v1 clients) is at most 1,800 bytes compact (name, description, inputSchema) and 2,800 in all,
// says in one sentence how to pass an answer on when references resolve, carries
// _meta["anthropic/maxResultSizeChars"], and no tool the plugin lists or wraps has a schema without a type
// (what the MCP Inspector 2.x's schema-portability check warns about: `{}`, or a `type` list).
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1HttpClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/server";
import { ResultHandlesPlugin } from "mcp-result-handles";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoServer, type DemoServer } from "../../../playground/server/demo-server.js";
import { registerReport } from "../../../playground/demo-tools.js";
import { linkInMemory } from "../../helpers/in-memory.js";
import { connect } from "../../helpers/mcp-client.js";

type Tool = {
  name: string;
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  _meta?: Record<string, unknown>;
};
const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).byteLength;
const REFERENCES =
  'To pass an answer, or a part, to another tool, put { "$result": handle, "path": … } in its arguments.';

/** Keywords that constrain nothing (what the Inspector's check calls no validation keyword at all). */
const ANNOTATIONS = new Set([
  "description",
  "title",
  "default",
  "examples",
  "$schema",
  "$comment",
  "$id",
  "deprecated",
  "readOnly",
  "writeOnly",
]);

/** Places in a JSON Schema that constrain nothing (`{}`, `true`, only annotations), or give a list of types. */
function untyped(schema: unknown, at = "$"): string[] {
  if (schema === true) return [at];
  if (schema === null || typeof schema !== "object") return [];
  const node = schema as Record<string, unknown>;
  const found: string[] = [];
  const says = Object.keys(node).some((keyword) => !ANNOTATIONS.has(keyword));
  if (!says) found.push(at);
  if (Array.isArray(node.type)) found.push(`${at}.type`);
  for (const [keyword, child] of Object.entries(node)) {
    if (keyword === "properties" && child && typeof child === "object")
      for (const [name, property] of Object.entries(child))
        found.push(...untyped(property, `${at}.properties.${name}`));
    else if (["items", "additionalProperties", "propertyNames", "not"].includes(keyword) && typeof child === "object")
      found.push(...untyped(child, `${at}.${keyword}`));
    else if (["anyOf", "oneOf", "allOf"].includes(keyword) && Array.isArray(child))
      child.forEach((branch, i) => found.push(...untyped(branch, `${at}.${keyword}[${i}]`)));
  }
  return found;
}

describe("S18.3 S18.5 the demo's tools/list over HTTP", () => {
  let demo: DemoServer;
  const lists: Record<string, Tool[]> = {};
  beforeAll(async () => {
    demo = await startDemoServer({ port: 0, logger: { warn: () => {}, info: () => {} } });
    const v2 = await connect(demo.url, { era: "2025" });
    lists.v2 = (await v2.listTools()).tools as Tool[];
    await v2.close();
    const v1 = new V1Client({ name: "entry-v1", version: "1.0.0" });
    await v1.connect(new V1HttpClientTransport(new URL(demo.url)));
    lists.v1 = (await v1.listTools()).tools as Tool[];
    await v1.close();
  });
  afterAll(() => demo.close());

  it.each(["v2", "v1"])("SDK %s: result_query's entry fits its allowance and names references", (sdk) => {
    const entry = lists[sdk]!.find((tool) => tool.name === "result_query")!;
    const compact = { name: entry.name, description: entry.description, inputSchema: entry.inputSchema };
    expect(bytes(compact)).toBeLessThanOrEqual(1800);
    expect(bytes(entry)).toBeLessThanOrEqual(2800);
    expect(entry.description).toContain(REFERENCES);
    expect(entry.description!.split(REFERENCES).length).toBe(2); // one sentence, once
    // S14.7 S7.8: one filter and one search example, the path forms, that handles expire.
    expect(entry.description).toContain("$.rows[?@.status == 'open']");
    expect(entry.description).toContain('search: "timeout"');
    expect(entry.description).toMatch(/\/rows\/2\/title.*expire/s);
  });

  it(
    "S18.5 _meta anthropic/maxResultSizeChars: twice the largest " +
      "instance's slice limit (8192, orders) and the envelope",
    () => {
      for (const sdk of ["v2", "v1"]) {
        const entry = lists[sdk]!.find((tool) => tool.name === "result_query")!;
        expect(entry._meta?.["anthropic/maxResultSizeChars"]).toBe(2 * 8192 + 2000);
      }
    },
  );

  it("S18.3 no schema without a type in any tool the plugin lists or wraps", () => {
    const folded = ["result_query", "report", "server_log", "count_tickets", "orders", "chart"];
    for (const tool of lists.v2!.filter(({ name }) => folded.includes(name))) {
      expect(untyped(tool.inputSchema), `${tool.name} inputSchema`).toEqual([]);
      if (tool.outputSchema) expect(untyped(tool.outputSchema), `${tool.name} outputSchema`).toEqual([]);
    }
    // The check sees what it looks for: the three places the Inspector 2.12 warned about before S18.3.
    expect(
      untyped({
        type: "object",
        properties: {
          a: {},
          b: { description: "any" },
          c: { type: "object", additionalProperties: {} },
          d: { type: ["string", "null"] },
        },
      }),
    ).toEqual(["$.properties.a", "$.properties.b", "$.properties.c.additionalProperties", "$.properties.d.type"]);
  });
});

describe("S18.3 with references off, the description leaves the sentence out", () => {
  it("install(server, { references: false })", async () => {
    const plugin = ResultHandlesPlugin.init({ thresholdBytes: 4096, storage: { type: "memory" } });
    const server = new McpServer({ name: "no-references", version: "1.0.0" });
    plugin.install(server, { references: false });
    registerReport(server);
    const client = await linkInMemory(server);
    try {
      const entry = ((await client.listTools()).tools as Tool[]).find((tool) => tool.name === "result_query")!;
      expect(entry.description).not.toContain("$result");
      expect(entry._meta?.["anthropic/maxResultSizeChars"]).toBe(2 * 4096 + 2000);
    } finally {
      await client.close();
      await plugin.onShutdown();
    }
  });

  it("a later install turning references off changes the listed description", async () => {
    const first = ResultHandlesPlugin.init({ thresholdBytes: 4096, storage: { type: "memory" } });
    const second = ResultHandlesPlugin.init({ thresholdBytes: 20_000, storage: { type: "memory" } });
    const server = new McpServer({ name: "later", version: "1.0.0" });
    first.install(server, { tools: ["report"] });
    second.install(server, { tools: ["other"], references: false });
    const client = await linkInMemory(server);
    try {
      const entry = ((await client.listTools()).tools as Tool[]).find((tool) => tool.name === "result_query")!;
      expect(entry.description).not.toContain("$result");
      expect(entry._meta?.["anthropic/maxResultSizeChars"]).toBe(2 * 20_000 + 2000);
    } finally {
      await client.close();
      await first.onShutdown();
      await second.onShutdown();
    }
  });
});
