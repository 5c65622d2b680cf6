// Prints one plain line, "N passed, N failed", totalled over every report the last `npm test` and the steps
// after it wrote (newer than test-results/.started, which scripts/test.sh touches first): the Vitest
// projects (vitest.json: node; vitest-browser.json; vitest-attacks.json), the Playwright end-to-end tests
// (playwright.json), the soak run (npm run test:soak, vitest-soak.json) and the tarball test under other Node
// releases (scripts/test-other-nodes.sh, vitest-node<N>.json). A report missing from the run counts as a
// failure: npm test's four always, and those named as arguments (.ci/run names the soak and tarball ones).
// Playwright's errors outside a test (its web server not starting) count as failures too.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";

const dir = "test-results";
const marker = `${dir}/.started`;
const since = existsSync(marker) ? statSync(marker).mtimeMs : Infinity;
const fresh = (name) => existsSync(`${dir}/${name}`) && statSync(`${dir}/${name}`).mtimeMs >= since;

let passed = 0;
let failed = 0;
for (const name of ["vitest.json", "vitest-browser.json", "vitest-attacks.json", "playwright.json", ...process.argv.slice(2)]) {
  if (!fresh(name)) {
    console.error(`test-summary: no ${name} from this run`);
    failed++;
  }
}
for (const name of readdirSync(existsSync(dir) ? dir : ".").filter((name) => /^vitest(-[a-z0-9]+)?\.json$/.test(name) && fresh(name))) {
  const report = JSON.parse(readFileSync(`${dir}/${name}`, "utf8"));
  passed += report.numPassedTests;
  failed += report.numFailedTests + (report.numFailedTestSuites ?? 0);
}
if (fresh("playwright.json")) {
  const { stats, errors = [] } = JSON.parse(readFileSync(`${dir}/playwright.json`, "utf8"));
  passed += stats.expected;
  failed += stats.unexpected + stats.flaky + errors.length;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
