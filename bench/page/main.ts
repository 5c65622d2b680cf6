/**
 * The bench in a page: the same cases as in Node, on the page build (bundled by bench/chromium.ts with the
 * package name pointing at dist/browser). Rows go to the console as they finish, so Node prints them live.
 */
import * as api from "mcp-result-handles";
import { memoryFor, runCases, type CaseSpec } from "../measure.js";
import { runQueryPart } from "../query.js";

declare global {
  interface Window {
    runBench(cases: CaseSpec[]): Promise<unknown>;
    runQueries(options: { bytes: number; rounds: number }): Promise<unknown>;
  }
}

// The query part on the memory store (a page has no heap measure: memory is left unmeasured here).
window.runQueries = (options) =>
  runQueryPart(
    api,
    "chromium",
    ["memory"],
    (_store, keep) => memoryFor(keep),
    options,
    (row) => console.log(`bench-query ${JSON.stringify(row)}`),
  );

window.runBench = (cases) =>
  runCases(
    api,
    "chromium",
    cases,
    (_store, keep) => memoryFor(keep),
    (row) => console.log(`bench-row ${JSON.stringify(row)}`),
  );
