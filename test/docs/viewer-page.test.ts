// S19.1, S20.4: the code blocks of docs/viewer.md run as written. The stdio server is written to a file in
// the repository (so `mcp-result-handles` resolves to the built package by its own name, as a user's
// import does) and run with a real SDK client over stdio; the HTTP block is a fragment of Getting
// started's HTTP server, checked against it.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, describe, expect, it } from "vitest";
import { docBlock } from "../helpers/doc-blocks.js";
import { root } from "../helpers/packed-package.js";

const PAGE = "docs/viewer.md";
const HEADING = "Turning it on";
const dir = join(root, "test-results", "viewer-page");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("docs/viewer.md › Turning it on", () => {
  it("the stdio server names the viewer on its tool, serves the page and folds the tool's answer", async () => {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "viewer-stdio-server.ts");
    writeFileSync(file, docBlock(PAGE, HEADING, 0));
    const client = new Client(
      { name: "viewer-page-test", version: "1.0.0" },
      {
        capabilities: {
          extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } },
        } as never,
      },
    );
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ["--import", "tsx", file],
        cwd: root,
        stderr: "pipe",
      }),
    );
    try {
      const { tools } = await client.listTools();
      const tickets = tools.find((tool) => tool.name === "tickets");
      expect((tickets?._meta as { ui?: { resourceUri?: string } } | undefined)?.ui?.resourceUri).toBe(
        "ui://result-handles/viewer",
      );
      const view = tools.find((tool) => tool.name === "result_view");
      expect((view?._meta as { ui?: { visibility?: string[] } } | undefined)?.ui?.visibility).toEqual(["app"]);
      const page = await client.readResource({ uri: "ui://result-handles/viewer" });
      const html = page.contents[0] as { mimeType?: string; text?: string };
      expect(html.mimeType).toBe("text/html;profile=mcp-app");
      expect(html.text).toMatch(/^<!doctype html>/i);
      const result = await client.callTool({ name: "tickets", arguments: {} });
      expect(Object.keys(result.structuredContent as object).sort()).toEqual(["handle", "preview", "shape"]);
    } finally {
      await client.close();
    }
  }, 60_000);

  it("the HTTP fragment is the buildServer of Getting started's HTTP server, with the viewer turned on", () => {
    const fragment = docBlock(PAGE, HEADING, 1);
    const server = docBlock("docs/getting-started.md", "An HTTP server");
    expect(fragment).toContain("function buildServer(): McpServer {");
    expect(server).toContain("function buildServer(): McpServer {");
    expect(server).toMatch(/plugin\.install\(server[,)]/);
    expect(fragment).toContain("plugin.install(server, { viewer: true });");
  });
});
