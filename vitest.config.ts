import { playwright } from "@vitest/browser-playwright";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Tests import the package by its name; they run the sources of the matching build, never a stale dist/.
const entry = (runtime: "node" | "browser") => ({
  find: /^mcp-result-handles$/,
  replacement: fileURLToPath(new URL(`./src/${runtime}/index.ts`, import.meta.url)),
});

// The system's Chromium (Debian's package; CHROMIUM_PATH overrides it): Playwright's own browser download
// is not reachable on the machines this project is built on.
const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const chromiumArgs = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
];

export default defineConfig({
  test: {
    reporters: ["default", "json"],
    outputFile: { json: "test-results/vitest.json" },
    projects: [
      {
        resolve: { alias: [entry("node")] },
        test: {
          name: "node",
          environment: "node",
          include: ["test/**/*.test.ts"],
          exclude: ["test/browser/**", "test/**/*.browser.test.ts"],
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
            provider: playwright({ launchOptions: { executablePath, args: chromiumArgs } }),
            instances: [{ browser: "chromium" }],
          },
        },
      },
    ],
  },
});
