// S14.6 (review): queries over a list read batch by batch answer exactly as over the whole value, found
// by attacking the streamed reads: a forward slice stops at its end inside the last batch it reads; a
// search above lists still reads every list when a slice of one runs meanwhile (the shared root then
// holds that list's items read so far at its place).
import { describe, expect, it } from "vitest";
import {
  MemoryStorage,
  ResultHandleStore,
  ResultQueryTool,
  type NamespacedStorage,
  type Owner,
} from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { answered as answeredBy, PassThroughStorage, wholeAnswer } from "../../helpers/store-queries.js";

const owner: Owner = { session: "s-review", caller: "reader" };
const config = { sliceLimitBytes: 16_384, preview: { chars: 500 } } as ResultHandlesConfig;
const expected = (value: unknown, args: Record<string, unknown>) => wholeAnswer(value, args, config);
const answered = (tool: ResultQueryTool, handle: string, args: Record<string, unknown>) =>
  answeredBy(tool, handle, args, owner);

/** A storage whose every read waits a few milliseconds, so a query streaming batches yields to others. */
class SlowStorage extends PassThroughStorage {
  override async get(key: string) {
    await new Promise((resolve) => setTimeout(resolve, 2));
    return this.inner.get(key);
  }
}

async function stored(value: unknown, storage: NamespacedStorage = new MemoryStorage("review")) {
  const store = new ResultHandleStore(storage, 60, { pieceBytes: 16 * 1024 });
  const tool = new ResultQueryTool(() => [{ config, store: async () => store }]);
  const handle = store.newHandle();
  await store.save(handle, value, owner);
  return { store, tool, handle };
}

/** Lists nested `depth` deep, a number at the bottom. */
const chain = (depth: number): unknown => {
  let value: unknown = 0;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
};
const rows = Array.from({ length: 3000 }, (_, i) => ({ id: i, owner: `user${i % 13}`, pad: "x".repeat(50) }));
const events = Array.from({ length: 3000 }, (_, i) => ({ at: i, kind: i % 9 ? "tick" : "user5 in" }));

describe("S14.6 a forward slice over batches selects only its window", () => {
  it.each([
    { path: "$.rows[10:20].id" },
    { path: "$.rows[10:20:3].id" },
    { path: "$.rows[-30:-20].id" },
    { path: "$.rows[1:2]" },
    { path: "$.rows[:5].owner" },
    { path: "$.rows[100:2000:50].id", limit: 100 },
  ])("%j", async (args) => {
    const value = { rows };
    const { store, tool, handle } = await stored(value);
    expect(await answered(tool, handle, args)).toEqual(await expected(value, args));
    await store.onShutdown();
  });
});

describe("S14.6 a search above lists reads every list whole, whatever a concurrent slice reads", () => {
  it("a slice of another list while $ is searched: the same hits, total and page", async () => {
    const value = { rows, events };
    const { store, tool, handle } = await stored(value, new SlowStorage(new MemoryStorage("review-slow")));
    try {
      await answered(tool, handle, { path: "$.rows[0]" }); // the index read and kept
      const args = { path: "$", search: "user5", offset: 300 };
      const search = answered(tool, handle, args);
      await new Promise((resolve) => setTimeout(resolve, 30)); // the search is streaming rows by now
      expect(await answered(tool, handle, { path: "$.events[0].at" })).toMatchObject({ value: 0 });
      expect(await search).toEqual(await expected(value, args));
    } finally {
      await store.onShutdown();
    }
  });
});

describe("S14.3 S14.6 a filter over batches counts its steps on its own meter", () => {
  it(
    "a query refused for its steps leaves nothing behind: a filter whose inner queries count steps " + "then answers",
    async () => {
      const value = { rows: rows.map((row, i) => ({ ...row, tags: i % 4 ? [] : ["a", "b"] })) };
      const { store, tool, handle } = await stored(value);
      try {
        const heavyValue = { a: Array.from({ length: 3000 }, (_, i) => ({ i })), chain: chain(3000) };
        const heavy = await stored(heavyValue);
        // Every descendant's descendants of a 3000-deep chain: 4.5 M steps, over the cost limit, refused (and
        // the whole answer is read: it names $).
        expect(await answered(heavy.tool, heavy.handle, { path: "$.chain..*[?count(@..*) > 5000]" })).toMatchObject({
          code: "INVALID_INPUT",
        });
        // S26.1: a query from the root inside a filter runs once, not once per item (3000 × 3000 steps were refused).
        // Every item sees the 3000 items, so every item is selected.
        expect(
          await answered(heavy.tool, heavy.handle, { path: "$.a[?count($.a[*]) > 2999]", limit: 2 }),
        ).toMatchObject({
          total: 3000,
          value: [{ i: 0 }, { i: 1 }],
        });
        for (const args of [
          { path: "$.rows[?count(@.tags[*]) > 1].id", limit: 3 },
          { path: "$.rows[?@.tags[?@ == 'b']].id", offset: 700 },
          { path: "$.rows[?value(@..owner) == 'user5'].id", limit: 2 },
        ]) {
          expect(await answered(tool, handle, args), JSON.stringify(args)).toEqual(await expected(value, args));
        }
        await heavy.store.onShutdown();
      } finally {
        await store.onShutdown();
      }
    },
  );
});

describe("S14.6 streams, slices and a whole read of one handle at once", () => {
  it("each answers as over the whole value, whatever runs beside it", async () => {
    const value = { rows, events, meta: { title: "user5 report" } };
    const { store, tool, handle } = await stored(value, new SlowStorage(new MemoryStorage("review-mix")));
    try {
      const calls: Record<string, unknown>[] = [
        { path: "$.rows[?@.owner == 'user5'].id", offset: 100 },
        { path: "$.events[*].at", offset: 2990 },
        { path: "$", search: "user5", offset: 400, limit: 5 },
        { path: "$.rows", search: "USER12", limit: 3 },
        { path: "$.rows[5:9].id" },
        { path: "$.events[100]" },
        { path: "$.rows[2000].owner" },
        { path: "$.rows[?@.id == $.meta.x]" }, // reads the whole answer, which then stays cached whole
        { path: "$.events..kind", offset: 330, limit: 4 },
        { path: "$.meta", search: "report" },
      ];
      const got = await Promise.all(
        calls.map(async (args, i) => {
          await new Promise((resolve) => setTimeout(resolve, 3 * i));
          return answered(tool, handle, args);
        }),
      );
      for (const [i, args] of calls.entries())
        expect(got[i], JSON.stringify(args)).toEqual(await expected(value, args));
    } finally {
      await store.onShutdown();
    }
  });
});

describe("S14.3 S14.6 a search under one path answers the same however the answer is read", () => {
  it("3.1 million values searched for text no batch holds: answered, read in batches or cached whole", async () => {
    const value = { rows: Array.from({ length: 3_100_000 }, (_, i) => i % 1000) };
    const { store, tool, handle } = await stored(
      value,
      new MemoryStorage("review-steps", { maxBytes: 512 * 1024 * 1024 }),
    );
    try {
      const args = { path: "$", search: "zzz" };
      const streamed = await answered(tool, handle, args); // every batch ruled out by its text
      expect(streamed).toEqual({
        path: "$",
        value: [],
        total: 0,
        offset: 0,
        note: expect.stringContaining('contains "zzz"'),
      }); // S18.2
      // now cached whole
      expect(await answered(tool, handle, { path: "$.rows[?@ == $.x]" })).toMatchObject({ total: 0 });
      // was refused: "would visit more than 3000000 values"
      expect(await answered(tool, handle, args)).toEqual(streamed);
      expect(await answered(tool, handle, { path: "$.rows", search: "999", limit: 1 })).toMatchObject({ total: 3100 });
    } finally {
      await store.onShutdown();
    }
  }, 60_000);
});
