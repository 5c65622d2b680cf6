// S21.1: the cost limit bounds the call's total, every kind of work added together, not each kind apart.
// Measured from the outside: the smallest costLimit under which `result_query` answers a call, found by
// bisection over fresh stores (a store reads an answer's index once: a second call on a handle costs less).
import { describe, expect, it } from "vitest";
import {
  MemoryStorage,
  ResultHandlesPlugin,
  ResultHandleStore,
  ResultQueryError,
  ResultQueryTool,
  type Owner,
} from "mcp-result-handles";
import { COST_WEIGHTS } from "../../../src/defaults.js";

const owner: Owner = { session: "cost-total" };
// About 50 KB of JSON, one record: every call reads and parses it whole, so two calls on it differ only in
// the evaluation they do.
const rows = Array.from({ length: 120 }, (_, i) => ({ id: i, title: `row ${i} ${"x".repeat(400)}` }));
const answer = { meta: { title: "rows" }, rows };

/** Whether `args` answers under `costLimit` on a fresh store holding `answer`; any other error fails the test. */
async function answers(costLimit: number, args: Record<string, unknown>): Promise<boolean> {
  const { config } = ResultHandlesPlugin.init({ costLimit, storage: { type: "memory" } });
  const store = new ResultHandleStore(new MemoryStorage("cost-total"), 60);
  const tool = new ResultQueryTool(() => [{ config, store: async () => store }]);
  const handle = store.newHandle();
  await store.save(handle, answer, owner);
  try {
    await tool.query({ handle, ...args }, owner);
    return true;
  } catch (error) {
    if (error instanceof ResultQueryError && /cost more than its limit|would visit more than/.test(error.message))
      return false;
    throw error;
  }
}

/**
 * The smallest costLimit under which `args` answers (a call that answers under a limit answers under any larger one).
 */
async function smallestLimit(args: Record<string, unknown>): Promise<number> {
  let [low, high] = [1, 100_000_000]; // low refuses (or is the floor), high answers
  expect(await answers(high, args)).toBe(true);
  if (await answers(low, args)) return low;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (await answers(middle, args)) high = middle;
    else low = middle;
  }
  return high;
}

describe("S21.1 the cost limit is the call's total", () => {
  it(
    "a call that reads the same answer and also selects 120 nodes needs a limit larger by at least " + "their visits",
    async () => {
      // The read: decrypting and parsing the answer (about 10 units a byte, 500,000-odd units), a few nodes.
      const read = await smallestLimit({ path: "$.meta.title" });
      // The same read, and 120 nodes selected (each visited at least once, COST_WEIGHTS.nodes units): less
      // than the parse alone, so a meter that held each kind to the limit apart would let it through at `read`.
      const selecting = await smallestLimit({ path: "$.rows[*].id", limit: 1 });
      console.log(`smallest costLimit: ${read} to read, ${selecting} to read and select`);
      expect(read).toBeGreaterThan(120 * COST_WEIGHTS.nodes);
      expect(selecting - read).toBeGreaterThanOrEqual(120 * COST_WEIGHTS.nodes);
      // And at the read's limit plus less than those visits, it is refused with the limit named.
      const { config } = ResultHandlesPlugin.init({
        costLimit: read + 100 * COST_WEIGHTS.nodes,
        storage: { type: "memory" },
      });
      const store = new ResultHandleStore(new MemoryStorage("cost-total"), 60);
      const tool = new ResultQueryTool(() => [{ config, store: async () => store }]);
      const handle = store.newHandle();
      await store.save(handle, answer, owner);
      const refused = tool.query({ handle, path: "$.rows[*].id", limit: 1 }, owner);
      await expect(refused).rejects.toThrow(`cost over ${read + 100 * COST_WEIGHTS.nodes} units, costLimit`);
    },
  );
});
