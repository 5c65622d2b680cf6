// The same install in a page: an McpServer and a Client linked in memory inside Chromium (S10.1).
import { McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { RESULT_HANDLE_META_KEY, ResultHandlesPlugin } from "mcp-result-handles";
import { registerReport, reportRows } from "../../playground/demo-tools.js";
import { linkInMemory } from "../helpers/in-memory.js";

describe("S10.1 McpServer in a page", () => {
  it("folds the report and reads it back through result_query", async () => {
    const server = new McpServer({ name: "page", version: "1" });
    const plugin = ResultHandlesPlugin.init({ thresholdBytes: 4096 }); // auto: memory in a page
    plugin.install(server);
    registerReport(server);
    const client = await linkInMemory(server, "page-load-1");
    await client.listTools();

    const result = await client.callTool({ name: "report", arguments: {} });
    const meta = result._meta?.[RESULT_HANDLE_META_KEY] as { handle: string; bytes: number };
    expect(meta.bytes).toBe(new TextEncoder().encode(JSON.stringify(reportRows())).byteLength);
    const read = await client.callTool({
      name: "result_query",
      arguments: { handle: meta.handle, path: "$.rows", page: 10, limit: 20, fields: ["title"] },
    });
    expect(read.structuredContent).toEqual({
      path: "$.rows",
      value: reportRows()
        .rows.slice(180, 200)
        .map(({ title }) => ({ title })),
      total: 200,
      offset: 180,
    });
    await client.close();
    await plugin.onShutdown();
  });
});
