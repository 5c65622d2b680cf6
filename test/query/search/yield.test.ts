// S21.4 a search yields to other calls: inside one long string of many matching lines (and across
// a long walk) it stops once it has held the thread for YIELD_AFTER_MS, lets timers and other calls run,
// and goes on from the match it stopped at, answering exactly what one uninterrupted search answers.
import { afterAll, describe, expect, it, vi } from "vitest";
import { MemoryStorage, ResultHandleStore, ResultQueryTool, type Owner } from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { CostMeter } from "../../../src/query/cost.js";
import { watchStalls } from "../../helpers/attack-bench.js";
import { answered, wholeAnswer } from "../../helpers/store-queries.js";

const owner: Owner = { session: "s-yield", caller: "reader" };
const config = { sliceLimitBytes: 16_384, preview: { chars: 500 } } as ResultHandlesConfig;
const store = new ResultHandleStore(new MemoryStorage("yield", { maxBytes: 1e9 }), 60);
const tool = new ResultQueryTool(() => [{ config, store: async () => store }]);
afterAll(() => store.onShutdown());

describe("S21.4 a search yields as it goes", () => {
  const log = Array.from({ length: 1_000_000 }, (_, i) => `a line ${i}${i % 7 === 0 ? "\r" : ""}`).join("\n");
  const value = {
    title: "a log",
    log,
    rows: Array.from({ length: 200_000 }, (_, i) => ({ id: i, note: `a note ${i}` })),
  };

  it(
    "inside a string of a million matching lines and over 200,000 rows: the " +
      "same hits, lines and total as one run, yielding meanwhile",
    async () => {
      const handle = store.newHandle();
      await store.save(handle, value, owner);
      for (const args of [
        { search: "a" },
        { search: "A LINE 5", offset: 55_550, limit: 5 },
        { search: "a", page: 60_000, limit: 20 },
        { search: "note 199999" },
      ]) {
        const yields = vi.spyOn(CostMeter.prototype, "yieldToLoop"); // observed: how often the call stepped aside
        const stalls = watchStalls();
        const started = performance.now();
        const result = await answered(tool, handle, args, owner);
        const ms = performance.now() - started;
        const stallMs = stalls.stop();
        const stepped = yields.mock.calls.length;
        yields.mockRestore();
        expect(result, JSON.stringify(args)).toEqual(await wholeAnswer(value, args, config));
        expect(stepped, JSON.stringify(args)).toBeGreaterThan(0);
        console.log(
          `S21.4 ${JSON.stringify(args)}: ${ms.toFixed(0)} ms, ${stepped} ` +
            `yields, the event loop held at most ${stallMs.toFixed(0)} ms`,
        );
      }
    },
    60_000,
  );
});
