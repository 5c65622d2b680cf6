// S14.3, S14.6, S16.4 a search at or above a wide object reads its member batches one by one, as a
// list's item batches: the same hits (keys and values, canonical paths), `total` and pages as a search
// over the whole value, on memory, SQLite and Redis under the real ResultQueryTool; no JSON.parse larger
// than a batch, nothing of the object kept in the cache of parsed answers, and a piece lost or a store
// failing mid-search answering the coded refusal (S8.5, S9.1), never a wrong page.
import { afterAll, describe, expect, it, vi } from "vitest";
import {
  MemoryStorage,
  ResultHandleStore,
  ResultQueryTool,
  type NamespacedStorage,
  type Owner,
} from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { AnswerReader } from "../../../src/records/read/answer-reader.js";
import { nodeCryptoBackend } from "../../../src/runtimes/node/crypto.js";
import { casesOn } from "../../helpers/soak.js";
import {
  answered as answeredBy,
  countedQueries,
  everyStore,
  KeyWatchingStorage,
  referenceAnswer,
} from "../../helpers/store-queries.js";

const owner: Owner = { session: "s-wide-search", caller: "reader" };
const config = { sliceLimitBytes: 16_384, preview: { chars: 60 } } as ResultHandlesConfig;
const PIECE_BYTES = 16 * 1024; // member batches of about 1 KB (piece-writer.ts: a 16th of a piece)
const expected = (value: object, args: Record<string, unknown>) => referenceAnswer(value, args, config);
const answered = (tool: ResultQueryTool, handle: string, args: Record<string, unknown>) =>
  answeredBy(tool, handle, args, owner);

/**
 * `count` members whose keys and values hold what a search may trip on: keys matching the needle, array
 * index keys (listed first by `Object.keys`, as the whole object lists them), `__proto__`, escapes,
 * lines, non-ASCII and İ, numbers and literals, and members holding lists and objects (a list inside a
 * wide object), one of them a wide object itself (written whole inside the member).
 */
function wide(count: number, tag: string): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    const key = i % 97 === 3 ? `user5 key ${i}` : i % 211 === 7 ? `${i * 3}` : `${tag}_${String(i).padStart(5, "0")}`;
    const kind = i % 9;
    object[key] =
      kind === 0
        ? `value ${i} of ${tag}`
        : kind === 1
          ? i * 7
          : kind === 2
            ? i % 2 === 0
            : kind === 3
              ? null
              : kind === 4
                ? [`user${i % 13}`, { deep: `say "hi" ${i}`, n: i }, [i, "ünï"]]
                : kind === 5
                  ? { owner: `user${i % 13}`, note: i % 4 === 0 ? `first line ${i}\nsecond user5 line` : `note ${i}` }
                  : kind === 6
                    ? i % 5 === 0
                      ? `İnci ${i}`
                      : `back\\slash ${i}`
                    : kind === 7
                      ? `user5 ${"p".repeat(i % 90)}`
                      : 0.5 + i;
  }
  Object.defineProperty(object, "__proto__", {
    value: "user5 proto",
    enumerable: true,
    configurable: true,
    writable: true,
  });
  object[`${tag}_nested`] = Object.fromEntries(
    Array.from({ length: 1100 }, (_, i) => [`inner ${i}`, i % 50 === 0 ? "user5 inner" : i]),
  );
  return object;
}

/**
 * Wide objects one and two keys down (indexed, S16.4), beside a list of rows one of which holds a wide
 * object, and a wide object three keys down (written whole, as lists there are: read with the rest).
 */
/** The answer, built once for the file (no test changes it), so its references are worked out once for every store. */
let built: ReturnType<typeof buildAnswer> | undefined;
const answer = () => (built ??= buildAnswer());
afterAll(() => void (built = undefined)); // the worker keeps this module for its later files (isolate: false)

function buildAnswer() {
  return {
    meta: { title: "user5 summary", kinds: ["map", "rows"] },
    map: wide(3000, "map"),
    rows: Array.from({ length: 400 }, (_, i) => ({
      id: i,
      owner: `user${i % 13}`,
      map: i === 17 ? wide(1100, "in_row") : undefined,
    })),
    data: { wide: wide(1500, "idx"), index: { deeper: wide(1100, "deep") }, label: "user5" },
  };
}

const SEARCHES: Record<string, unknown>[] = [
  { path: "$.map", search: "user5" },
  { path: "$.map", search: "user5", offset: 300, limit: 7 },
  { path: "$.map", search: "USER5", page: 9, limit: 11 },
  { path: "$.map", search: "user5", offset: 99_999 },
  { path: "$.map", search: "map_0" }, // keys only
  { path: "$.map", search: "map_0", offset: 2000, limit: 3 },
  { path: "$.map", search: "value 12" },
  { path: "$.map", search: "second user5", limit: 4 }, // a line of a multi-line string
  { path: "$.map", search: 'say "hi" 1', limit: 5 }, // a needle the text cannot tell
  { path: "$.map", search: "ünï", offset: 100, limit: 3 },
  { path: "$.map", search: "i̇nci" }, // İ folds to two units
  { path: "$.map", search: "true", limit: 2 },
  { path: "$.map", search: "63", offset: 10, limit: 6 }, // numbers and array index keys
  { path: "$.map", search: "proto" },
  { path: "$.map", search: "inner 10" }, // the wide object inside a member, walked whole
  { path: "$.map", search: "no such text" },
  { path: "$.map", search: "e", limit: 1000 }, // too large: refused with how many fit
  { path: "$.map.map_00010", search: "value" }, // under one key: the batch that may hold it
  { path: "$.map['user5 key 3']", search: "user" },
  { path: "$.map.map_00004", search: "user", offset: 1 },
  { path: "$.map.nope", search: "user5" }, // refused, naming the nearest key
  { path: "$", search: "user5", offset: 250, limit: 6 },
  { path: "$", search: "user5", offset: 900, limit: 5 },
  { path: "$", search: "in_row", limit: 3 }, // a wide object inside a list's item
  { path: "$", search: "idx_014", offset: 5 },
  { path: "$", search: "summary" },
  { path: "$.data", search: "user5", offset: 40, limit: 9 },
  { path: "$.data.wide", search: "idx_0009" },
  { path: "$.data.wide", search: "user5", page: 2 },
  { path: "$.data.index", search: "user5", offset: 30 },
  { path: "$.data.index.deeper", search: "deep_0100" },
  { path: "$.rows", search: "in_row_00001" },
];

const setUp = async (storage: NamespacedStorage, value: unknown) => countedQueries(storage, { config, owner, value });

describe("S14.6 a search over a wide object reads its member batches, on every store", () => {
  const stores = everyStore("wide-search");

  it.each(stores)(
    "%s: every search answers as over the whole value, streaming the wide objects",
    async (name, open) => {
      const value = answer();
      const setup = await setUp(await open(), value);
      const streamed = vi.spyOn(AnswerReader.prototype, "memberBatches");
      try {
        const searches = casesOn(name, SEARCHES);
        for (const args of searches) {
          const handle = await setup.fold();
          const got = await answered(setup.tool, handle, args);
          expect(got, JSON.stringify(args)).toEqual(await expected(value, args));
          // A second time, the index cached, and once more after a window of the object read (its batches in memory).
          expect(await answered(setup.tool, handle, args), JSON.stringify(args)).toEqual(got);
          await answered(setup.tool, handle, { path: "$.map", offset: 1500, limit: 40 });
          expect(await answered(setup.tool, handle, args), JSON.stringify(args)).toEqual(got);
        }
        expect(streamed.mock.calls.length).toBeGreaterThan(searches.length * 2);
      } finally {
        streamed.mockRestore();
        await setup.store.onShutdown();
      }
    },
    120_000,
  );

  let root: Record<string, unknown> | undefined; // one for every store, so its references are worked out once
  const pages = [0, 1, 19, 20, 444, 445, 1000, 5000].flatMap((offset) =>
    [1, 3, 20].flatMap((limit) =>
      ["user5", "root_01", "1", "ünï"].map((search) => ({ path: "$", search, offset, limit })),
    ),
  );
  it.each(stores)(
    "%s: a root wide object answers as whole at any page; a piece lost " +
      "reads as not found, a store failing is unavailable",
    async (name, open) => {
      const value = (root ??= wide(4000, "root"));
      const setup = await setUp(await open(), value);
      try {
        const handle = await setup.fold();
        for (const args of casesOn(name, pages))
          expect(await answered(setup.tool, handle, args), JSON.stringify(args)).toEqual(await expected(value, args));
        setup.counted.failAfter = setup.counted.gets + 3;
        expect(await answered(setup.tool, handle, { path: "$", search: "user5" })).toMatchObject({
          code: "RESULT_STORE_UNAVAILABLE",
        });
        setup.counted.failAfter = undefined;
        expect(await answered(setup.tool, handle, { path: "$", search: "user5" })).toEqual(
          await expected(value, { path: "$", search: "user5" }),
        );

        // A piece in the middle of the object deleted: found as the pieces a search fetches, in order.
        const watchingStorage = new KeyWatchingStorage(setup.counted.inner); // the setup's store closes the storage
        const { seen } = watchingStorage;
        const watching = new ResultHandleStore(watchingStorage, 60, { pieceBytes: PIECE_BYTES });
        const watched = watching.newHandle();
        await watching.save(watched, { meta: 1, map: value }, owner);
        const tool = new ResultQueryTool(() => [{ config, store: async () => watching }]);
        expect(await answered(tool, watched, { path: "$.map", search: "root_00000" })).toMatchObject({ total: 1 });
        await setup.counted.inner.delete(seen[Math.floor(seen.length / 2)]!);
        for (const args of [
          { path: "$.map", search: "user5" },
          { path: "$", search: "user5" },
          { path: "$.map", search: "no such text" },
        ]) {
          expect(await answered(tool, watched, args), JSON.stringify(args)).toMatchObject({
            code: "RESULT_HANDLE_NOT_FOUND",
          });
        }
      } finally {
        await setup.store.onShutdown();
      }
    },
    120_000,
  );
});

describe("S14.6 a wide object is searched batch by batch, never parsed whole nor cached (spy on JSON.parse)", () => {
  it(
    "no parse is larger than a batch; a needle the text rules out parses nothing; the cache grows " + "by no batch",
    async () => {
      const plain = Object.fromEntries(
        Array.from({ length: 30_000 }, (_, i) => [`key_${String(i).padStart(6, "0")}`, `value ${i}`]),
      );
      const value = { meta: { note: "user5" }, map: wide(20_000, "big"), plain };
      const bytes = JSON.stringify(value).length;
      const member = Math.max(...Object.values(value.map).map((at) => JSON.stringify(at).length));
      expect(member).toBeLessThan(bytes / 40);
      const setup = await setUp(new MemoryStorage("wide-search-spy", { maxBytes: 256 * 1024 * 1024 }), value);
      const parse = vi.spyOn(JSON, "parse");
      try {
        const parsedBy = async (args: Record<string, unknown>) => {
          const want = await expected(value, args);
          const handle = await setup.fold();
          await answered(setup.tool, handle, { path: "$.meta" }); // the index read and cached first
          const search = async () => {
            parse.mockClear();
            const got = await answered(setup.tool, handle, args);
            expect(got, JSON.stringify(args)).toEqual(want);
            return parse.mock.calls.map(([text]) => String(text).length);
          };
          const sizes = await search();
          // nothing of the search is kept (the parts outside were read before): the same search parses it all again
          expect(await search(), JSON.stringify(args)).toEqual(sizes);
          return { largest: Math.max(0, ...sizes), total: sizes.reduce((sum, size) => sum + size, 0) };
        };
        for (const args of [
          { path: "$.map", search: "user5", offset: 3000 },
          { path: "$", search: "big_1", limit: 3 },
          { path: "$", search: "ünï", offset: 10 },
          { path: "$.plain", search: "VALUE 2" },
        ]) {
          const { largest, total } = await parsedBy(args);
          // a batch (about 1 KB here) with the member that ends it (the largest is the nested object)
          expect(largest, JSON.stringify(args)).toBeLessThan(member + 4 * 1024);
          expect(total, JSON.stringify(args)).toBeGreaterThan(0);
        }
        expect((await parsedBy({ path: "$.map", search: "no such text" })).total).toBe(0);
        expect((await parsedBy({ path: "$", search: "no such text" })).total).toBe(0);
        // Hits counted from the text off the page (keys and values alike): only the batches of the page are parsed.
        for (const args of [
          { path: "$.plain", search: "key_0", offset: 9000, limit: 5 },
          { path: "$.plain", search: "value 2", offset: 5000, limit: 5 },
          { path: "$", search: "ey_02", offset: 700 },
        ]) {
          expect((await parsedBy(args)).total, JSON.stringify(args)).toBeLessThan(bytes / 50);
        }
        expect(bytes).toBeGreaterThan(900_000); // so "never whole" means something
      } finally {
        parse.mockRestore();
        await setup.store.onShutdown();
      }
    },
    60_000,
  );
});

describe("S14.3 a long search over a wide object yields", () => {
  it(
    "timers run while every batch is read from memory and decrypted " +
      "synchronously (node:crypto), and the answer is the whole value's",
    async () => {
      const value = Object.fromEntries(
        Array.from({ length: 300_000 }, (_, i) => [`key_${String(i).padStart(6, "0")}`, `value ${i} ünï`]),
      );
      const store = new ResultHandleStore(new MemoryStorage("wide-search-loop", { maxBytes: 256 * 1024 * 1024 }), 60, {
        crypto: nodeCryptoBackend()!,
      });
      const tool = new ResultQueryTool(() => [{ config, store: async () => store }]);
      try {
        const handle = store.newHandle();
        await store.save(handle, value, owner);
        // non-ASCII: no batch is ruled out by its text, every one is parsed and walked
        const args = { path: "$", search: "ünï 29999", limit: 5 };
        let ticks = 0;
        const probe = setInterval(() => ticks++, 1);
        const started = performance.now();
        const got = await answered(tool, handle, args);
        const ms = performance.now() - started;
        clearInterval(probe);
        expect(got).toEqual(await expected(value, args));
        // The reading yields at least every YIELD_AFTER_MS (records/read/pieces.ts): a reading of more than 100 ms saw
        // timers run.
        if (ms > 100) expect(ticks, `${ms.toFixed(0)} ms`).toBeGreaterThan(0);
      } finally {
        await store.onShutdown();
      }
    },
    60_000,
  );
});
