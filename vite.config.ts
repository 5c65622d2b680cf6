import { defineConfig, type Plugin } from "vite";

/**
 * The page build starts its batch worker as `new Worker(new URL("./batch-worker.js", import.meta.url))`
 * (src/runtimes/browser/batch-workers.ts): the form the page's own bundler recognises, to bundle the worker file
 * with its imports. This library build must leave that line as written, so Vite's two plugins for that
 * form (which would bundle the worker into an asset, or inline its source) are taken out here.
 */
const keepWorkerUrls: Plugin = {
  name: "keep-worker-urls",
  configResolved(config) {
    const plugins = config.plugins as Plugin[];
    for (const name of ["vite:worker-import-meta-url", "vite:asset-import-meta-url"]) {
      const at = plugins.findIndex((plugin) => plugin.name === name);
      if (at >= 0) plugins.splice(at, 1);
    }
  },
};

/** Library build: one ESM and one CJS file per runtime entry; dependencies stay external. */
export default defineConfig({
  plugins: [keepWorkerUrls],
  build: {
    target: "es2022",
    minify: false,
    sourcemap: false, // unminified output reads well in a stack trace; maps would double the tarball (S13.1)
    emptyOutDir: true,
    lib: {
      // Each build's batch worker (S14.6) is a file of its own, started by URL next to the entry.
      entry: {
        "node/index": "src/runtimes/node/index.ts",
        "node/batch-worker": "src/runtimes/node/batch-worker.ts",
        "browser/index": "src/runtimes/browser/index.ts",
        "browser/batch-worker": "src/runtimes/browser/batch-worker.ts",
        "edge/index": "src/runtimes/edge/index.ts",
        "frontmcp/index": "src/frontmcp/index.ts",
      },
      formats: ["es", "cjs"],
      fileName: (format, entryName) => `${entryName}.${format === "es" ? "js" : "cjs"}`,
    },
    rolldownOptions: {
      // node:* must stay external: library mode would silently replace them with empty stubs. The MCP Apps
      // server helpers (S19.1; 0.5 KB, no imports) are carried inside, so users need not install ext-apps.
      // The viewer's page (dist/viewer/, built after this) stays one file that every build imports lazily.
      external: [
        /\/dist\/viewer\/viewer-html\.js$/,
        /^node:/,
        /^@frontmcp\//,
        /^zod(\/|$)/,
        /^@modelcontextprotocol\/(?!ext-apps\/server$)/,
        "ioredis",
        "better-sqlite3",
        /^@upstash\//,
        "idb-keyval",
        "json-p3",
        "re2js",
        "tokenx",
      ],
      output: { exports: "named" },
      // The CommonJS build has no import.meta: the one use (node/batch-workers.ts) asks for __filename first.
      checks: { emptyImportMeta: false },
    },
  },
});
