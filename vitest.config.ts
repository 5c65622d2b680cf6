import { playwright } from "@vitest/browser-playwright";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { chromiumArgs, chromiumPath } from "./scripts/chromium.js";
import { LongestFirst } from "./scripts/test-order.js";

// Tests import the package by its name; they run the sources of the matching build, never a stale dist/.
const entry = (runtime: "node" | "browser") => ({
  find: /^mcp-result-handles$/,
  replacement: fileURLToPath(new URL(`./src/runtimes/${runtime}/index.ts`, import.meta.url)),
});

export default defineConfig({
  test: {
    reporters: ["default", "json"],
    // Most files wait on something else (redis-server, child processes, npm, Chromium), so two Node files
    // run at once even on two cores (npm test runs the "node" project three at a time: scripts/test.sh);
    // each starts what it uses on ports it is given free, in stores of its own.
    maxWorkers: 2,
    outputFile: { json: "test-results/vitest.json" },
    // Longest files first, in a fresh clone too (scripts/test-order.ts).
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        resolve: { alias: [entry("node")] },
        test: {
          name: "node",
          environment: "node",
          include: ["test/**/*.test.ts"],
          exclude: ["test/browser/**", "test/**/*.browser.test.ts", "test/**/*.attack.test.ts", "test/bench/**"],
          testTimeout: 20_000,
          // One module graph per worker, not per file: the package, the SDK and zod load twice per run, not
          // once per file (35 s of imports). No file here changes a module's state without putting it back,
          // and a file that builds a large fixture once lets it go in afterAll: the worker keeps its module.
          isolate: false,
        },
      },
      {
        // The long runs, `npm run test:soak`, which CI runs after `npm test`: the seeded random and
        // run-of-windows tests in full, and the long loops of queries on every store (helpers/soak.ts; the
        // "node" project runs the same files on a smaller sample), and the bench's own quick run (test/bench:
        // that it runs and writes what the docs read).
        resolve: { alias: [entry("node")] },
        test: {
          name: "soak",
          environment: "node",
          include: [
            "test/query/over-lists/differential.test.ts",
            "test/query/over-lists/every-store.test.ts",
            "test/query/aggregate/oracle.test.ts",
            "test/query/search/wide-objects.test.ts",
            "test/records/read/wide-objects.test.ts",
            "test/bench/**/*.test.ts",
          ],
          env: { SOAK: "1" },
          testTimeout: 60_000,
        },
      },
      {
        // S16's attacks time the server and a bystander (event loop stalls, answers within a bound): they run
        // one file at a time, after the other Node files, so no test of ours shares the CPU with them.
        resolve: { alias: [entry("node")] },
        test: {
          name: "attacks",
          environment: "node",
          include: ["test/**/*.attack.test.ts"],
          fileParallelism: false,
          isolate: false, // as "node": one module graph for the run
          testTimeout: 20_000,
        },
      },
      {
        // Pre-bundled up front, so Vite does not reload the page mid-run when it first meets them.
        resolve: { alias: [entry("browser")] },
        optimizeDeps: { include: ["@modelcontextprotocol/client", "@modelcontextprotocol/server", "zod"] },
        test: {
          name: "browser",
          include: ["test/**/*.shared.test.ts", "test/**/*.browser.test.ts", "test/browser/**/*.test.ts"],
          testTimeout: 20_000,
          browser: {
            enabled: true,
            headless: true,
            screenshotFailures: false,
            // One page at a time, as before: pages of one origin share IndexedDB.
            fileParallelism: false,
            provider: playwright({ launchOptions: { executablePath: chromiumPath, args: chromiumArgs } }),
            instances: [{ browser: "chromium" }],
          },
        },
      },
    ],
  },
});
