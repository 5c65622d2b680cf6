/**
 * The bench in a page: the same cases as in Node, on the page build (bundled by bench/chromium.ts with the
 * package name pointing at dist/browser). Rows go to the console as they finish, so Node prints them live.
 */
import * as api from "mcp-result-handles";
import { memoryFor, runCases, type CaseSpec } from "../measure.js";

declare global {
  interface Window {
    runBench(cases: CaseSpec[]): Promise<unknown>;
  }
}

window.runBench = (cases) =>
  runCases(api, "chromium", cases, (_store, keep) => memoryFor(keep), (row) => console.log(`bench-row ${JSON.stringify(row)}`));
