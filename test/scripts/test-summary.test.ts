// npm test's and CI's last line (scripts/test-summary.mjs, run by scripts/test.sh and .ci/run): one line that
// names every step that failed, or says all passed, with an exit status that says the same. Run here on
// reports written into a scratch folder as the steps would write them.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const script = resolve(dirname(fileURLToPath(import.meta.url)), "../../scripts/test-summary.mjs");
const NPM_TEST_STEPS = [
  "build",
  "vitest node",
  "vitest browser",
  "docs site and playground",
  "end-to-end (Playwright)",
  "vitest attacks",
];

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A scratch run: test-results/.started, the steps' exit statuses, and the reports named (passed, failed). */
function run(
  steps: Record<string, number>,
  reports: Record<string, [number, number, number?] | string>,
  args: string[] = ["npm test"],
) {
  dir = mkdtempSync(join(tmpdir(), "test-summary-"));
  const results = join(dir, "test-results");
  mkdirSync(results);
  writeFileSync(join(results, ".started"), "");
  const past = new Date(Date.now() - 60_000);
  utimesSync(join(results, ".started"), past, past);
  writeFileSync(
    join(results, "steps.tsv"),
    Object.entries(steps)
      .map(([name, rc]) => `${rc}\t${name}\n`)
      .join(""),
  );
  for (const [name, counts] of Object.entries(reports)) {
    if (typeof counts === "string") {
      // a report cut short
      writeFileSync(join(results, name), counts);
      continue;
    }
    const [passed, failed, suites = 0] = counts;
    const report =
      name === "playwright.json"
        ? { stats: { expected: passed, unexpected: failed, flaky: 0 }, errors: [] }
        : { numPassedTests: passed, numFailedTests: failed, numFailedTestSuites: suites };
    writeFileSync(join(results, name), JSON.stringify(report));
  }
  const child = spawnSync(process.execPath, [script, ...args], { cwd: dir, encoding: "utf8" });
  return { lines: child.stdout.trim().split("\n"), status: child.status };
}

const allPassed = Object.fromEntries(NPM_TEST_STEPS.map((name) => [name, 0]));
const everyReport: Record<string, [number, number]> = {
  "vitest.json": [900, 0],
  "vitest-browser.json": [80, 0],
  "playwright.json": [20, 0],
  "vitest-attacks.json": [60, 0],
};

describe("S25.5 npm test's last line (scripts/test-summary.mjs)", () => {
  it("says all steps passed, with the count of tests, and exits 0", () => {
    const { lines, status } = run(allPassed, everyReport);
    expect(lines).toEqual(["npm test: all 6 steps passed (1060 tests passed, 0 failed)"]);
    expect(status).toBe(0);
  });

  it("names every step that failed, by its exit status or its report, and exits 1", () => {
    const { lines, status } = run(
      { ...allPassed, "vitest node": 1, "docs site and playground": 2, "vitest attacks": 1 },
      { ...everyReport, "vitest.json": [897, 3], "vitest-attacks.json": [59, 1] },
    );
    expect(lines).toEqual([
      "npm test: FAILED: vitest node (exit 1, 3 failed); docs site and playground (exit " +
        "2); vitest attacks (exit 1, 1 failed) (1056 tests passed, 4 failed)",
    ]);
    expect(status).toBe(1);
  });

  it("counts a report missing from the run, or a test failed where the step exited 0, as that step's failure", () => {
    const reports = { ...everyReport, "playwright.json": [19, 1] as [number, number] };
    delete (reports as Record<string, unknown>)["vitest-browser.json"];
    const { lines, status } = run(allPassed, reports);
    expect(lines).toEqual([
      "npm test: FAILED: vitest browser (no vitest-browser.json); " +
        "end-to-end (Playwright) (1 failed) (979 tests passed, 1 failed)",
    ]);
    expect(status).toBe(1);
  });

  it("a report cut short is its step's failure, not a crash of the summary", () => {
    const { lines, status } = run(allPassed, { ...everyReport, "vitest-attacks.json": '{"numPassedTests": 5' });
    expect(lines).toEqual([
      "npm test: FAILED: vitest attacks (vitest-attacks.json unreadable) (1000 tests passed, 0 failed)",
    ]);
    expect(status).toBe(1);
  });

  it(
    "a report that parses but holds no counts is its step's failure, " +
      "named on the line (null crashed it, {} gave NaN)",
    () => {
      const reports = {
        ...everyReport,
        "vitest.json": "null",
        "vitest-attacks.json": "{}",
        "playwright.json": '{"errors":[]}',
      };
      const { lines, status } = run(allPassed, reports);
      expect(lines).toEqual([
        "npm test: FAILED: vitest node (vitest.json holds no test counts); " +
          "end-to-end (Playwright) (playwright.json holds no test counts); " +
          "vitest attacks (vitest-attacks.json holds no test counts) (80 tests passed, 0 failed)",
      ]);
      expect(status).toBe(1);
    },
  );

  it("a failed build: names it and says the rest did not run", () => {
    const { lines, status } = run({ build: 2 }, {});
    expect(lines).toEqual([
      "npm test: FAILED: build (exit 2, the steps after it did not run) (0 tests passed, 0 failed)",
    ]);
    expect(status).toBe(1);
  });

  it("CI's line: its own steps after npm test's, and the reports it names", () => {
    const steps = { ...allPassed, "npm test": 0, soak: 0, "other Nodes": 1 };
    const reports: Record<string, [number, number]> = {
      ...everyReport,
      "vitest-soak.json": [40, 0],
      "vitest-node22.json": [5, 0],
    };
    const ci = ["ci", "vitest-soak.json=soak", "vitest-node22.json=other Nodes", "vitest-node24.json=other Nodes"];
    const { lines, status } = run(steps, reports, ci);
    expect(lines).toEqual(["ci: FAILED: other Nodes (exit 1, no vitest-node24.json) (1105 tests passed, 0 failed)"]);
    expect(status).toBe(1);
    expect(run({ ...steps, "other Nodes": 0 }, { ...reports, "vitest-node24.json": [5, 0] }, ci)).toEqual({
      lines: ["ci: all 9 steps passed (1110 tests passed, 0 failed)"],
      status: 0,
    });
  });

  it("a run that recorded no step is a failure", () => {
    dir = mkdtempSync(join(tmpdir(), "test-summary-"));
    const child = spawnSync(process.execPath, [script, "npm test"], { cwd: dir, encoding: "utf8" });
    expect(child.stdout.trim().split("\n")).toHaveLength(1);
    expect(child.stdout).toMatch(/^npm test: FAILED: \(no step recorded/);
    expect(child.status).toBe(1);
  });
  it("counts a failed Vitest test once, not again for each describe around it; a file that did not load as one", () => {
    // Vitest's report: one test failed inside two describe blocks gives numFailedTestSuites 2 beside it.
    const oneTest = run({ ...allPassed, "vitest node": 1 }, { ...everyReport, "vitest.json": [899, 1, 2] });
    expect(oneTest.lines).toEqual(["npm test: FAILED: vitest node (exit 1, 1 failed) (1059 tests passed, 1 failed)"]);
    const noLoad = run({ ...allPassed, "vitest node": 1 }, { ...everyReport, "vitest.json": [899, 0, 1] });
    expect(noLoad.lines).toEqual(["npm test: FAILED: vitest node (exit 1, 1 failed) (1059 tests passed, 1 failed)"]);
    expect([oneTest.status, noLoad.status]).toEqual([1, 1]);
  });
});
