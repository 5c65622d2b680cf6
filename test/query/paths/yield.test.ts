// S21.4: an evaluation over a value held in memory whole yields inside a filter's run over a
// list and inside a descendant walk (the evaluation hands out YIELDED), and what it answers is what the
// evaluation without yielding answers. The meter here says "yield" at every look, so every evaluation yields
// every few hundred items; a real meter says it after 20 ms.
import { JSONPathEnvironment } from "json-p3";
import { describe, expect, it } from "vitest";
import { CostMeter } from "../../../src/query/cost.js";
import { YIELDED, selectNodes } from "../../../src/query/jsonpath/jsonpath.js";
import { planPath, type QueryArguments } from "../../../src/query/paths/plan.js";
import { answerPlan, answerPlanYielding } from "../../../src/query/query.js";
import { searchQueryYielding } from "../../../src/query/search/search-query.js";
import { checkAnswer } from "../../helpers/query-oracle.js";
import { planValueYielding } from "../../../src/query/paths/evaluate.js";
import { formatPath } from "../../../src/query/paths/path.js";

/** What json-p3 itself answers, untouched by this package's segments: the values and paths to match. */
const plainJsonP3 = new JSONPathEnvironment();
function reference(path: string, value: unknown): { values: unknown[]; paths: string[] } {
  const nodes = plainJsonP3.query(path, value as never).nodes;
  return {
    values: nodes.map((node) => node.value),
    paths: nodes.map((node) => formatPath(node.location as (string | number)[])),
  };
}

/** A meter that asks to yield at every look. */
class EagerMeter extends CostMeter {
  override shouldYield(): boolean {
    return true;
  }
  override async yieldToLoop(): Promise<void> {
    await Promise.resolve();
  }
}

const answer = {
  x: 3,
  rows: Array.from({ length: 5000 }, (_, i) => ({
    id: i,
    a: i % 10,
    tags: i % 7 === 0 ? ["x", "y"] : [],
    note: `row ${i} ${i % 10 === 3 ? "timeout" : "ok"}`,
  })),
  byKey: Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`k${i}`, { a: i % 10 }])),
};

const paths = [
  "$.rows[?@.a == $.x]", // a filter reading $: the list is held whole
  "$.rows[?@.a == $.x].id", // a segment after the filter passes YIELD_NODE on
  "$.rows[?@.a == $.x || @.id == 4999]['id','a']",
  "$.byKey[?@.a == $.x]", // a filter over an object's members
  "$..[?@.a == $.x]", // a descendant walk with a filter, over a list of 5000 too
  "$..[?@ == 'x']", // over every value
  "$.rows[?count(@.tags[?@ == 'x']) > 0 && @.a == $.x]", // a filter inside a filter never yields
  "$.rows[*].id",
  "$..a", // names only: the stack walk at the top level
  "$.rows[*][?@ == $.x]", // many small objects, one filter each
  "$.rows[*].missing",
];

describe("S21.4 an evaluation held in memory yields and answers the same", () => {
  for (const path of paths) {
    it(path, async () => {
      const args: QueryArguments = { handle: "h", path, limit: 7, offset: 3 };
      const whole = answerPlan(answer, planPath(path), args, 1_000_000);
      const yielding = await answerPlanYielding(answer, planPath(path), args, 1_000_000, new EagerMeter());
      expect(yielding).toEqual(whole);
      // Both against json-p3 as it comes: the same nodes, in the same order, at the same paths.
      const plain = reference(path, answer);
      expect(whole).toMatchObject({
        total: plain.values.length,
        value: plain.values.slice(3, 10),
        paths: plain.paths.slice(3, 10),
      });
      expect(await planValueYielding(answer, planPath(path), new EagerMeter())).toEqual(plain.values);
      // Each runs a filter, a wildcard or a walk over thousands of values: it yields inside them.
      const plan = planPath(path);
      if (plan.kind !== "nodelist") throw new Error("expected a nodelist plan");
      const yields = [...selectNodes(plan.compiled, answer, plan.path, new EagerMeter())].filter(
        (node) => node === YIELDED,
      ).length;
      expect(yields).toBeGreaterThan(5);
    });
  }

  it("a search under a filter reading $ finds what it finds without yielding", async () => {
    const path = "$.rows[?@.a == $.x]";
    const args = { handle: "h", path, search: "timeout", limit: 5 };
    const config = { sliceLimitBytes: 1_000_000, preview: { chars: 40 } };
    const yielding = await searchQueryYielding(answer, planPath(path), args, config, new EagerMeter());
    expect(checkAnswer(answer, args, yielding, config.sliceLimitBytes)).toBe(true); // the oracle's hits
    expect((yielding as { total: number }).total).toBe(500);
  });

  it("items whose filter runs a query inside look at the clock by the units they charge, whatever ran before", () => {
    // S26.1: an item's inner query (a filter inside a filter) charges ~1.2 M units here; the evaluation looks at
    // the clock once a million units were charged since its last look, not only every 256 items. A call that ran
    // before on another meter, however much it spent, changes nothing (the units are counted per meter).
    const before = new CostMeter(Number.MAX_SAFE_INTEGER);
    before.charge("nodes", 10_000_000); // 3,000 M units spent: far more than the next call will
    const first = planPath("$.rows[?@.a == 1].id");
    if (first.kind !== "nodelist") throw new Error("expected a nodelist plan");
    expect([...selectNodes(first.compiled, answer, first.path, before)].length).toBeGreaterThan(0);

    const inner = Array.from({ length: 4000 }, (_, i) => ({ a: i % 3 }));
    const groups = { groups: Array.from({ length: 50 }, (_, g) => ({ g, rows: inner })) };
    const plan = planPath("$.groups[?count(@.rows[?@.a == 1]) > 0].g");
    if (plan.kind !== "nodelist") throw new Error("expected a nodelist plan");
    const out = [...selectNodes(plan.compiled, groups, plan.path, new EagerMeter())];
    const nodes = out.filter((node) => node !== YIELDED);
    expect(nodes.map((node) => (node as { value: unknown }).value)).toEqual(groups.groups.map(({ g }) => g));
    // One look (and so one yield, with this meter) about every group; by items alone, at most one in 50.
    expect(out.length - nodes.length).toBeGreaterThan(25);
  });

  it("YIELDED is handed out only by the top-level evaluation, between nodes, and never counted as one", () => {
    const plan = planPath("$.rows[?@.a == $.x].id");
    if (plan.kind !== "nodelist") throw new Error("expected a nodelist plan");
    const out = [...selectNodes(plan.compiled, answer, plan.path, new EagerMeter())];
    const nodes = out.filter((node) => node !== YIELDED);
    expect(out.length - nodes.length).toBeGreaterThan(10);
    expect(nodes.map((node) => (node as { value: unknown }).value)).toEqual(
      answer.rows.filter((row) => row.a === 3).map((row) => row.id),
    );
  });
});
