// S9.5: Node clients load on first use; a missing one is a coded error naming the package and the install command.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ResultHandlesError, StorageClientMissingError } from "mcp-result-handles";
import { loadClient } from "../../src/storage/load-client.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

describe("S9.5 lazy client loading", () => {
  it("a package that is not installed gives STORAGE_UNAVAILABLE with the npm install command", async () => {
    const error = await loadClient(
      "not-installed-client-7f3a",
      "redis",
      () => import("not-installed-client-7f3a" as string),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageClientMissingError);
    expect(error).toBeInstanceOf(ResultHandlesError);
    expect((error as StorageClientMissingError).code).toBe("STORAGE_UNAVAILABLE");
    expect((error as Error).message).toContain('"redis"');
    expect((error as Error).message).toContain("npm install not-installed-client-7f3a");
  });

  it("any other failure of the import passes through as it is", async () => {
    const broken = new Error("native module failed to initialise");
    await expect(loadClient("ioredis", "redis", () => Promise.reject(broken))).rejects.toBe(broken);
  });

  /**
   * Runs `body` in a fresh Node process whose module resolution records every import of a store client,
   * ESM or CommonJS (`require.cache` alone would miss @upstash/redis, which loads as ESM), and returns them.
   */
  function clientsImportedBy(body: string): string[] {
    const log = join(mkdtempSync(join(tmpdir(), "result-handles-imports-")), "imports.log");
    writeFileSync(log, "");
    const hooks = `import { appendFileSync } from "node:fs";
      export async function resolve(specifier, context, next) {
        if (/^(ioredis|better-sqlite3|@upstash\\/redis)$/.test(specifier))
          appendFileSync(${JSON.stringify(log)}, specifier + "\\n");
        return next(specifier, context);
      }`;
    const script = `
      import { register } from "node:module";
      register("data:text/javascript," + encodeURIComponent(${JSON.stringify(hooks)}));
      ${body}`;
    const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: root,
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    return [...new Set(readFileSync(log, "utf8").split("\n").filter(Boolean))].sort();
  }

  it("init and install load no client: a plugin configured for every server store imports none of them", () => {
    const imported = clientsImportedBy(`
      const { ResultHandlesPlugin } = await import("mcp-result-handles");
      const { McpServer } = await import("@modelcontextprotocol/server");
      for (const storage of [
        { type: "redis", redis: { url: "redis://127.0.0.1:1" } },
        { type: "sqlite", sqlite: { path: "/nonexistent-dir/x.sqlite" } },
        { type: "upstash", upstash: { url: "http://127.0.0.1:1", token: "t" } },
      ]) ResultHandlesPlugin.init({ storage }).install(new McpServer({ name: "t", version: "1" }));`);
    expect(imported).toEqual([]);
  });

  it("the control: the same check sees each client, ESM or CommonJS, once it is imported", () => {
    const imported = clientsImportedBy(`
      await import("@upstash/redis");
      await import("ioredis");
      await import("better-sqlite3");`);
    expect(imported).toEqual(["@upstash/redis", "better-sqlite3", "ioredis"]);
  });
});
