// S17.4, S20.4 the page blocks of docs/runtimes.md run as written in Chromium: read from the page, bundled by Vite for
// the web
// (so the `browser` condition takes the page build) from a scratch project that installed the tarball, served
// on loopback and opened in Debian's Chromium through Playwright. The WebMCP block sets up
// @mcp-b/webmcp-polyfill and calls its tools itself; the in-page McpServer block calls its own client.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync, writeFileSync } from "node:fs";
import { extname, join, normalize } from "node:path";
import { chromium, type Browser } from "playwright";
import { build } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumArgs, chromiumPath } from "../../scripts/chromium.js";
import { scratchProject, type ScratchProject } from "../helpers/packed-package.js";
import { docBlock } from "../helpers/doc-blocks.js";

const HEADING = "In web pages (WebMCP and the playground)";
const PAGE = "docs/runtimes.md";
const PAGES = { webmcp: docBlock(PAGE, HEADING, 0), "mcp-in-page": docBlock(PAGE, HEADING, 1) };

let project: ScratchProject | undefined;
let server: Server | undefined;
let browser: Browser | undefined;
let origin = "";

beforeAll(async () => {
  const files: Record<string, string> = {};
  for (const [name, code] of Object.entries(PAGES)) {
    files[`${name}.ts`] = code;
    files[`${name}.html`] =
      `<!doctype html><html><body><script type="module" src="./${name}.ts"></script></body></html>`;
  }
  project = await scratchProject(
    {
      "@modelcontextprotocol/server": "2.4.0",
      "@modelcontextprotocol/client": "2.4.0",
      zod: "4.6.7",
      "@mcp-b/webmcp-polyfill": "5.1.0",
    },
    files,
    "readme-page",
  );
  const dir = project.dir;
  await build({
    root: dir,
    configFile: false,
    logLevel: "silent",
    build: {
      outDir: "site",
      target: "es2022",
      rolldownOptions: { input: Object.keys(PAGES).map((name) => join(dir, `${name}.html`)) },
    },
  });
  const site = join(dir, "site");
  const types: Record<string, string> = { ".html": "text/html", ".js": "text/javascript" };
  server = createServer((request, response) => {
    if (request.url === "/favicon.ico") return void response.writeHead(204).end();
    const file = normalize(join(site, new URL(request.url!, "http://x").pathname));
    try {
      const body = file.startsWith(site) ? readFileSync(file) : undefined;
      response
        .writeHead(body ? 200 : 404, { "content-type": types[extname(file)] ?? "application/octet-stream" })
        .end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((done) => server!.listen(0, "127.0.0.1", done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  server?.close();
  project?.dispose();
});

/** Opens a built page and collects what it logs, until `until` lines came or it threw. */
async function openPage(name: string, until: number): Promise<{ logs: unknown[]; errors: string[]; bundle: string }> {
  const page = await browser!.newPage();
  const logs: unknown[] = [];
  const errors: string[] = [];
  const done = new Promise<void>((resolve) => {
    page.on("console", async (message) => {
      if (message.type() === "error") errors.push(message.text());
      if (message.type() !== "log") return;
      logs.push(await message.args()[0]!.jsonValue());
      if (logs.length >= until) resolve();
    });
    page.on("pageerror", (error) => (errors.push(error.message), resolve()));
  });
  await page.goto(`${origin}/${name}.html`);
  await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 15_000))]);
  const scripts = await page.$$eval("script[src]", (nodes) => nodes.map((node) => (node as HTMLScriptElement).src));
  await page.close();
  const bundle = scripts
    .map((src) => readFileSync(join(project!.dir, "site", new URL(src).pathname)).toString())
    .join("\n");
  return { logs, errors, bundle };
}

describe("S17.4 the Runtimes page's page blocks in Chromium, from the installed tarball", () => {
  it(
    "the WebMCP page sets up the polyfill, registers report, and its own call folds and reads a " + "slice back",
    async () => {
      const { logs, errors, bundle } = await openPage("webmcp", 1);
      expect(errors).toEqual([]);
      expect(logs).toEqual([{ title: "Printer 199 jams" }]);
      // The page build, by the browser condition: no Node store adapter in the bundle.
      expect(bundle).not.toContain("@upstash/redis");
      expect(bundle).not.toContain("better-sqlite3");
    },
    30_000,
  );

  it("the in-page McpServer folds for its in-memory client and reads the last rows back", async () => {
    const { logs, errors } = await openPage("mcp-in-page", 1);
    expect(errors).toEqual([]);
    expect(logs).toEqual([
      { path: "$.rows", value: [195, 196, 197, 198, 199].map((i) => ({ id: `T-${i}` })), total: 200, offset: 195 },
    ]);
  }, 30_000);
});
