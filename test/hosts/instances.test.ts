// The host-neutral registry (src/plugin/host-instances.ts) as the MCP host uses it.
import { McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { brokenStorage, pluginOver, rejects } from "../helpers/storage-double.js";
import { linkInMemory } from "../helpers/in-memory.js";

const big = () => ({ rows: Array.from({ length: 300 }, (_, i) => ({ id: i, title: `Row number ${i}` })) });

describe("installations", () => {
  it("a logger given to one install belongs to that installation, not to the whole plugin", async () => {
    const { plugin, warnings: pluginWarnings } = pluginOver(brokenStorage({ set: rejects("disk full") }), {
      thresholdBytes: 1024,
    });
    const first: string[] = [];
    const second: string[] = [];
    const servers = [first, second].map((sink) => {
      const server = new McpServer({ name: "t", version: "1" });
      plugin.install(server, { logger: { warn: (message) => void sink.push(message) } });
      server.registerTool("report", { description: "report" }, async () => ({
        content: [{ type: "text", text: JSON.stringify(big()) }],
      }));
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
    const folder = new URL("../../src/hosts/", import.meta.url);
    const files = readdirSync(folder).filter((name) => name.endsWith(".ts"));
    expect(files).toEqual(expect.arrayContaining(["mcp.ts", "webmcp.ts"]));
    for (const name of files)
      expect(readFileSync(new URL(name, folder), "utf8"), name).not.toMatch(/from "\.\.\/plugin-with-hosts\.js"/);
  });

  it("no file of src/ imports, even for types only, a file that imports it back (no circles)", async () => {
    const { readdirSync, readFileSync } = await import("node:fs");
    const { dirname, join, normalize } = await import("node:path");
    const root = new URL("../../src/", import.meta.url).pathname;
    const files = (readdirSync(root, { recursive: true }) as string[]).filter((name) => name.endsWith(".ts"));
    const imports = new Map<string, string[]>();
    for (const file of files) {
      const text = readFileSync(join(root, file), "utf8");
      const targets = [...text.matchAll(/from\s+"(\.{1,2}\/[^"]+)\.js"/g)].map((match) =>
        normalize(join(dirname(file), `${match[1]}.ts`)),
      );
      imports.set(normalize(file), targets);
    }
    // Depth-first, each file once: an import of a file still on the path closes a circle.
    const circles = new Set<string>();
    const done = new Set<string>();
    const visit = (file: string, path: string[]) => {
      if (done.has(file)) return;
      for (const target of imports.get(file) ?? []) {
        const at = path.indexOf(target);
        if (at >= 0) circles.add([...path.slice(at), target].join(" -> "));
        else visit(target, [...path, target]);
      }
      done.add(file);
    };
    for (const file of imports.keys()) visit(file, [file]);
    expect([...circles]).toEqual([]);
  });
});
