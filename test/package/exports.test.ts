// The package as users install it: the exports map, both module formats, and what the page build pulls in.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const require = createRequire(import.meta.url);

/** Every module specifier a built file and the package-local files it imports pull in. */
function importGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const specifiers = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = readFileSync(file, "utf8");
    for (const match of code.matchAll(
      /(?:import|export)\s*(?:[^"'`]*?from\s*)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|require\(\s*["']([^"']+)["']\s*\)/g,
    )) {
      const specifier = match[1] ?? match[2] ?? match[3]!;
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier));
      else specifiers.add(specifier);
    }
  };
  visit(join(root, entry));
  return specifiers;
}

/** The package-local files a built file imports, directly or not, relative to the root. */
function localChunks(entry: string): string[] {
  const found = new Set<string>();
  const visit = (file: string) => {
    for (const match of readFileSync(join(root, file), "utf8").matchAll(
      /(?:from\s*|import\(\s*|require\(\s*)["'](\.[^"']+)["']/g,
    )) {
      const next = join(dirname(file), match[1]!);
      if (!found.has(next)) (found.add(next), visit(next));
    }
  };
  visit(entry);
  return [...found];
}

describe("package exports", () => {
  it(
    "S17.1 puts the edge conditions first for '.', then browser, so Wrangler (workerd, " +
      "worker, browser) takes the edge build and bundlers for pages the page build",
    () => {
      expect(Object.keys(pkg.exports["."]).slice(0, 4)).toEqual(["workerd", "worker", "edge-light", "browser"]);
      expect(pkg.sideEffects).toBe(false);
      expect(pkg.engines.node).toBe(">=20");
    },
  );

  it("serves the same API from ESM and CommonJS, in both builds", async () => {
    const esmNode = await import("mcp-result-handles");
    const esmBrowser = await import("mcp-result-handles/browser");
    const cjsNode = require("mcp-result-handles");
    const cjsBrowser = require("mcp-result-handles/browser");
    const names = Object.keys(esmNode).sort();
    for (const module of [esmBrowser, cjsNode, cjsBrowser]) expect(Object.keys(module).sort()).toEqual(names);
    expect(esmNode.default).toBe(esmNode.ResultHandlesPlugin);
    for (const name of [
      "ResultHandlesPlugin",
      "foldedAnswerSchema",
      "createResultHandleStore",
      "ResultHandleStore",
      "ResultQueryTool",
      "ResultHandleStoreToken",
      "ResultHandlesConfigToken",
      "BrowserStoreUnavailableError",
      "ResultHandlesConfigurationError",
      "ResultQueryError",
      "RESULT_HANDLE_META_KEY",
      "RESULT_QUERY_TOOL_NAME",
      "DEFAULT_MEMORY_MAX_ENTRIES",
      "MIN_THRESHOLD_BYTES",
    ]) {
      expect(names).toContain(name);
    }
  });

  it("ships declaration files for every entry and format", () => {
    for (const entry of ["node", "browser"])
      for (const file of ["index.d.ts", "index.d.cts"])
        expect(readFileSync(join(root, "dist", entry, file), "utf8")).toContain("ResultHandlesPlugin");
  });

  it("S9.5 the page build pulls in no Node module and no server-store client", () => {
    const serverClients = ["ioredis", "better-sqlite3", "@upstash/redis"];
    const nodeOnly = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`), ...serverClients]);
    for (const entry of ["dist/browser/index.js", "dist/browser/index.cjs"]) {
      const imported = [...importGraph(entry)];
      expect(imported.filter((specifier) => nodeOnly.has(specifier) || specifier.startsWith("node:"))).toEqual([]);
      // JSONPath and its regex engine are dependencies (S14.1, S14.3), and so is tokenx, imported only by a
      // plugin with thresholdTokens (S18.6).
      expect(imported.sort()).toEqual(["idb-keyval", "json-p3", "re2js", "tokenx", "zod"]);
      // Not even the adapters' code: no client name appears anywhere in the page build.
      const code = readFileSync(join(root, entry), "utf8");
      for (const name of serverClients) expect(code).not.toContain(name);
    }
  });

  it("S9.5 the Node build keeps the server-store clients external, loaded by import() on first use only", () => {
    for (const entry of ["dist/node/index.js", "dist/node/index.cjs"]) {
      // The entry and the chunks it shares with the edge build (the Upstash adapter runs in both, S17.1).
      const code = [entry, ...localChunks(entry)].map((file) => readFileSync(join(root, file), "utf8")).join("\n");
      for (const name of ["ioredis", "better-sqlite3", "@upstash/redis"]) {
        expect(code).toContain(`import("${name}")`);
        expect(code).not.toContain(`from "${name}"`);
        expect(code).not.toContain(`require("${name}")`);
      }
    }
  });

  it("S9.5 a store opened through the CommonJS build loads its client (SQLite on a temporary file)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "result-handles-cjs-"));
    try {
      const { createResultHandleStore } = require("mcp-result-handles");
      const store = await createResultHandleStore({
        storage: { type: "sqlite", sqlite: { path: join(dir, "cjs.sqlite") } },
        namespace: "cjs",
        ttlSeconds: 30,
      });
      const handle = store.newHandle();
      await store.save(handle, { cjs: true }, { caller: "c" });
      expect(await store.read(handle, { caller: "c" })).toEqual({ value: { cjs: true } });
      await store.onShutdown();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
