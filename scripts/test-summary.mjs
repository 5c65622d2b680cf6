// S25.5: the last line of `npm test` (scripts/test.sh) and of CI (.ci/run): one line that names every step that
// failed, or says that all passed, and an exit status that says the same (1 when the line names a failure).
//
//   node scripts/test-summary.mjs LABEL [REPORT=STEP ...]
//
// A step failed when it exited non-zero (scripts/test.sh and .ci/run write each step's exit status to
// test-results/steps.tsv, one "status<TAB>name" line per step), when its report says a test failed, or when
// a report it must write is missing from this run. Reports count only when newer than test-results/.started
// (scripts/test.sh touches it first): npm test's four always (vitest.json: the "node" project;
// vitest-browser.json; vitest-attacks.json; playwright.json, whose errors outside a test, such as its web
// server not starting, count as failures), and those given as REPORT=STEP (.ci/run: the soak run and the
// tarball test under other Node releases). The line also gives the tests passed and failed over those reports.
import { existsSync, readFileSync, statSync } from "node:fs";

const dir = "test-results";
const [label = "npm test", ...extra] = process.argv.slice(2);
const marker = `${dir}/.started`;
const since = existsSync(marker) ? statSync(marker).mtimeMs : Infinity;
const fresh = (name) => existsSync(`${dir}/${name}`) && statSync(`${dir}/${name}`).mtimeMs >= since;

/** The steps that failed, in the order they ran, each with why when a report says more than its exit status. */
const failed = new Map();
const fail = (step, why) => {
  const whys = failed.get(step) ?? [];
  if (why && !whys.includes(why)) whys.push(why);
  failed.set(step, whys);
};

const steps = fresh("steps.tsv") ? readFileSync(`${dir}/steps.tsv`, "utf8").split("\n").filter(Boolean) : [];
if (steps.length === 0) fail("(no step recorded: test-results/steps.tsv is missing)");
for (const line of steps) {
  const [status, step] = line.split("\t");
  if (status !== "0") fail(step, `exit ${status}`);
}

const reports = [
  ["vitest.json", "vitest node"],
  ["vitest-browser.json", "vitest browser"],
  ["playwright.json", "end-to-end (Playwright)"],
  ["vitest-attacks.json", "vitest attacks"],
  ...extra.map((pair) => pair.split("=")),
];
// A build that failed stops npm test before any report is written: the missing reports are its consequence.
const buildFailed = steps.some((line) => line.endsWith("\tbuild") && !line.startsWith("0\t"));
if (buildFailed) fail("build", "the steps after it did not run");
let passed = 0;
let failures = 0;
for (const [name, step] of reports) {
  if (!fresh(name)) {
    if (!buildFailed) fail(step, `no ${name}`);
    continue;
  }
  let report;
  try {
    report = JSON.parse(readFileSync(`${dir}/${name}`, "utf8"));
  } catch {
    fail(step, `${name} unreadable`);
    continue;
  }
  // Counts read as whole numbers: a report that parses but holds none (null, {}, a stats-less Playwright
  // report) is its step's failure too, never a crash of this line or a NaN in it.
  const counts =
    name === "playwright.json"
      ? [report?.stats?.expected, report?.stats?.unexpected, report?.stats?.flaky, (report?.errors ?? []).length]
      : [report?.numPassedTests, report?.numFailedTests, report?.numFailedTestSuites ?? 0];
  if (!counts.every((count) => Number.isInteger(count) && count >= 0)) {
    fail(step, `${name} holds no test counts`);
    continue;
  }
  const [ran, ...bad] = counts;
  passed += ran;
  // Vitest counts every describe block around a failed test as a failed suite too: suites count only where no
  // test failed (a file that did not load). Playwright's unexpected, flaky and errors are each their own.
  const broken = name === "playwright.json" ? bad.reduce((sum, count) => sum + count, 0) : bad[0] || bad[1];
  failures += broken;
  if (broken > 0) fail(step, `${broken} failed`);
}

const tests = `${passed} tests passed, ${failures} failed`;
if (failed.size === 0 && passed > 0) {
  console.log(`${label}: all ${steps.length} steps passed (${tests})`);
  process.exit(0);
}
if (failed.size === 0) fail("(no test ran)");
const named = [...failed].map(([step, whys]) => (whys.length > 0 ? `${step} (${whys.join(", ")})` : step));
console.log(`${label}: FAILED: ${named.join("; ")} (${tests})`);
process.exit(1);
