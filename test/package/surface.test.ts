// The public surface (S2, S13): every name each built entry exports, values and types, listed here in full, as
// the MCP SDK pins its barrel. A name added, removed or renamed anywhere behind an entry fails this file: change
// the list below in the same commit, on purpose, and say so in the docs (docs/design.md section 2, docs/api).
// Needs dist/ (npm test builds first).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const require = createRequire(import.meta.url);

/** The values every entry exports at run time (S2: the same names in every build). */
const VALUES = [
  "BrowserStoreUnavailableError",
  "DEFAULT_MEMORY_MAX_ENTRIES",
  "EdgeStoreUnavailableError",
  "MIN_THRESHOLD_BYTES",
  "MemoryStorage",
  "RESULT_HANDLE_META_KEY",
  "RESULT_QUERY_TOOL_NAME",
  "RESULT_VIEW_TOOL_NAME",
  "ResultHandleStore",
  "ResultHandleStoreToken",
  "ResultHandlesConfigToken",
  "ResultHandlesConfigurationError",
  "ResultHandlesError",
  "ResultHandlesPlugin",
  "ResultHandlesPluginCore",
  "ResultQueryError",
  "ResultQueryTool",
  "StorageClientMissingError",
  "StoreTimeoutError",
  "UnsupportedMcpServerError",
  "VIEWER_RESOURCE_URI",
  "WebMcpUnavailableError",
  "createResultHandleStore",
  "default",
  "defaultOwner",
  "findModelContext",
  "foldToolResult",
  "foldedAnswerSchema",
  "installOnMcpServer",
  "installOnWebMcp",
  "loadViewerHtml",
  "pageLoadOwner",
];

/** The names every entry's declarations export as types only (a class is a value, listed above). */
const TYPES = [
  "ConfigurationIssue",
  "ContentBlock",
  "CreateResultHandleStoreOptions",
  "FoldContext",
  "FoldInput",
  "FoldPolicy",
  "FoldPolicyContext",
  "FoldedAnswer",
  "HandleSource",
  "HostLimit",
  "HostLimitOption",
  "Logger",
  "McpHostOptions",
  "McpRequestContextLike",
  "McpServerLike",
  "MemoryStorageOptions",
  "ModelContextLike",
  "NamespacedStorage",
  "OptionsRuntime",
  "Owner",
  "OwnerOf",
  "OwnerResolver",
  "PluginInstance",
  "QueryArguments",
  "QueryResult",
  "ResolvedStorageConfig",
  "ResultHandlesConfig",
  "ResultHandlesErrorCode",
  "ResultHandlesOptions",
  "ResultQueryErrorCode",
  "Runtime",
  "Shape",
  "StandardSchemaLike",
  "StorageConfig",
  "StorageType",
  "ToolResult",
  "ViewerOption",
  "WebMcpHost",
  "WebMcpHostOptions",
  "WebMcpRegisterOptions",
  "WebMcpTool",
];

/** The FrontMCP entry (S22.1): the Node build's names, its plugin, tool and store being FrontMCP classes. */
const SURFACES: Record<string, { values: string[]; types: string[] }> = {
  node: { values: VALUES, types: TYPES },
  browser: { values: VALUES, types: TYPES },
  edge: { values: VALUES, types: TYPES },
  frontmcp: { values: VALUES, types: TYPES },
};

const sorted = (names: Iterable<string>) => [...names].sort();

/** What each declaration file exports, split into values and types-only by TypeScript itself. */
function declaredNames(): Map<string, { values: string[]; types: string[] }> {
  const files = Object.keys(SURFACES).flatMap((entry) =>
    ["index.d.ts", "index.d.cts"].map((file) => join(root, "dist", entry, file)),
  );
  const program = ts.createProgram(files, {
    noEmit: true,
    skipLibCheck: true,
    types: [],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
  });
  const checker = program.getTypeChecker();
  const declared = new Map<string, { values: string[]; types: string[] }>();
  for (const file of files) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
    const values: string[] = [];
    const types: string[] = [];
    for (const symbol of checker.getExportsOfModule(module)) {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      (target.flags & ts.SymbolFlags.Value ? values : types).push(symbol.name);
    }
    declared.set(file, { values: sorted(values), types: sorted(types) });
  }
  return declared;
}

describe("the public surface, pinned (S2)", () => {
  it("each built entry exports exactly the listed values, from ESM and CommonJS", async () => {
    for (const entry of ["node", "browser", "edge"]) {
      const esm = await import(pathToFileURL(join(root, "dist", entry, "index.js")).href);
      const cjs = require(join(root, "dist", entry, "index.cjs"));
      expect({ entry, esm: sorted(Object.keys(esm)) }).toEqual({ entry, esm: SURFACES[entry]!.values });
      expect({ entry, cjs: sorted(Object.keys(cjs)) }).toEqual({ entry, cjs: SURFACES[entry]!.values });
    }
  });

  it("the FrontMCP entry's built files export exactly the listed values", () => {
    // It imports @frontmcp/sdk (an optional peer, not installed here; test/frontmcp runs it with FrontMCP):
    // its names are read from the export statement of the ESM file and the assignments of the CommonJS one.
    const esm = readFileSync(join(root, "dist", "frontmcp", "index.js"), "utf8");
    const cjs = readFileSync(join(root, "dist", "frontmcp", "index.cjs"), "utf8");
    const statements = [...esm.matchAll(/^export \{([^}]*)\};?$/gm)];
    expect(statements).toHaveLength(1);
    const esmNames = statements[0]![1]!.split(",").map((part) =>
      part
        .trim()
        .split(/\s+as\s+/)
        .at(-1)!,
    );
    const cjsNames = [...cjs.matchAll(/^exports\.([A-Za-z_$][\w$]*) = /gm)].map((match) => match[1]!);
    expect(esm).not.toMatch(/^export \* from/m);
    expect(sorted(esmNames)).toEqual(SURFACES.frontmcp!.values);
    expect(sorted(new Set(cjsNames))).toEqual(SURFACES.frontmcp!.values);
  });

  it("each entry's declarations (ESM and CommonJS) export exactly the listed values and types", () => {
    const declared = declaredNames();
    for (const [entry, surface] of Object.entries(SURFACES))
      for (const file of ["index.d.ts", "index.d.cts"])
        expect({ file: `${entry}/${file}`, ...declared.get(join(root, "dist", entry, file)) }).toEqual({
          file: `${entry}/${file}`,
          ...surface,
        });
  });
});
