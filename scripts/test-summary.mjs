// Prints one plain line, "N passed, N failed", totalled over every suite of the last `vitest run`.
import { existsSync, readFileSync } from "node:fs";

const file = "test-results/vitest.json";
if (!existsSync(file)) {
  console.log("0 passed, 1 failed");
  process.exit(1);
}
const report = JSON.parse(readFileSync(file, "utf8"));
const failed = report.numFailedTests + (report.numFailedTestSuites ?? 0);
console.log(`${report.numPassedTests} passed, ${failed} failed`);
process.exit(failed === 0 && report.numPassedTests > 0 ? 0 : 1);
