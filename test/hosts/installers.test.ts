// Issue 13's seam: the hosts are installers of their own, which the plugin class does not import; the
// plugin's install() is sugar over installOnMcpServer. A real McpServer and client, in memory.
import { McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { ResultHandlesPlugin, installOnMcpServer } from "mcp-result-handles";
import { linkInMemory } from "../helpers/in-memory.js";
import { expectFoldMeta, jsonBytes } from "../helpers/fold-meta.js";

const big = { rows: Array.from({ length: 300 }, (_, i) => ({ id: i, title: `Row number ${i}` })) };

describe("installOnMcpServer", () => {
  it("installs a plugin instance on a server just as plugin.install does", async () => {
    const plugin = ResultHandlesPlugin.init({ thresholdBytes: 1024, storage: { type: "memory" } });
    const server = new McpServer({ name: "t", version: "1" });
    installOnMcpServer(plugin, server, { logger: { warn: () => {} } });
    plugin.install(server); // a second join of the same instance changes nothing (S10.1)
    server.registerTool("report", { description: "rows" }, async () => ({
      content: [{ type: "text", text: JSON.stringify(big) }],
    }));
    const client = await linkInMemory(server, "s");
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    expect(tools.filter((name) => name === "result_query")).toHaveLength(1);
    const folded = (await client.callTool({ name: "report", arguments: {} })) as {
      _meta?: Record<string, unknown>;
      structuredContent?: { handle: string };
    };
    expectFoldMeta(folded, { bytes: jsonBytes(big) });
    const read = await client.callTool({
      name: "result_query",
      arguments: { handle: folded.structuredContent!.handle, path: "$.rows[9].id" },
    });
    expect(read.structuredContent).toEqual({ path: "$.rows[9].id", value: 9 });
    await plugin.onShutdown();
  });
});
