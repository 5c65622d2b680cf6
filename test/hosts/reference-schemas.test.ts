// S25.2 a tool that accepts references lists an input schema admitting { "$result": string, "path"?: string }
// wherever an argument may take one (each argument, each item of a list), so a client that validates
// arguments against the listed schema (here the SDK v1's own Ajv validator) sends the reference the hint
// suggests; the tool's own validation still runs on the resolved value; result_query's schema is its own,
// and with references off nothing changes.
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1HttpClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { McpServer } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResultHandlesPlugin } from "mcp-result-handles";
import { startDemoServer, type DemoServer } from "../../playground/server/demo-server.js";
import { linkInMemory } from "../helpers/in-memory.js";
import { registerCountTickets } from "../../playground/demo-tools.js";

type Result = {
  structuredContent?: Record<string, unknown>;
  content?: { type: string; text?: string }[];
  isError?: boolean;
};
type Tool = { name: string; inputSchema: Record<string, unknown> };

describe("S25.2 through the demo and an SDK v1 client that validates arguments", () => {
  let demo: DemoServer;
  let client: V1Client;
  beforeAll(async () => {
    demo = await startDemoServer({ port: 0, logger: { warn: () => {}, info: () => {} } });
    client = new V1Client({ name: "validating-client", version: "1.0.0" });
    await client.connect(
      new V1HttpClientTransport(new URL(demo.url), {
        requestInit: { headers: { Authorization: "Bearer demo-alice" } },
      }),
    );
  });
  afterAll(async () => {
    await client.close();
    await demo.close();
  });

  it(
    "count_tickets' listed schema admits the reference, in place of " +
      "the list and among its items; the call counts all 200",
    async () => {
      const tools = (await client.listTools()).tools as Tool[];
      const schema = tools.find((tool) => tool.name === "count_tickets")!.inputSchema;
      const check = new AjvJsonSchemaValidator().getValidator(schema as never);
      const folded = (await client.callTool({ name: "report", arguments: {} })) as Result;
      const handle = (folded.structuredContent as { handle: string }).handle;
      const reference = { tickets: { $result: handle, path: "$.rows" } };
      expect(check(reference).valid).toBe(true);
      expect(check({ tickets: [{ id: "T-1" }, { $result: handle, path: "/rows/3" }] }).valid).toBe(true);
      expect(check({ tickets: { $result: handle } }).valid).toBe(true);
      // Still a schema: what is neither tickets nor a reference is refused by the client.
      expect(check({ tickets: "all" }).valid).toBe(false);
      expect(check({ tickets: { $result: 5 } }).valid).toBe(false);
      expect(check({ tickets: { $result: handle, path: "$.rows", extra: 1 } }).valid).toBe(false);
      expect(check({ tickets: [{ title: "no id" }] }).valid).toBe(false);

      const counted = (await client.callTool({ name: "count_tickets", arguments: reference })) as Result;
      expect(counted.structuredContent).toEqual({ count: 200, first: "T-0", last: "T-199" });
      // The tool's own schema checks the resolved value: a list of titles is no list of tickets.
      const refused = (await client.callTool({
        name: "count_tickets",
        arguments: { tickets: { $result: handle, path: "$.rows[*].title" } },
      })) as Result;
      expect(refused.isError).toBe(true);
      expect(refused.content?.[0]?.text).toMatch(/Input validation error/);
    },
  );

  it("result_query lists its own schema, with no reference in it", async () => {
    const tools = (await client.listTools()).tools as Tool[];
    expect(JSON.stringify(tools.find((tool) => tool.name === "result_query")!.inputSchema)).not.toContain("$result");
  });
});

describe("S25.2 with references off", () => {
  it("the listed schemas stay as the tools declared them", async () => {
    const schemas = async (references: boolean) => {
      const server = new McpServer({ name: "off", version: "1" });
      ResultHandlesPlugin.init({ storage: { type: "memory" } }).install(server, { references });
      registerCountTickets(server);
      const client = await linkInMemory(server, `s-${String(references)}`);
      const tools = (await client.listTools()).tools as Tool[];
      await client.close();
      return tools.find((tool) => tool.name === "count_tickets")!.inputSchema;
    };
    const off = await schemas(false);
    expect(JSON.stringify(off)).not.toContain("$result");
    const on = await schemas(true);
    const listed = (schema: Record<string, unknown>) =>
      (schema.properties as Record<string, { anyOf?: unknown[]; items?: unknown }>).tickets!;
    expect(listed(on).anyOf?.[0]).toMatchObject({
      type: "array",
      items: { anyOf: [listed(off).items, expect.anything()] },
    });
  });
});
