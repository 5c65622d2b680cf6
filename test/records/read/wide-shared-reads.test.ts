// S16.4 S26.1: calls that read windows of one wide object side by side share the answer's kept state (the batches
// read so far): each answers what the whole answer read as one answers, whichever of them reads a batch first. A read
// that found the first batch of its run read by another call meanwhile skipped the rest of that run, then paged
// members it had never read ("a member outside the batches read", an error without a code).
import { describe, expect, it } from "vitest";
import { MemoryStorage, ResultHandleStore, ResultQueryTool, type Owner } from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { wideObject } from "../../../bench/shapes.js";
import { answered, referenceAnswer, savedCounted } from "../../helpers/store-queries.js";

const owner: Owner = { session: "s-wide-shared", caller: "reader" };
const config = { sliceLimitBytes: 16_384, preview: { chars: 500 } };

describe("S16.4 windows of one wide object read by calls side by side", () => {
  it("each answers as the whole answer, whichever reads a shared batch first", async () => {
    const value = { w: wideObject(200_000) };
    const { counted, handle } = await savedCounted(new MemoryStorage("wide-shared", {}), value, owner);
    // a store that did not fold it (so it does not keep it whole), one for both calls: the answer's kept state (its
    // index, the batches read) is what they share, once a first call has read it
    const store = new ResultHandleStore(counted, 60);
    const tool = new ResultQueryTool(() => [{ config: config as ResultHandlesConfig, store: async () => store }]);
    expect(await answered(tool, handle, { path: "$.w[*]", limit: 1 }, owner)).toMatchObject({ total: 200_000 });
    // the narrow window asks first and reads one batch; the wide one, asked meanwhile, reads a run starting there
    for (const offset of [100_000, 150_003]) {
      const narrow = { path: "$.w[*]", offset, limit: 1 };
      const wide = { path: "$.w[*]", offset, limit: 400 };
      const both = await Promise.all([answered(tool, handle, narrow, owner), answered(tool, handle, wide, owner)]);
      expect(both[0]).toEqual(await referenceAnswer(value, narrow, config));
      expect(both[1]).toEqual(await referenceAnswer(value, wide, config));
    }
  }, 60_000);

  it("fields sifted from every batch beside windows and names read: each answers as the whole answer", async () => {
    const value = { w: wideObject(200_000) };
    const { counted, handle } = await savedCounted(new MemoryStorage("wide-shared-sift", {}), value, owner);
    const store = new ResultHandleStore(counted, 60);
    const tool = new ResultQueryTool(() => [{ config: config as ResultHandlesConfig, store: async () => store }]);
    expect(await answered(tool, handle, { path: "$.w[*]", limit: 1 }, owner)).toMatchObject({ total: 200_000 });
    // more names than are looked up one by one (every batch is sifted for them), some not keys of it
    const names = (from: number) =>
      Array.from({ length: 300 }, (_, i) =>
        i % 50 === 7 ? `nokey_${i}` : `key_${String(from + 613 * i).padStart(6, "0")}`,
      );
    const calls = [
      { path: "$.w", fields: names(1000) },
      { path: "$.w[*]", offset: 120_000, limit: 300 },
      { path: "$.w", fields: names(1000).slice(0, 20) },
      { path: "$.w", fields: names(5000) },
      { path: "$.w.key_130007" },
      { path: "$.w", fields: names(1000) }, // sifted for already, or meanwhile
    ];
    const outcomes = await Promise.all(calls.map((args) => answered(tool, handle, args, owner)));
    for (const outcome of outcomes) expect(outcome).toHaveProperty("value"); // answers, not refusals alike
    for (const [i, args] of calls.entries())
      expect(outcomes[i], JSON.stringify(args).slice(0, 80)).toEqual(await referenceAnswer(value, args, config));
  }, 60_000);
});
