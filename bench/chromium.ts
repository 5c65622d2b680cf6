/**
 * Runs cases in Chromium: bundles bench/page/main.ts with Vite against the built page entry
 * (dist/browser), serves it on loopback, and drives the system's Chromium through Playwright with the
 * project's network-free flags (scripts/chromium.ts). Everything started here is stopped here.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright";
import { build } from "vite";
import { chromiumArgs, chromiumPath } from "../scripts/chromium.js";
import type { CaseResult, CaseSpec } from "./measure.js";
import type { QueryPartResult } from "./query.js";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Runs `cases`, then, when `queries` is given, the query part (bench/query.ts) on the page's memory store. */
export async function runInChromium(
  cases: readonly CaseSpec[],
  report: (row: CaseResult) => void,
  queries?: { bytes: number; rounds: number; report: (row: QueryPartResult) => void },
): Promise<{ version: string; results: CaseResult[]; queries: QueryPartResult[] }> {
  const outDir = mkdtempSync(join(tmpdir(), "result-handles-bench-page-"));
  try {
    await build({
      configFile: false,
      logLevel: "warn",
      resolve: { alias: [{ find: /^mcp-result-handles$/, replacement: join(root, "dist/browser/index.js") }] },
      build: {
        outDir,
        emptyOutDir: true,
        minify: false,
        target: "es2022",
        lib: { entry: join(root, "bench/page/main.ts"), formats: ["es"], fileName: () => "bench.js" },
      },
    });
    // The bundle and what Vite emitted beside it (the batch worker, S14.6), from memory.
    const files = new Map(
      readdirSync(outDir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => {
          const path = join(entry.parentPath, entry.name);
          return [`/${relative(outDir, path).split(sep).join("/")}` as string, readFileSync(path)] as const;
        }),
    );
    // Cross-origin isolated, so performance.now() has microseconds, not Chromium's 0.1 ms steps.
    const isolated = { "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp" };
    const http = createServer((request, response) => {
      const file = files.get(request.url ?? "");
      if (file) response.writeHead(200, { "content-type": "text/javascript", ...isolated }).end(file);
      else
        response
          .writeHead(200, { "content-type": "text/html", ...isolated })
          .end('<!doctype html><script type="module" src="/bench.js"></script>');
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs, headless: true });
    try {
      const page = await browser.newPage();
      page.on("console", (message) => {
        const text = message.text();
        if (text.startsWith("bench-row ")) report(JSON.parse(text.slice("bench-row ".length)) as CaseResult);
        else if (text.startsWith("bench-query "))
          queries?.report(JSON.parse(text.slice("bench-query ".length)) as QueryPartResult);
        else if (message.type() === "error" || message.type() === "warning") console.error(`[page] ${text}`);
      });
      page.on("pageerror", (error) => console.error(`[page] ${error.message}`));
      await page.goto(`http://127.0.0.1:${(http.address() as AddressInfo).port}/`);
      await page.waitForFunction(() => typeof window.runBench === "function");
      if (!(await page.evaluate(() => window.crossOriginIsolated)))
        console.error("[page] not cross-origin isolated: timer resolution is 0.1 ms");
      const results = cases.length
        ? ((await page.evaluate((list) => window.runBench(list), cases as CaseSpec[])) as CaseResult[])
        : [];
      const options = queries && { bytes: queries.bytes, rounds: queries.rounds };
      // BENCH_CPUPROFILE=<file> writes the page's CPU profile of the query part (for finding where time goes).
      const profile = process.env.BENCH_CPUPROFILE && options ? await page.context().newCDPSession(page) : undefined;
      if (profile) await profile.send("Profiler.enable").then(() => profile.send("Profiler.start"));
      const queryRows = options
        ? ((await page.evaluate((o) => window.runQueries(o), options)) as QueryPartResult[])
        : [];
      if (profile)
        writeFileSync(process.env.BENCH_CPUPROFILE!, JSON.stringify((await profile.send("Profiler.stop")).profile));
      return { version: browser.version(), results, queries: queryRows };
    } finally {
      await browser.close();
      await new Promise((resolve) => http.close(resolve));
    }
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}
