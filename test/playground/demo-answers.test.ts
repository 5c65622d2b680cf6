// S18.7 the demo answers the docs' examples: report's tickets carry status (open, closed, pending),
// priority 1 to 5, owner and titles of several words, some with "printer", some with "timeout"; server_log
// holds ERROR, WARN and INFO lines in the counts the README states. (The README's exchanges themselves are
// replayed against the demo's tools in readme-exchanges.test.ts.)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { reportRows, serverLogText } from "../../playground/demo-tools.js";
import { root } from "../helpers/packed-package.js";

describe("S18.7 the demo's data", () => {
  it("tickets: every status, every priority, several owners, titles of several words with printer and timeout", () => {
    const { rows } = reportRows();
    expect(new Set(rows.map((row) => row.status))).toEqual(new Set(["open", "closed", "pending"]));
    expect(new Set(rows.map((row) => row.priority))).toEqual(new Set([1, 2, 3, 4, 5]));
    expect(new Set(rows.map((row) => row.owner)).size).toBeGreaterThan(2);
    for (const row of rows) expect(row.title.split(" ").length, row.title).toBeGreaterThanOrEqual(3);
    const count = (word: string) => rows.filter((row) => row.title.toLowerCase().includes(word)).length;
    expect(count("printer")).toBeGreaterThan(10);
    expect(count("timeout")).toBeGreaterThan(10);
    expect(count("printer") + count("timeout")).toBeLessThan(rows.length); // some tickets have neither
    // The README's filter example selects a mix: open tickets of priority above 3 exist, and are not all.
    const selected = rows.filter((row) => row.status === "open" && row.priority > 3).length;
    expect(selected).toBeGreaterThan(0);
    expect(selected).toBeLessThan(rows.filter((row) => row.status === "open").length);
  });

  it("server_log: the level counts Finding things states for its 3000 lines", () => {
    const readme = readFileSync(join(root, "docs", "finding.md"), "utf8"); // Finding things states them
    const stated = /`server_log` of (\d+) lines \((\d+) INFO, (\d+) WARN and (\d+)\s+ERROR lines/.exec(readme);
    expect(stated, "docs/finding.md states the counts").not.toBeNull();
    const [lines, info, warn, error] = stated!.slice(1).map(Number);
    const log = serverLogText(lines!).split("\n");
    expect(log).toHaveLength(lines!);
    const level = (name: string) => log.filter((line) => line.split(/\s+/)[1] === name).length;
    expect({ info: level("INFO"), warn: level("WARN"), error: level("ERROR") }).toEqual({ info, warn, error });
    for (const line of log.filter((text) => text.includes(" ERROR "))) expect(line).toContain("timeout");
  });
});
