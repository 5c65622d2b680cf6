// S14.4 the search engine itself, `searchHitsYielding`, against a plain recursive reference on random JSON, and
// over several start nodes (as a JSONPath nodelist hands it).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatPath } from "../../../src/query/paths/path.js";
import type { SearchHit } from "../../../src/query/search/search.js";
import { searchHitsYielding } from "../../../src/query/search/search-query.js";
import { CostMeter } from "../../../src/query/cost.js";

/** Every hit, by plain recursion: what searchHitsYielding must find, in the same order. */
function reference(
  value: unknown,
  needle: string,
  steps: (string | number)[] = [],
): Omit<SearchHit, "text" | "offset">[] {
  const lower = needle.toLowerCase();
  const has = (text: string) => text.toLowerCase().includes(lower);
  if (typeof value === "string") {
    if (!value.includes("\n")) return has(value) ? [{ path: formatPath(steps) }] : [];
    return value.split("\n").flatMap((line, i) => (has(line) ? [{ path: formatPath(steps), line: i + 1 }] : []));
  }
  if (typeof value === "number" || typeof value === "boolean")
    return has(JSON.stringify(value)) ? [{ path: formatPath(steps) }] : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => reference(item, needle, [...steps, i]));
  if (value && typeof value === "object") {
    return Object.entries(value).flatMap(([key, member]) => [
      ...(has(key) ? [{ path: formatPath([...steps, key]), key: true as const }] : []),
      ...reference(member, needle, [...steps, key]),
    ]);
  }
  return [];
}

const all = (value: unknown, needle: string, steps: (string | number)[] = []) =>
  searchHitsYielding([{ value, steps }], needle, {
    offset: 0,
    limit: 1_000_000,
    previewChars: 5,
    meter: new CostMeter(),
  });

describe("searchHitsYielding", () => {
  it("finds what a plain recursive search finds, in document order, on random JSON (ASCII needles)", async () => {
    const text = fc.string({ unit: fc.constantFrom("a", "B", "c", "\n", " ", "1") });
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue({ maxDepth: 4 }),
        fc.oneof(text, fc.constantFrom("a", "b", "1", "true", "null")).filter((s) => s.length > 0 && !s.includes("\n")),
        async (value, needle) => {
          // Strings with the needle's letters, so that hits are common.
          const { hits, total } = await all(value, needle);
          const expected = reference(value, needle);
          expect(total).toBe(expected.length);
          expect(
            hits.map(({ path, key, line }) => ({ path, ...(key ? { key } : {}), ...(line ? { line } : {}) })),
          ).toEqual(expected);
          for (const hit of hits) {
            expect(hit.text.length).toBeLessThanOrEqual(Math.max(10, needle.length));
            if (hit.text.length >= needle.length) expect(hit.text.toLowerCase()).toContain(needle.toLowerCase());
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it("pages: the hits of a page are that slice of all hits, and total is always every hit", async () => {
    const value = { a: ["xa", "ax", { ax: "b\nxa\nc\nax" }], b: "xxx" };
    const every = await all(value, "x");
    expect(every.total).toBe(6);
    for (let offset = 0; offset <= 8; offset++) {
      const page = await searchHitsYielding([{ value, steps: [] }], "x", {
        offset,
        limit: 2,
        previewChars: 5,
        meter: new CostMeter(),
      });
      expect(page).toEqual({ hits: every.hits.slice(offset, offset + 2), total: 6 });
    }
  });

  it("searches several start nodes in order, each under its own path (a JSONPath nodelist)", async () => {
    const nodes = [
      { value: { title: "Open door" }, steps: ["rows", 3] },
      { value: "door\nwindow\ndoors", steps: ["log"] },
      { value: 42, steps: ["n"] },
    ];
    const { hits, total } = await searchHitsYielding(nodes, "DOOR", {
      offset: 0,
      limit: 10,
      previewChars: 500,
      meter: new CostMeter(),
    });
    expect(total).toBe(3);
    expect(hits).toEqual([
      { path: "$.rows[3].title", text: "Open door" },
      { path: "$.log", text: "door", line: 1, offset: 0 },
      { path: "$.log", text: "doors", line: 3, offset: 12 },
    ]);
  });

  it(
    "S14.4 one hit per place when the nodes of a nodelist overlap " +
      "($..*, unions), and each container is walked once",
    async () => {
      const { searchQueryYielding } = await import("../../../src/query/search/search-query.js");
      const { planPath } = await import("../../../src/query/paths/plan.js");
      const { CostMeter } = await import("../../../src/query/cost.js");
      const config = { sliceLimitBytes: 1_000_000, preview: { chars: 50 } };
      const run = (answer: unknown, path: string, search: string) =>
        searchQueryYielding(answer, planPath(path), { handle: "h", path, search }, config, new CostMeter());
      const nested = { a: { b: "timeout here", c: ["timeout"] } };
      for (const path of ["$..*", "$[*,*]", "$['a','a']", "$..c[0]"]) {
        const hits = (await run(nested, path, "timeout")).value as SearchHit[];
        expect(
          hits.map((hit) => hit.path),
          path,
        ).toEqual(path === "$..c[0]" ? ["$.a.c[0]"] : ["$.a.b", "$.a.c[0]"]);
      }
      const rows = Array.from({ length: 10_000 }, (_, i) => ({ t: `row ${i}` }));
      const union = "$['rows'" + ",'rows'".repeat(499) + "]"; // the same 10,000 rows named 500 times
      const started = performance.now();
      expect((await run({ rows }, union, "row 1")).total).toBe(1111);
      expect(performance.now() - started).toBeLessThan(1000);
    },
  );

  it(
    "S16.1 $..* over a 20,000-deep chain: each leaf is found " +
      "covered from its parent up, never by building its path",
    async () => {
      const { searchQueryYielding } = await import("../../../src/query/search/search-query.js");
      const { planPath } = await import("../../../src/query/paths/plan.js");
      const { CostMeter } = await import("../../../src/query/cost.js");
      let deep: unknown = { x: "leaf" };
      for (let i = 0; i < 20_000; i++) deep = { a: deep, b: "text" };
      const started = performance.now();
      const found = await searchQueryYielding(
        deep,
        planPath("$..*"),
        { handle: "h", path: "$..*", search: "TEXT", offset: 0, limit: 1 },
        { sliceLimitBytes: 1_000_000, preview: { chars: 50 } },
        new CostMeter(),
      );
      const ms = performance.now() - started;
      console.log(`search of $..* over a 20,000-deep chain: ${ms.toFixed(0)} ms (was 2.6 s building each leaf's path)`);
      expect(found.total).toBe(20_000);
      expect((found.value as SearchHit[])[0]!.path).toBe(`$${".a".repeat(19_999)}.b`);
      expect(ms).toBeLessThan(2000);
    },
  );

  it("keeps indexes true to the original when lower case changes a length (İ), and ends lines at \\r\\n", async () => {
    // Cut to 10 characters around the match: the offset is where the text starts in the original.
    expect((await all("İstanbul Kapı", "kapı")).hits).toEqual([{ path: "$", text: "anbul Kapı", offset: 3 }]);
    expect((await all("İİİİİİİİİİİİİİ kapı", "KApı")).hits).toEqual([{ path: "$", text: "İİİİİ kapı", offset: 9 }]);
    expect((await all("one\r\ntwo ERR\r\nthree", "err")).hits).toEqual([
      { path: "$", text: "two ERR", line: 2, offset: 5 },
    ]);
  });

  it("counts a million hits while building the texts of one page only", async () => {
    const value = Array.from({ length: 1_000_000 }, (_, i) => `match ${i}`);
    const started = performance.now();
    const { hits, total } = await searchHitsYielding([{ value, steps: [] }], "MATCH", {
      offset: 999_998,
      limit: 5,
      previewChars: 500,
      meter: new CostMeter(),
    });
    console.log(
      `a million hits counted, a page of ${hits.length} built: ${(performance.now() - started).toFixed(0)} ms`,
    );
    expect(total).toBe(1_000_000);
    expect(hits).toEqual([
      { path: "$[999998]", text: "match 999998" },
      { path: "$[999999]", text: "match 999999" },
    ]);
  });
});
