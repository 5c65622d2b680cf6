// S26.1 S21.1: a descendant wildcard over an answer whose index already counts more than the call may spend
// (`$..*`, `$.w..*` over a wide object) is refused before anything but the index is read, naming the count and a
// call that works; the refusal is true (the same query over the plain value, with the same limit, is refused by the
// meter too), and with room the query answers as over the whole value (helpers/query-oracle.ts, json-p3).
import { describe, expect, it } from "vitest";
import { MemoryStorage, type Owner } from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { answerPlan } from "../../../src/query/query.js";
import { planPath } from "../../../src/query/paths/plan.js";
import { CostMeter } from "../../../src/query/cost.js";
import { ResultQueryError } from "../../../src/errors.js";
import { answered, countedQueries, wholeAnswer } from "../../helpers/store-queries.js";

const owner: Owner = { session: "s-index-cost", caller: "reader" };
const KEYS = 30_000;
const w: Record<string, number> = {};
for (let i = 0; i < KEYS; i++) w[`k${i}`] = i;
const value = { meta: { kind: "map" }, w };
/** Under what `$..*` visits here (three nodes a member: visited, selected, handed out), so it cannot answer. */
const COST_LIMIT = 2.5e7;

const setUp = (costLimit?: number) => {
  const config = { sliceLimitBytes: 16_384, preview: { chars: 500 }, ...(costLimit && { costLimit }) };
  return {
    config,
    ...countedQueries(new MemoryStorage("index-cost", { maxBytes: 1e9 }), {
      config: config as ResultHandlesConfig,
      owner,
      value,
    }),
  };
};

describe("S26.1 a descendant wildcard refused from the index", () => {
  it("is refused from the index alone, as the meter refuses it over the value, naming a call that works", async () => {
    const { tool, fold, counted, config } = setUp(COST_LIMIT);
    for (const args of [
      { path: "$..*", limit: 5 },
      { path: "$.w..*", offset: KEYS - 10 },
    ]) {
      const handle = await fold();
      const before = counted.gets;
      const refused = (await answered(tool, handle, args, owner)) as { code: string; message: string };
      expect(refused.code, JSON.stringify(args)).toBe("INVALID_INPUT");
      expect(refused.message).toMatch(
        new RegExp(
          String.raw`^The query would visit at least ${3 * KEYS} nodes of this answer: its index counts ` +
            String.raw`${KEYS} members at \$\.w, .* Read a window of them instead, ` +
            String.raw`such as path \$\.w with offset and limit`,
        ),
      );
      expect(counted.gets - before, "records read: the answer's main record (its index) alone").toBeLessThanOrEqual(1);
      // the meter over the plain value, with the same limit (and no page limit before it), refuses it too
      let refusal: unknown;
      try {
        answerPlan(value, planPath(args.path), { handle: "h", ...args }, 1e9, new CostMeter(COST_LIMIT));
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(ResultQueryError);
      expect((refusal as ResultQueryError).code).toBe("INVALID_INPUT");
      expect((refusal as ResultQueryError).message).toMatch(/^The query would visit more than \d+ nodes/);
    }
    // the call it names answers
    const window = { path: "$.w", offset: KEYS - 10, limit: 10 };
    expect(await answered(tool, await fold(), window, owner)).toEqual(await wholeAnswer(value, window, config));
  });

  it("with room, answers as over the whole value", async () => {
    const { tool, fold, config } = setUp();
    for (const args of [
      { path: "$.w..*", offset: KEYS - 3 },
      { path: "$..*", offset: 1, limit: 4 },
    ])
      expect(await answered(tool, await fold(), args, owner), JSON.stringify(args)).toEqual(
        await wholeAnswer(value, args, config),
      );
  });
});
