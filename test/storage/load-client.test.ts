// S9.5: Node clients load on first use; a missing one is a coded error naming the package and the install command.
import { spawnSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ResultHandlesError, StorageClientMissingError } from "mcp-result-handles";
import { loadClient } from "../../src/storage/load-client.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

describe("S9.5 lazy client loading", () => {
  it("a package that is not installed gives STORAGE_UNAVAILABLE with the npm install command", async () => {
    const error = await loadClient("not-installed-client-7f3a", "redis", () => import("not-installed-client-7f3a" as string)).catch((e: unknown) => e);
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

  it("init and install load no client: a plugin configured for every server store imports none of them", () => {
    const script = `
      import { ResultHandlesPlugin } from "mcp-result-handles";
      import { McpServer } from "@modelcontextprotocol/server";
      for (const storage of [
        { type: "redis", redis: { url: "redis://127.0.0.1:1" } },
        { type: "sqlite", sqlite: { path: "/nonexistent-dir/x.sqlite" } },
        { type: "upstash", upstash: { url: "http://127.0.0.1:1", token: "t" } },
      ]) ResultHandlesPlugin.init({ storage }).install(new McpServer({ name: "t", version: "1" }));
      const { createRequire } = await import("node:module");
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => /node_modules[\\\\/](ioredis|better-sqlite3|@upstash)[\\\\/]/.test(f));
      console.log(JSON.stringify(loaded));`;
    const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: root, encoding: "utf8", timeout: 30_000 });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual([]);
  });
});
