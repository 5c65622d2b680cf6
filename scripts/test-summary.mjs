// Prints one plain line, "N passed, N failed", totalled over every suite of the last `npm test`: the
// Vitest projects, the Playwright end-to-end tests when they ran after them, and the tarball test under
// other Node releases (scripts/test-other-nodes.sh, test-results/vitest-node<N>.json) when it ran after them.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";

const file = "test-results/vitest.json";
if (!existsSync(file)) {
  console.log("0 passed, 1 failed");
  process.exit(1);
}
const report = JSON.parse(readFileSync(file, "utf8"));
let passed = report.numPassedTests;
let failed = report.numFailedTests + (report.numFailedTestSuites ?? 0);
const e2e = "test-results/playwright.json";
if (existsSync(e2e) && statSync(e2e).mtimeMs >= statSync(file).mtimeMs) {
  const { stats } = JSON.parse(readFileSync(e2e, "utf8"));
  passed += stats.expected;
  failed += stats.unexpected + stats.flaky;
}
for (const name of readdirSync("test-results").filter((name) => /^vitest-node\d+\.json$/.test(name))) {
  const other = `test-results/${name}`;
  if (statSync(other).mtimeMs < statSync(file).mtimeMs) continue; // from an earlier run
  const run = JSON.parse(readFileSync(other, "utf8"));
  passed += run.numPassedTests;
  failed += run.numFailedTests + (run.numFailedTestSuites ?? 0);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
