// Section 13: the package as users install it. Packs the built dist/ (npm test builds first), installs the
// tarball with npm into a scratch project on zod 4.3.6 and MCP SDK 2.3.1, then typechecks ESM and CommonJS
// consumers (node16, skipLibCheck false) and runs a real SDK client against a real server there.
// Slow (an npm install from the registry): kept in its own file; the scratch folder is removed afterwards.
import { execFile } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, root, scratchProject, type ScratchProject } from "../helpers/packed-package.js";

const run = promisify(execFile);
// tsc with skipLibCheck off, reporting only the consumers' files and this package's declarations (the
// SDK's and zod's are theirs to check, and took 11 of tsc's 13 s here).
const typecheckOurs = join(root, "test", "helpers", "typecheck-ours.mjs");

let packedFiles: readonly string[] = [];
let tarballBytes = 0;
let tarball = "";

const tsconfig = {
  compilerOptions: {
    module: "node16",
    moduleResolution: "node16",
    target: "es2022",
    lib: ["es2023"],
    strict: true,
    skipLibCheck: false,
    noEmit: true,
    typeRoots: [join(root, "node_modules", "@types")],
    types: ["node"],
  },
  files: ["consumer-esm.mts", "consumer-cjs.cts"],
};

// The same consumer code twice, once per module system; `@ts-expect-error` proves the types are not `any`.
const consumerBody = `
const myOutput = z.object({ rows: z.array(z.object({ id: z.string(), title: z.string() })) });
export const outputSchema = z.union([myOutput, handles.foldedAnswerSchema]);
export type Output = z.infer<typeof outputSchema>;
export const folded: Output = { preview: { rows: [] }, shape: { type: "object", keys: {} }, handle: "h" };
const options: handles.ResultHandlesOptions = { thresholdBytes: 4096, storage: { type: "memory" } };
const server = new sdk.McpServer({ name: "consumer", version: "1.0.0" });
handles.ResultHandlesPlugin.init(options).install(server, { tools: ["report"] });
server.registerTool("report", { description: "rows", outputSchema }, async () => ({
  content: [],
  structuredContent: { rows: [] },
}));
export const code = (error: unknown) => (error instanceof handles.ResultHandlesError ? error.code : undefined);
// @ts-expect-error the constant is a string
export const notANumber: number = handles.RESULT_QUERY_TOOL_NAME;
`;
const consumerEsm = `import * as sdk from "@modelcontextprotocol/server";
import { z } from "zod";
import * as handles from "mcp-result-handles";
import ResultHandlesPlugin from "mcp-result-handles";
export const sameDefault: typeof handles.ResultHandlesPlugin = ResultHandlesPlugin;
${consumerBody}`;
const consumerCjs = `import sdk = require("@modelcontextprotocol/server");
import { z } from "zod";
import handles = require("mcp-result-handles");
${consumerBody}`;

/** Lists the tools and folds an answer with a real SDK client and server linked in memory. */
const flow = (imports: string) => `${imports}
const ticket = z.object({ id: z.string(), title: z.string() });
const server = new McpServer({ name: "scratch", version: "1.0.0" });
const plugin = ResultHandlesPlugin.init({ thresholdBytes: 4096, storage: { type: "memory" } });
plugin.install(server);
// 2 MB of rows: a filter over them is counted on the package's batch worker threads (S14.6).
server.registerTool("big", { description: "Many rows" }, async () => ({
  content: [],
  structuredContent: {
    rows: Array.from({ length: 20000 }, (_, i) => ({ id: i, n: (i * 7919) % 100, note: "row " + i + " ".repeat(80) })),
  },
}));
server.registerTool(
  "report",
  {
    description: "Every open ticket",
    outputSchema: z.union([z.object({ rows: z.array(ticket) }), foldedAnswerSchema]),
  },
  async () => {
    const report = { rows: Array.from({ length: 200 }, (_, i) => ({ id: "T-" + i, title: "Ticket " + i })) };
    return { content: [{ type: "text", text: JSON.stringify(report) }], structuredContent: report };
  },
);
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
serverSide.sessionId = "scratch-session";
(async () => {
  await server.connect(serverSide);
  const client = new Client({ name: "scratch-client", version: "1.0.0" });
  await client.connect(clientSide);
  const { tools } = await client.listTools();
  const answer = await client.callTool({ name: "report", arguments: {} });
  const handle = answer.structuredContent && answer.structuredContent.handle;
  const slice = await client.callTool({ name: "result_query", arguments: { handle, path: "$.rows[199]" } });
  const big = await client.callTool({ name: "big", arguments: {} });
  const warmed = await plugin.workers.warm(); // the threads loaded (the first filter would not wait for them)
  const filtered = await client.callTool({
    name: "result_query",
    arguments: { handle: big.structuredContent.handle, path: "$.rows[?@.n > 95].id", limit: 3 },
  });
  console.log(JSON.stringify({
    tools: tools.map((tool) => ({ name: tool.name, outputType: tool.outputSchema && tool.outputSchema.type })),
    answerKeys: Object.keys(answer.structuredContent || {}).sort(),
    meta: answer._meta && answer._meta[RESULT_HANDLE_META_KEY],
    slice: slice.structuredContent,
    filtered: filtered.structuredContent,
    warmed,
    workersUsable: plugin.workers.usable, // false had a worker failed (its file missing, say)
  }));
  await client.close();
  await server.close();
})().catch((error) => { console.error(error); process.exit(1); });
`;
const runEsm = flow(`import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { ResultHandlesPlugin, RESULT_HANDLE_META_KEY, foldedAnswerSchema } from "mcp-result-handles";`);
const runCjs = flow(`const { Client } = require("@modelcontextprotocol/client");
const { InMemoryTransport, McpServer } = require("@modelcontextprotocol/server");
const { z } = require("zod");
const { ResultHandlesPlugin, RESULT_HANDLE_META_KEY, foldedAnswerSchema } = require("mcp-result-handles");`);

/** Every `node_modules/zod` folder in the scratch project's tree. */
function zodCopies(dir: string): string[] {
  const found: string[] = [];
  const walk = (modules: string) => {
    if (!existsSync(modules)) return;
    for (const name of readdirSync(modules)) {
      const full = join(modules, name);
      if (name.startsWith("@")) {
        for (const scoped of readdirSync(full)) walk(join(full, scoped, "node_modules"));
        continue;
      }
      if (name === "zod") found.push(full);
      if (statSync(full).isDirectory()) walk(join(full, "node_modules"));
    }
  };
  walk(join(dir, "node_modules"));
  return found;
}

let installed: ScratchProject | undefined;

beforeAll(async () => {
  installed = await scratchProject(
    { "@modelcontextprotocol/client": "2.3.1", "@modelcontextprotocol/server": "2.3.1", zod: "4.3.6" },
    {
      "tsconfig.json": JSON.stringify(tsconfig, null, 2),
      "consumer-esm.mts": consumerEsm,
      "consumer-cjs.cts": consumerCjs,
      "run.mjs": runEsm,
      "run.cjs": runCjs,
    },
  );
  ({ tarball, files: packedFiles, bytes: tarballBytes } = installed.packed);
}, 150_000);

afterAll(() => installed?.dispose());

const project = () => installed!.dir;

describe("S13 the package as users install it", () => {
  it(
    "S13.1 the tarball ships dist with ESM, CommonJS and both declaration " +
      "kinds, a LICENSE, the README's picture, and nothing of ours",
    () => {
      const besideDist = ["LICENSE", "README.md", "docs/flow.svg", "package.json"];
      for (const file of besideDist) expect(packedFiles).toContain(file);
      for (const entry of ["node", "browser", "edge", "frontmcp"]) {
        for (const ext of ["js", "cjs", "d.ts", "d.cts"]) expect(packedFiles).toContain(`dist/${entry}/index.${ext}`);
      }
      expect(packedFiles.filter((file) => !file.startsWith("dist/") && !besideDist.includes(file))).toEqual([]);
      // Lean (S13.1): the build is not minified, so stack traces read well without source maps, which would
      // double the tarball (they carry the sources). 140 KB packed with the edge build (S17.1, whose
      // declarations re-export the node build's rather than copy them); 207 KB with JSONPath, search,
      // references, resources and the hardening of sections 14 to 16 (json-p3 and re2js stay dependencies);
      // 252 KB with lists read batch by batch and wide objects by window (S14.6, S16.4); 360 KB with the
      // result viewer's page (S19: one minified HTML file as a string, shared by every build, read only when served,
      // and the license texts of what it bundles); 20 KB more with section 18 (hints from the answer, notes of
      // empty answers and their watch on the workers, tokenx as a lazy chunk); 405 KB with section 21 and the
      // seal thread (S21.7: pieces sealed while the fold serialises, in every build's store); 10 KB more with the
      // FrontMCP entry (S22.1: its two classes and adapter, its declarations re-exporting the node build's);
      // 475 KB with sections 23 to 26 (host cuts, aggregates, the truths of S25, every call bounded); 499 KB
      // after Prettier's layout and the long texts split into pieces (the unminified build keeps the line breaks
      // and indents of each of its four builds), the reader of S14.6 and the rest of S26; 515 KB with the holds
      // of S26 (a wide object's members read batch by batch, aggregate states merged as they come, the loop's
      // one queue of turns, the Redis lane's watch for silence); 537 KB with the rest of S26's holds (a filter's
      // queries from the root read first, a wide object's member batches counted on the batch workers, its index's cost
      // refusal, references opened once).
      expect(packedFiles.filter((file) => file.endsWith(".map"))).toEqual([]);
      expect(tarballBytes).toBeLessThan(550_000);
    },
  );

  it(
    "S13.3 @arethetypeswrong/cli finds no problem for node10, node16 (ESM and CommonJS) and bundler " + "resolution",
    async () => {
      const attw = join(root, "node_modules", ".bin", "attw");
      const { stdout } = await run(attw, [tarball, "--format", "json"], { cwd: root }).catch(
        (error: { stdout: string }) => error,
      );
      const report = JSON.parse(stdout) as { problems: unknown; analysis: { entrypoints: Record<string, unknown> } };
      expect(Object.keys(report.analysis.entrypoints).sort()).toEqual([
        ".",
        "./browser",
        "./edge",
        "./frontmcp",
        "./node",
        "./package.json",
      ]);
      expect(report.problems).toEqual({});
    },
    60_000,
  );

  it("S13.2 installs beside zod 4.3.6 and SDK 2.3.1 with exactly one zod in the tree", async () => {
    expect(zodCopies(project()).map((dir) => dir.slice(project().length))).toEqual(["/node_modules/zod"]);
    const { stdout } = await run("npm", ["ls", "zod", "@modelcontextprotocol/server", "--all", "--json"], {
      cwd: project(),
      env: cleanEnv,
    });
    expect(JSON.parse(stdout).dependencies["mcp-result-handles"].version).toBe("0.1.0");
  });

  it(
    "S13.3 z.union([myOutput, foldedAnswerSchema]) typechecks as ESM " +
      "import and CommonJS require (node16, skipLibCheck false)",
    async () => {
      const result = await run(process.execPath, [typecheckOurs, "tsconfig.json", "mcp-result-handles"], {
        cwd: project(),
      }).catch((error: { stdout: string }) => ({ stdout: error.stdout, failed: true }));
      expect(result.stdout).toBe("");
    },
    60_000,
  );

  for (const script of ["run.mjs", "run.cjs"]) {
    it(
      `S13.2 ${script}: tools/list lists the union schema and result_query; an answer folds and ` + `reads back`,
      async () => {
        const { stdout } = await run(process.execPath, [script], { cwd: project() });
        const outcome = JSON.parse(stdout);
        expect(outcome.tools.map((tool: { name: string }) => tool.name).sort()).toEqual([
          "big",
          "report",
          "result_query",
        ]);
        expect(outcome.tools.find((tool: { name: string }) => tool.name === "report").outputType).toBe("object");
        expect(outcome.answerKeys).toEqual(["handle", "preview", "shape"]);
        expect(outcome.meta.bytes).toBeGreaterThan(4096);
        expect(outcome.slice).toMatchObject({ path: "$.rows[199]", value: { id: "T-199", title: "Ticket 199" } });
        const selected = Array.from({ length: 20000 }, (_, i) => i).filter((i) => (i * 7919) % 100 > 95);
        expect(outcome.filtered).toMatchObject({ value: selected.slice(0, 3), total: selected.length, nextOffset: 3 });
        expect(outcome.warmed).toBe(true);
        expect(outcome.workersUsable).toBe(true);
      },
      30_000,
    );
  }
});
