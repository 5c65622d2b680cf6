// The host-neutral registry (src/hosts/instances.ts) as the MCP host uses it.
import { McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { brokenStorage, pluginOver, rejects } from "./helpers/storage-double.js";
import { linkInMemory } from "./helpers/in-memory.js";

const big = () => ({ rows: Array.from({ length: 300 }, (_, i) => ({ id: i, title: `Row number ${i}` })) });

describe("installations", () => {
  it("a logger given to one install belongs to that installation, not to the whole plugin", async () => {
    const { plugin, warnings: pluginWarnings } = pluginOver(brokenStorage({ set: rejects("disk full") }), { thresholdBytes: 1024 });
    const first: string[] = [];
    const second: string[] = [];
    const servers = [first, second].map((sink) => {
      const server = new McpServer({ name: "t", version: "1" });
      plugin.install(server, { logger: { warn: (message) => void sink.push(message) } });
      server.registerTool("report", { description: "report" }, async () => ({ content: [{ type: "text", text: JSON.stringify(big()) }] }));
      return server;
    });
    const client = await linkInMemory(servers[0]!, "s");
    const result = await client.callTool({ name: "report", arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(first).toHaveLength(1); // the first install's logger, though a later install brought its own
    expect(first[0]).toMatch(/disk full/);
    expect(second).toEqual([]);
    expect(pluginWarnings).toEqual([]); // the plugin's own logger, which an install no longer replaces
  });
});

describe("dependencies run one way", () => {
  it("hosts depend on the PluginInstance interface, never on the plugin class", async () => {
    const { readdirSync, readFileSync } = await import("node:fs");
    const folder = new URL("../src/hosts/", import.meta.url);
    const files = readdirSync(folder).filter((name) => name.endsWith(".ts"));
    expect(files).toEqual(expect.arrayContaining(["instances.ts", "mcp.ts", "webmcp.ts"]));
    for (const name of files) expect(readFileSync(new URL(name, folder), "utf8"), name).not.toMatch(/from "\.\.\/plugin\.js"/);
  });
});
