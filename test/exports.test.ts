// The package as users install it: the exports map, both module formats, and what the page build pulls in.
import { readFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
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
    for (const match of code.matchAll(/(?:import|export)\s*(?:[^"'`]*?from\s*)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|require\(\s*["']([^"']+)["']\s*\)/g)) {
      const specifier = match[1] ?? match[2] ?? match[3]!;
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier));
      else specifiers.add(specifier);
    }
  };
  visit(join(root, entry));
  return specifiers;
}

describe("package exports", () => {
  it("puts the browser condition first for '.', so bundlers for pages pick the page build", () => {
    expect(Object.keys(pkg.exports["."])[0]).toBe("browser");
    expect(pkg.sideEffects).toBe(false);
    expect(pkg.engines.node).toBe(">=20");
  });

  it("serves the same API from ESM and CommonJS, in both builds", async () => {
    const esmNode = await import("mcp-result-handles");
    const esmBrowser = await import("mcp-result-handles/browser");
    const cjsNode = require("mcp-result-handles");
    const cjsBrowser = require("mcp-result-handles/browser");
    const names = Object.keys(esmNode).sort();
    for (const module of [esmBrowser, cjsNode, cjsBrowser]) expect(Object.keys(module).sort()).toEqual(names);
    expect(esmNode.default).toBe(esmNode.ResultHandlesPlugin);
    for (const name of ["ResultHandlesPlugin", "foldedAnswerSchema", "createResultHandleStore", "ResultHandleStore", "ResultQueryTool", "ResultHandleStoreToken", "ResultHandlesConfigToken", "BrowserStoreUnavailableError", "ResultHandlesConfigurationError", "ResultQueryError", "RESULT_HANDLE_META_KEY", "RESULT_QUERY_TOOL_NAME", "DEFAULT_MEMORY_MAX_ENTRIES", "MIN_THRESHOLD_BYTES"]) {
      expect(names).toContain(name);
    }
  });

  it("ships declaration files for every entry and format", () => {
    for (const entry of ["node", "browser"]) for (const file of ["index.d.ts", "index.d.cts"]) expect(readFileSync(join(root, "dist", entry, file), "utf8")).toContain("ResultHandlesPlugin");
  });

  it("the page build pulls in no Node module and no server-store client", () => {
    const nodeOnly = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`), "ioredis", "better-sqlite3", "@upstash/redis"]);
    for (const entry of ["dist/browser/index.js", "dist/browser/index.cjs"]) {
      const imported = [...importGraph(entry)];
      expect(imported.filter((specifier) => nodeOnly.has(specifier) || specifier.startsWith("node:"))).toEqual([]);
      expect(imported).toEqual(["zod"]);
    }
  });
});
