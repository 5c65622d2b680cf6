// Writes test/durations.json, the order the Node files start in (scripts/test-order.ts), from the last
// run's report of the Vitest project "node" (test-results/vitest.json): seconds per file, longest first.
import { readFileSync, writeFileSync } from "node:fs";
import { relative } from "node:path";

const report = JSON.parse(readFileSync("test-results/vitest.json", "utf8"));
const seconds = report.testResults
  .map((file) => [
    relative(process.cwd(), file.name).replaceAll("\\", "/"),
    Math.round((file.endTime - file.startTime) / 100) / 10,
  ])
  .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
// A run of every project writes the same report: its browser, attack and soak files are not the Node suite's.
const others = seconds.filter(
  ([file], at) =>
    /^test\/(browser|bench)\/|\.(browser|attack)\.test\.ts$/.test(file) ||
    seconds.findIndex(([f]) => f === file) !== at,
);
if (others.length > 0)
  throw new Error(
    `test-results/vitest.json is not of the "node" project alone ` +
      `(${others[0][0]}): run npm test, or npx vitest run --project node`,
  );
if (seconds.length < 50)
  throw new Error(
    `test-results/vitest.json holds ${seconds.length} files: run the whole "node" project first (npm test)`,
  );
writeFileSync("test/durations.json", JSON.stringify(Object.fromEntries(seconds), null, 2) + "\n");
console.log(
  `test/durations.json: ${seconds.length} files, ${seconds
    .slice(0, 3)
    .map(([file, s]) => `${file} ${s} s`)
    .join(", ")}, …`,
);
