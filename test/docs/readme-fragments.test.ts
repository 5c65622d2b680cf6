// S17.4, S20.4 the TypeScript fragments of the README and the docs pages, read from the files, run with the package
// installed from its
// tarball in a scratch project, each compiled as tsx would and run by node (helpers/compiled-ts.ts). A fragment that
// names `server` or `plugin` gets them from a short
// prelude; what follows it calls the tools through a real SDK client and prints what the test checks.
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, root, scratchProject, type ScratchProject } from "../helpers/packed-package.js";
import { docBlock } from "../helpers/doc-blocks.js";
import { compiledTs } from "../helpers/compiled-ts.js";

const run = promisify(execFile);

let project: ScratchProject | undefined;
beforeAll(async () => {
  project = await scratchProject(
    {
      "@modelcontextprotocol/server": "2.4.0",
      "@modelcontextprotocol/client": "2.4.0",
      "@modelcontextprotocol/node": "2.1.2",
      "@mcp-b/webmcp-polyfill": "5.1.0",
      zod: "4.6.7",
    },
    {},
    "readme",
  );
}, 120_000);
afterAll(() => project?.dispose());

/** Runs `code` as a module of the scratch project; its stdout and stderr. */
async function runModule(name: string, code: string): Promise<{ stdout: string; stderr: string }> {
  writeFileSync(join(project!.dir, name), code);
  return run(process.execPath, [await compiledTs(join(project!.dir, name))], {
    cwd: project!.dir,
    env: cleanEnv,
    timeout: 30_000,
  });
}

/** The README's stdio server, compiled once for the tests that start it. */
let stdioServerFile: Promise<string> | undefined;
function stdioServerOfReadme(): Promise<string> {
  if (stdioServerFile) return stdioServerFile;
  writeFileSync(join(project!.dir, "stdio-server.ts"), docBlock("README.md", "A stdio server"));
  return (stdioServerFile = compiledTs(join(project!.dir, "stdio-server.ts")));
}

const prelude = (plugin: boolean) => `import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import { ResultHandlesPlugin } from "mcp-result-handles";
const server = new McpServer({ name: "readme", version: "1.0.0" });
${plugin ? "const plugin = ResultHandlesPlugin.init({ thresholdBytes: 4096 });" : ""}
`;
/** Registers text tools of the given sizes, calls each through an in-memory client and prints which folded. */
const callTools = (tools: Record<string, number>) => `
for (const [name, bytes] of Object.entries(${JSON.stringify(tools)})) {
  const rows = Array.from({ length: Math.ceil(bytes / 30) }, (_, i) => ({ id: "R-" + i, pad: "x".repeat(14) }));
  server.registerTool(name, { description: name }, async () => ({
    content: [{ type: "text", text: JSON.stringify({ rows }) }],
  }));
}
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
const client = new Client({ name: "readme-fragment", version: "1.0.0" });
await client.connect(clientSide);
const out: Record<string, unknown> = {};
for (const name of Object.keys(${JSON.stringify(tools)})) {
  const answer = await client.callTool({ name, arguments: {} });
  const meta = answer._meta?.["frontmcp/result-handle"];
  const folded = answer.structuredContent as { preview?: { rows: unknown[] } } | undefined;
  out[name] = meta ? { folded: true, previewRows: folded!.preview!.rows.length } : { folded: false };
}
console.log(JSON.stringify(out));
await client.close();
process.exit(0);
`;

describe("S17.4 the docs' TypeScript fragments", () => {
  it(
    '"Who owns a call": owner replaces the default rule, so an in-process call with no clientId stays ' + "anonymous",
    async () => {
      const fragment = docBlock("docs/getting-started.md", "Who owns a call");
      const withOwner = JSON.parse(
        (await runModule("owner.ts", prelude(true) + fragment + callTools({ big: 9000 }))).stdout,
      );
      expect(withOwner).toEqual({ big: { folded: false } });
      // Control: the default owner (the in-process connection is one session) folds the same answer.
      const control = JSON.parse(
        (await runModule("owner-control.ts", prelude(true) + "plugin.install(server);\n" + callTools({ big: 9000 })))
          .stdout,
      );
      expect(control).toEqual({ big: { folded: true, previewRows: 5 } });
    },
    60_000,
  );

  it(
    '"Options": two instances on one server, each with its ' + "threshold and preview, folding only the tools it names",
    async () => {
      const fragment = docBlock("docs/api.md", "Options");
      const tools = { report: 6000, server_log: 3000, orders: 6000, order_count: 12000 };
      const small = JSON.parse((await runModule("options.ts", prelude(false) + fragment + callTools(tools))).stdout);
      expect(small).toEqual({
        report: { folded: true, previewRows: 5 },
        server_log: { folded: false },
        orders: { folded: false },
        order_count: { folded: false },
      });
      const large = JSON.parse(
        (await runModule("options-large.ts", prelude(false) + fragment + callTools({ orders: 12000 }))).stdout,
      );
      expect(large).toEqual({ orders: { folded: true, previewRows: 2 } });
    },
    60_000,
  );

  it(
    '"Passing a folded answer to another tool": count_tickets receives all ' +
      "200 tickets through the $result reference its comment shows",
    async () => {
      const fragment = docBlock("docs/references.md", "Passing a folded answer to another tool");
      // The call the fragment's comment shows, and what it says the tool receives.
      const call = /^\/\/\s+(\w+) (\{.*\})\s*$/m.exec(fragment)!;
      const [tool, args] = [call[1]!, JSON.parse(call[2]!) as { tickets: { $result: string; path?: string } }];
      expect(tool).toBe("count_tickets");
      expect(Object.keys(args.tickets).sort()).toEqual(["$result", "path"]);
      const received = Number(/receives all (\d+) tickets/.exec(fragment)![1]);
      // The demo's report tool (the fragment says "The model calls report, which folds"), copied in as is.
      writeFileSync(
        join(project!.dir, "demo-tools.ts"),
        readFileSync(join(root, "playground", "demo-tools.ts"), "utf8"),
      );
      const code = `${prelude(true)}import { z } from "zod";
import { registerReport } from "./demo-tools.ts";
plugin.install(server);
registerReport(server);
${fragment}
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
const client = new Client({ name: "readme-fragment", version: "1.0.0" });
await client.connect(clientSide);
const folded = await client.callTool({ name: "report", arguments: {} });
const handle = (folded.structuredContent as { handle: string }).handle;
const args = ${JSON.stringify(args)};
args.tickets.$result = handle; // the README elides it
const counted = await client.callTool({ name: ${JSON.stringify(tool)}, arguments: args });
console.log(JSON.stringify({ handle, sent: JSON.stringify(args).length, counted }));
await client.close();
process.exit(0);
`;
      const out = JSON.parse((await runModule("references.ts", code)).stdout) as {
        handle: string;
        sent: number;
        counted: { isError?: boolean; content: { text: string }[] };
      };
      expect(out.handle).toMatch(/^[0-9a-f-]{36}$/);
      expect(out.counted.isError ?? false).toBe(false);
      expect(out.counted.content[0]!.text).toBe(String(received));
      expect(received).toBe(200);
      expect(out.sent).toBeLessThan(200); // the reference, not the tickets, went over the wire
    },
    60_000,
  );

  it('"Errors": the example catches the coded configuration error and prints its message', async () => {
    const { stdout, stderr } = await runModule("errors.ts", docBlock("docs/api.md", "Errors"));
    expect(stdout).toBe("");
    expect(stderr).toContain("Invalid result-handles options (1 problem):");
    expect(stderr).toContain("- thresholdBytes:");
  }, 30_000);
});

describe('S17.4 "What the model receives" (docs/model.md) is what the README\'s stdio server sends', () => {
  it("the same preview, shape, texts and _meta, handle aside", async () => {
    const stdioServer = await stdioServerOfReadme();
    const client = new Client({ name: "readme-json", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [stdioServer],
        cwd: project!.dir,
        env: cleanEnv as Record<string, string>,
        stderr: "ignore",
      }),
    );
    const answer = (await client.callTool({ name: "tickets", arguments: {} })) as Record<string, unknown> & {
      structuredContent: { handle: string };
      content: { text: string }[];
    };
    await client.close();

    const shown = JSON.parse(docBlock("docs/model.md", "What the model receives"));
    const handle = answer.structuredContent.handle;
    const sameHandle = (value: unknown) =>
      JSON.parse(JSON.stringify(value).replaceAll(shown.structuredContent.handle, handle));
    expect(answer.structuredContent).toEqual(sameHandle(shown.structuredContent));
    expect(answer._meta).toMatchObject(sameHandle(shown._meta));
    expect(answer.content).toHaveLength(2);
    // The first text is cut in the README where it says so.
    const cut = shown.content[0].text as string;
    expect(cut.endsWith("…")).toBe(true);
    expect(answer.content[0]!.text.startsWith(cut.slice(0, -1))).toBe(true);
    expect(JSON.parse(answer.content[0]!.text)).toEqual(answer.structuredContent);
    expect(answer.content[1]).toEqual(sameHandle(shown.content[1]));
  }, 60_000);
});

describe(
  "S17.4 the docs' complete programs typecheck as a user's project would (strict, skipLibCheck off " + "for ours)",
  () => {
    it("the stdio, HTTP, Worker, WebMCP, in-page and errors blocks", async () => {
      const blocks = {
        "stdio-server.ts": docBlock("README.md", "A stdio server"),
        "http-server.ts": docBlock("docs/getting-started.md", "An HTTP server"),
        "worker.ts": docBlock("docs/runtimes.md", "On Cloudflare Workers and other edge runtimes"),
        "webmcp.ts": docBlock("docs/runtimes.md", "In web pages (WebMCP and the playground)", 0),
        "mcp-in-page.ts": docBlock("docs/runtimes.md", "In web pages (WebMCP and the playground)", 1),
        "errors.ts": docBlock("docs/api.md", "Errors"),
      };
      const dir = join(project!.dir, "typecheck");
      mkdirSync(dir, { recursive: true });
      for (const [name, code] of Object.entries(blocks)) writeFileSync(join(dir, name), code);
      const compilerOptions = {
        target: "es2022",
        module: "esnext",
        moduleResolution: "bundler",
        lib: ["es2023", "dom"],
        strict: true,
        noEmit: true,
        // the SDK's own declarations are not ours to check; ours are checked in package/install.test.ts
        skipLibCheck: true,
        typeRoots: [join(root, "node_modules", "@types")],
        types: ["node"],
      };
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: Object.keys(blocks) }));
      const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
      const result = await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: dir }).catch(
        (error: { stdout: string }) => ({ stdout: error.stdout }),
      );
      expect(result.stdout).toBe("");
    }, 60_000);
  },
);

describe('S17.4 "Clients": a one-shot client cannot read a handle back', () => {
  it(
    "a new stdio process per call: the handle folded by the first reads as RESULT_HANDLE_NOT_FOUND " + "in the next",
    async () => {
      const stdioServer = await stdioServerOfReadme();
      const oneShot = async (name: string, args: Record<string, unknown>) => {
        const client = new Client({ name: "one-shot", version: "1.0.0" });
        await client.connect(
          new StdioClientTransport({
            command: process.execPath,
            args: [stdioServer],
            cwd: project!.dir,
            env: cleanEnv as Record<string, string>,
            stderr: "ignore",
          }),
        );
        const result = (await client.callTool({ name, arguments: args })) as {
          structuredContent: Record<string, unknown>;
        };
        await client.close();
        return result.structuredContent;
      };
      const { handle } = (await oneShot("tickets", {})) as { handle: string };
      expect(handle).toMatch(/^[0-9a-f-]{36}$/);
      expect(await oneShot("result_query", { handle })).toMatchObject({ error: { code: "RESULT_HANDLE_NOT_FOUND" } });
    },
    60_000,
  );
});
