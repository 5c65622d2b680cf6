// S17.1 Deno 2 and Bun 1 (their npm packages ship the binaries) run the README's stdio server as written
// (S17.4: extracted from README.md), with the package installed from its tarball; an MCP SDK v1 client (what
// most desktop clients and the MCP Inspector use) drives it over stdio: the large answer folds and reads back.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, root, scratchProject, type ScratchProject } from "../helpers/packed-package.js";
import { docBlock } from "../helpers/doc-blocks.js";

const run = promisify(execFile);
const env = () =>
  ({ ...cleanEnv, DENO_DIR: join(project!.dir, ".deno"), DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" }) as Record<
    string,
    string
  >;
type Result = { structuredContent?: Record<string, unknown>; _meta?: Record<string, unknown>; isError?: boolean };

let project: ScratchProject | undefined;
beforeAll(async () => {
  project = await scratchProject(
    { "@modelcontextprotocol/server": "2.4.0", zod: "4.6.7" },
    {
      "stdio-server.ts": docBlock("README.md", "A stdio server"),
      "which-build.mjs": 'console.log(import.meta.resolve("mcp-result-handles"));\n',
    },
    "runtimes",
  );
}, 120_000);
afterAll(() => project?.dispose());

const runtimes = {
  // Deno reads the project's package.json and node_modules (npm's install) by itself; -A: the SDK reads env.
  "Deno 2": { bin: join(root, "node_modules", ".bin", "deno"), run: ["run", "-A"], major: /^deno 2\./ },
  "Bun 1": { bin: join(root, "node_modules", ".bin", "bun"), run: [], major: /^1\./ },
};

for (const [name, runtime] of Object.entries(runtimes)) {
  describe(`S17.1 ${name}: the README's stdio server from the installed tarball`, () => {
    let client: Client;
    let stderr = "";

    beforeAll(async () => {
      const { stdout } = await run(runtime.bin, ["--version"], { env: cleanEnv });
      expect(stdout.trim()).toMatch(runtime.major);
      const transport = new StdioClientTransport({
        command: runtime.bin,
        args: [...runtime.run, "stdio-server.ts"],
        cwd: project!.dir,
        env: env(),
        stderr: "pipe",
      });
      transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      client = new Client({ name: `${name} test`, version: "1.0.0" });
      await client.connect(transport);
    }, 60_000);

    afterAll(async () => {
      await client?.close();
    });

    it("resolves the package to its Node build (the `node` condition, before `default`)", async () => {
      const { stdout } = await run(runtime.bin, [...runtime.run, "which-build.mjs"], { cwd: project!.dir, env: env() });
      expect(stdout.trim()).toMatch(/\/node_modules\/mcp-result-handles\/dist\/node\/index\.js$/);
    });

    it(
      "lists tickets and result_query; the large answer folds and a slice reads back over the same " + "connection",
      async () => {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name).sort()).toEqual(["result_query", "tickets"]);
        const answer = (await client.callTool({ name: "tickets", arguments: {} })) as Result;
        expect(Object.keys(answer.structuredContent ?? {}).sort(), stderr).toEqual(["handle", "preview", "shape"]);
        expect(answer._meta?.["frontmcp/result-handle"]).toMatchObject({ bytes: 6990, ttlSeconds: 600 });
        const handle = answer.structuredContent!.handle;
        const slice = (await client.callTool({
          name: "result_query",
          arguments: { handle, path: "$.rows[-1]" },
        })) as Result;
        expect(slice.structuredContent).toMatchObject({
          path: "$.rows[199]",
          value: { id: "T-199", title: "Ticket 199" },
        });
        const page = (await client.callTool({
          name: "result_query",
          arguments: { handle, path: "$.rows", page: 3, limit: 50, fields: ["id"] },
        })) as Result;
        expect(page.structuredContent).toMatchObject({ total: 200, offset: 100, nextOffset: 150 });
        expect((page.structuredContent!.value as unknown[])[0]).toEqual({ id: "T-100" });
      },
      30_000,
    );

    it("a refusal reaches the v1 client as a coded isError result", async () => {
      const refused = (await client.callTool({
        name: "result_query",
        arguments: { handle: "00000000-0000-4000-8000-000000000000" },
      })) as Result;
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({ error: { code: "RESULT_HANDLE_NOT_FOUND" } });
    });
  });
}
