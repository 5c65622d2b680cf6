// The README's Node versions for a clone say what installs cleanly: they are checked here against the
// `engines` of every package `npm ci` installs (package-lock.json; optional packages npm skips where they do
// not fit, so they never warn), with a range check of its own (npm's `semver` is not a dependency of ours).
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const readme = readFileSync(join(root, "README.md"), "utf8").replace(/\s+/g, " ");
const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
  packages: Record<string, { optional?: boolean; engines?: { node?: string } | string[] }>;
};

type Version = [number, number, number];
const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Whether `version` satisfies one `||` part of an engines range: comparators joined by spaces. */
function satisfiesPart(version: Version, part: string): boolean {
  const comparators = [
    ...part.matchAll(/(>=|<=|>|<|\^|~|=)?\s*v?([0-9]+|[x*])(?:\.([0-9]+|[x*]))?(?:\.([0-9]+|[x*]))?/g),
  ];
  if (part.trim() === "" || part.trim() === "*") return true;
  return comparators.every(([, op = "", ...parts]) => {
    const given = parts.map((p) => (p === undefined || p === "x" || p === "*" ? undefined : Number(p)));
    const low: Version = [given[0] ?? 0, given[1] ?? 0, given[2] ?? 0];
    if (given[0] === undefined) return true;
    // The first version past a partial or caret or tilde range.
    const next = (at: number): Version =>
      at === 0 ? [low[0] + 1, 0, 0] : at === 1 ? [low[0], low[1] + 1, 0] : [low[0], low[1], low[2] + 1];
    const cmp = compare(version, low);
    switch (op) {
      case ">=":
        return cmp >= 0;
      case ">": // >20 is >=21.0.0, >20.1 is >=20.2.0, >20.1.2 is past 20.1.2
        if (given[1] === undefined) return compare(version, next(0)) >= 0;
        return given[2] === undefined ? compare(version, next(1)) >= 0 : cmp > 0;
      case "<=":
        return cmp <= 0;
      case "<":
        return cmp < 0;
      case "^":
        return cmp >= 0 && compare(version, next(low[0] > 0 || given[1] === undefined ? 0 : 1)) < 0;
      case "~":
        return cmp >= 0 && compare(version, next(given[1] === undefined ? 0 : 1)) < 0;
      default: // a version, or a partial one (20, 20.x): every version it covers
        return cmp >= 0 && compare(version, next(given[1] === undefined ? 0 : given[2] === undefined ? 1 : 2)) < 0;
    }
  });
}
const satisfies = (version: string, range: string) => {
  const v = version.split(".").map(Number) as Version;
  return range.split("||").some((part) => satisfiesPart(v, part));
};

/** The packages `npm ci` installs whose engines refuse `version` (each would print an EBADENGINE warning). */
function refusing(version: string): string[] {
  return Object.entries(lock.packages)
    .filter(([path, meta]) => path !== "" && !meta.optional && !Array.isArray(meta.engines))
    .filter(
      ([, meta]) =>
        meta.engines && !Array.isArray(meta.engines) && meta.engines.node && !satisfies(version, meta.engines.node),
    )
    .map(([path]) => path.replace(/^.*node_modules\//, ""))
    .sort();
}

describe("the README's Node versions for a clone (what installs cleanly)", () => {
  it("the range check reads the forms the lockfile uses", () => {
    expect(satisfies("20.19.0", "^20.19.0 || >=22.12.0")).toBe(true);
    expect(satisfies("22.11.0", "^20.19.0 || >=22.12.0")).toBe(false);
    expect(satisfies("21.0.0", "^20.19.0 || >=22.12.0")).toBe(false);
    expect(satisfies("20.20.2", ">=22.0.0")).toBe(false);
    expect(satisfies("24.0.0", "20.x || 22.x || 23.x || 24.x")).toBe(true);
    expect(satisfies("25.0.0", "20.x || 22.x || 23.x || 24.x")).toBe(false);
    expect(satisfies("20.0.0", "18 || 20 || >=22")).toBe(true);
    expect(satisfies("21.1.0", "18 || 20 || >=22")).toBe(false);
    expect(satisfies("20.0.0", ">= 14.0.0")).toBe(true);
    expect(satisfies("12.0.0", "^12.17.0 || ^14.13 || >=16.0.0")).toBe(false);
    expect(satisfies("14.13.5", "^12.17.0 || ^14.13 || >=16.0.0")).toBe(true);
    expect(satisfies("20.0.0", "*")).toBe(true);
  });

  it("Node 22.12 and 24 install with no engine warning", () => {
    expect(readme).toContain("install without a warning on Node 22.12 or newer and on Node 24");
    expect(refusing("22.12.0")).toEqual([]);
    expect(refusing("24.0.0")).toEqual([]);
  });

  it("Node 20.19 and newer warn once, about miniflare, as the README says; an older Node 20 would warn more", () => {
    expect(readme).toContain("On Node 20 (20.19 or newer) `npm install` warns once (`EBADENGINE`) that miniflare");
    expect(refusing("20.19.0")).toEqual(["miniflare"]);
    expect(refusing("20.18.0").length).toBeGreaterThan(1);
  });
});
