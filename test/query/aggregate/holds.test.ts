// S24.3 S21.4 what an aggregate holds while it counts, and how long it holds the thread to order its groups:
// - example paths (up to three a group) are bounded in characters together (AGGREGATE_LIMITS.exampleChars):
//   nodes under a long key, or deep, each have a long canonical path, and 2,000 groups under a key of
//   100,000 characters held 200 MB for an answer of 120 KB; past the bound the call is refused naming a
//   narrower one, and { count: true } still answers;
// - the JSON text made of each list or object grouped by is charged to the call's meter (COST_WEIGHTS.keyed):
//   by "@" over $..* makes the text of every subtree, 460 M characters for a 3.2 MB answer, 22 s uncharged;
// - groups keyed by lists or objects are ordered by the JSON text each was given once, not one made per
//   comparison: 100,000 of them held the thread 1.3-3.6 s without yielding to pick a page.
import { describe, expect, it } from "vitest";
import { MemoryStorage, ResultHandlesPlugin, ResultQueryError, type Owner } from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { AGGREGATE_LIMITS } from "../../../src/defaults.js";
import { countedQueries } from "../../helpers/store-queries.js";
import { watchStalls } from "../../helpers/attack-bench.js";

const owner: Owner = { session: "s-aggregate-holds", caller: "reader" };
const config = { sliceLimitBytes: 64 * 1024, preview: { chars: 500 } } as ResultHandlesConfig;

describe("S24.3 an aggregate's holds", () => {
  it("example paths past AGGREGATE_LIMITS.exampleChars together are refused naming a narrower call", async () => {
    const key = "k ".repeat(5_000); // each node's path holds it: ['k k …'][i]
    const items = Math.ceil(AGGREGATE_LIMITS.exampleChars / key.length) + 10; // one group each: one example each
    const answer = { [key]: Array.from({ length: items }, (_, i) => ({ id: i, status: i % 2 ? "open" : "closed" })) };
    const setup = countedQueries(new MemoryStorage("aggregate-holds-examples"), { config, owner });
    const handle = await setup.fold(answer);
    const path = "$.*[*]";
    const error = await setup.tool
      .query({ handle, path, aggregate: { by: "id" } }, owner)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResultQueryError);
    const { code, message } = error as ResultQueryError;
    expect(code).toBe("INVALID_INPUT");
    expect(message).toContain(`example paths pass ${AGGREGATE_LIMITS.exampleChars} characters`);
    expect(message).toContain('{ "count": true } alone counts the nodes');
    // The calls the refusal names answer: count alone, and a member with fewer values (two groups, six paths).
    const counted = await setup.tool.query({ handle, path, aggregate: { count: true } }, owner);
    expect(counted).toMatchObject({ value: { count: items }, total: items });
    const byStatus = await setup.tool.query({ handle, path, aggregate: { by: "status" } }, owner);
    const pairs = byStatus.groups!.map((group) => [group.key, group.count]);
    expect(pairs).toEqual([
      ["closed", Math.ceil(items / 2)],
      ["open", Math.floor(items / 2)],
    ]);
    const quoted = `$['${key}']`; // S7.5's canonical path, built here
    const expected = JSON.stringify([`${quoted}[0]`, `${quoted}[2]`, `${quoted}[4]`]);
    const same = JSON.stringify(byStatus.groups![0]!.examples) === expected;
    expect(same, "the closed group's examples are the canonical paths of items 0, 2 and 4").toBe(true);
  }, 60_000);

  it("100,000 groups keyed by objects: a page near the top and a deep page hold the thread < 1 s", async () => {
    const groups = 100_000;
    // Later groups sort first (descending b within equal counts), so a page near the top takes in most of them.
    const rows = Array.from({ length: groups }, (_, i) => ({ o: { b: groups - i, a: "x" } }));
    const setup = countedQueries(new MemoryStorage("aggregate-holds-sort"), { config, owner });
    const handle = await setup.fold({ rows });
    for (const paging of [{ limit: 10 }, { offset: 5000, limit: 10 }]) {
      const stalls = watchStalls();
      const answer = await setup.tool.query({ handle, path: "$.rows[*]", aggregate: { by: "o" }, ...paging }, owner);
      const held = stalls.stop();
      // Keys sorted by plain code: all counts are 1, objects by their JSON text with sorted keys.
      const expected = rows.map((row) => JSON.stringify({ a: row.o.a, b: row.o.b })).sort();
      const offset = paging.offset ?? 0;
      expect(answer.groupCount).toBe(groups);
      const keys = answer.groups!.map((group) => JSON.stringify(group.key));
      expect(keys).toEqual(
        expected.slice(offset, offset + 10).map((text) => JSON.stringify(JSON.parse(text), ["b", "a"])),
      );
      // 1.3-3.6 s before (a JSON text made per comparison); about 0.1 s now on a loaded two-core machine.
      expect(held, JSON.stringify(paging)).toBeLessThan(1000);
    }
  }, 120_000);

  it(
    'the text of lists and objects grouped by is charged: by "@" ' +
      "over $..* of nested copies is refused for its cost",
    async () => {
      let nested: unknown = { leaf: "y".repeat(2000) };
      for (let i = 0; i < 50; i++) nested = { a: nested };
      const answer = Array.from({ length: 200 }, () => nested); // about 450 KB; $..* selects 10,200 nodes
      const { config } = ResultHandlesPlugin.init({ costLimit: 100_000_000, storage: { type: "memory" } });
      const setup = countedQueries(new MemoryStorage("aggregate-holds-keyed"), { config, owner });
      const handle = await setup.fold(answer);
      // The same nodes as a nodelist, and grouped by a string member, answer under the limit.
      // Each item: 51 objects (the innermost has the leaf) and the leaf's string.
      expect((await setup.tool.query({ handle, path: "$..*", limit: 1 }, owner)).total).toBe(200 * 52);
      const byLeaf = await setup.tool.query({ handle, path: "$..*", aggregate: { by: "leaf" } }, owner);
      const pairs = byLeaf.groups!.map((group) => [group.key, group.count]);
      expect(pairs).toEqual([
        [null, 200 * 51],
        ["y".repeat(2000), 200],
      ]);
      // Grouped by each node itself: about 10,200 texts of 2 KB, 20 units a character, over the limit.
      const error = await setup.tool
        .query({ handle, path: "$..*", aggregate: { by: "@" } }, owner)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ResultQueryError);
      expect((error as ResultQueryError).message).toContain("characters of lists and objects grouped by (aggregate)");
      expect((error as ResultQueryError).message).toContain(
        "group by a member whose values are strings, numbers or booleans",
      );
    },
    60_000,
  );
});
