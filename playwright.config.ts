import { defineConfig } from "@playwright/test";
import { chromiumArgs, chromiumPath } from "./scripts/chromium.js";

// End-to-end tests of the in-page playground (S11.3): a production build of the page served by
// `vite preview` on loopback, driven in the system's Chromium (scripts/chromium.ts).
const port = Number(process.env.E2E_PORT ?? 4173);

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results/e2e",
  timeout: 20_000,
  fullyParallel: false,
  workers: 1, // two cores shared with other suites
  reporter: [["list"], ["json", { outputFile: "test-results/playwright.json" }]],
  use: {
    baseURL: `http://127.0.0.1:${port}/`,
    browserName: "chromium",
    launchOptions: { executablePath: chromiumPath, args: chromiumArgs },
    viewport: { width: 1360, height: 900 },
    trace: "off",
  },
  webServer: {
    // E2E_PREBUILT: the page is built already (npm test builds it beside the Vitest files).
    command:
      `${process.env.E2E_PREBUILT ? "" : "npm run playground:build --silent && "}` +
      `vite preview --config playground/page/vite.config.ts --port ${port} --strictPort`,
    url: `http://127.0.0.1:${port}/`,
    timeout: 60_000,
    reuseExistingServer: false,
    stdout: "ignore",
    stderr: "pipe",
  },
});
