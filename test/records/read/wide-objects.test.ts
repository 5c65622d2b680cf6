// S16.4 reads cost what they return on a wide object: an object of a million keys is stored in member
// batches (S8.5), so a window of its keys (S7.4), a key by name or the refusal of a key it lacks (S14.5)
// reads only the pieces holding them, with `total` its whole key count, and a search reads each piece once,
// batch by batch (S14.6), and answers exactly what a read of the whole answer answers. Real stores (memory, SQLite,
// Redis) under the real ResultQueryTool; every
// record fetched is counted at the storage, and each query runs on a new store (nothing cached).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  MemoryStorage,
  ResultHandleStore,
  ResultQueryTool,
  type NamespacedStorage,
  type Owner,
} from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { serializeAnswerYielding } from "../../../src/records/format/serialize.js";
import { decodeIndex, encodeIndex } from "../../../src/records/format/answer-index.js";
import { batchesFor } from "../../../src/records/format/object-layout.js";
import { unitStarts } from "../../../src/records/format/layout.js";
import { toJsonBytes } from "../../../src/util/size.js";
import { decodeUtf8 } from "../../../src/util/utf8.js";
import { wideObject } from "../../../bench/shapes.js";
import { SOAK } from "../../helpers/soak.js";
import { answered as answeredBy, everyStore, referenceAnswer, savedCounted } from "../../helpers/store-queries.js";

const owner: Owner = { session: "s-wide", caller: "reader" };
const THRESHOLD = 16_384;

/**
 * What result_query answers for the whole value, read as one: the reference (S7.4, S7.5, S14.5), computed
 * once per value and query, so the three stores are held to one reference (a whole read of the 1M-key
 * object lists its keys, about 0.5 s each).
 */
const expected = (value: object, args: Record<string, unknown>) =>
  referenceAnswer(value, args, { sliceLimitBytes: THRESHOLD, preview: { chars: 500 } });

/** The 1M-key object, built once for the file: every test here reads it, none changes it. */
let millionKeys: Record<string, string> | undefined;
const million = () => (millionKeys ??= wideObject(1_000_000));
afterAll(() => void (millionKeys = undefined)); // the worker keeps this module for its later files (isolate: false)
const answered = (tool: ResultQueryTool, handle: string, args: Record<string, unknown>) =>
  answeredBy(tool, handle, args, owner);

function toolOver(store: ResultHandleStore): ResultQueryTool {
  return new ResultQueryTool(() => [
    {
      config: { sliceLimitBytes: THRESHOLD, preview: { chars: 500 } } as ResultHandlesConfig,
      store: async () => store,
    },
  ]);
}

/** The length of a value's JSON text, worked out once per value (the 1M-key object is saved on three stores). */
const lengths = new WeakMap<object, number>();
const textLength = (value: object) =>
  lengths.get(value) ?? lengths.set(value, JSON.stringify(value).length).get(value)!;

async function saved(storage: NamespacedStorage, value: object) {
  const { counted, store, handle, foldMs } = await savedCounted(storage, value, owner);
  /** One query on a new store over the same records (nothing cached): its answer, records fetched and time. */
  const fresh = async (args: Record<string, unknown>) => {
    const reader = new ResultHandleStore(counted, 60);
    counted.gets = 0;
    const begun = performance.now();
    const result = await answered(toolOver(reader), handle, args);
    return { result, gets: counted.gets, ms: performance.now() - begun };
  };
  return {
    counted,
    store,
    handle,
    fresh,
    foldMs,
    cached: toolOver(store),
    pieces: Math.ceil(textLength(value) / store.pieceBytes),
  };
}

/**
 * The answer read whole, except that a hint for a key the object lacks (S14.5) may name another key one
 * edit away when the whole read's lies in a batch past the reader's allowance: then it is still a key of the object.
 */
function expectSameAnswer(received: unknown, whole: unknown, value: Record<string, unknown>, label: string): void {
  const hint = /; did you mean "([^"]+)", at [^?]+\?$/;
  const wholeMessage = (whole as { message?: string }).message;
  const message = (received as { message?: string }).message;
  if (wholeMessage === undefined || message === undefined || !hint.test(message) || message === wholeMessage)
    return void expect(received, label).toEqual(whole);
  expect(message.replace(hint, ""), label).toBe(wholeMessage.replace(hint, ""));
  expect(Object.hasOwn(value, hint.exec(message)![1]!), label).toBe(true);
}

/** The 1M-key object's own checks: each query reads the index and at most `pieces` pieces. */
const MILLION_QUERIES: [Record<string, unknown>, number][] = [
  [{ path: "$" }, 1],
  [{ path: "$", limit: 5000 }, 1], // refused: more than the limit, from the first batches
  [{ path: "$", offset: 500_000, limit: 10 }, 2],
  [{ path: "$.key_500000" }, 2],
  // refused: its batch, the first batch, and the batches of the names one edit away until key_500000
  [{ path: "$.kye_500000" }, 4],
  [{ path: "$.key_999999" }, 2],
  [{ path: "$.nope" }, 4],
  // S7.4: the batches of the fields named
  [{ path: "$", fields: ["key_000001", "key_999999", "key_500000", "key_000001"] }, 4],
  // refused, the nearest key named, from the same batches as a name step
  [{ path: "$", fields: ["kye_500000", "nope"] }, 5],
];

/**
 * More fields than the index is asked name by name (S7.4, S26.1): 400 names, every 2,500th key, an absent name
 * between each two and every tenth one twice; and 400 names none of which is a key.
 */
const MANY_FIELDS = Array.from({ length: 400 }, (_, i) => `key_${String(i * 2500).padStart(6, "0")}`).flatMap(
  (key, i) => (i % 10 === 0 ? [key, `no_${i}`, key] : [key, `no_${i}`]),
);
const NO_FIELDS = Array.from({ length: 400 }, (_, i) => `kye_${String(i * 2500).padStart(6, "0")}`);
const MANY_FIELDS_QUERIES = [
  { path: "$", fields: MANY_FIELDS, offset: 390, limit: 20 },
  { path: "$", fields: NO_FIELDS },
];

/** A search of the 1M-key object: it reads every piece once, batch by batch (S14.6). */
const MILLION_SEARCH = { path: "$", search: "VALUE 99999", offset: 3, limit: 5 };

/** A run of windows and names, on one store that keeps what it read (the cache), each as read whole. */
const MILLION_RUNS: Record<string, unknown>[] = [
  ...[0, 1, 1299, 1300, 499_999, 999_990, 999_999, 1_000_000, 5_000_000].flatMap((offset) =>
    [1, 10, 100, 700].map((limit) => ({ path: "$", offset, limit })),
  ),
  { path: "$", page: 3 },
  { path: "", page: 50_000, limit: 20 },
  { path: "$", page: 50_001 },
  ...[
    "key_000000",
    "key_000001",
    "key_001300",
    "key_123456",
    "key_654321",
    "key_999999",
    "key_1000000",
    "KEY_000005",
    "aaa",
    "zzz",
    "key_",
    "key_12345",
    "key_0123456",
  ].map((key) => ({ path: `$.${key}` })),
  { path: "/key_000010" },
  { path: "key_000010" },
  { path: "$['key_000010']" },
  { path: "$.key_000010.length" },
  { path: "$[0]" },
  { path: "$['']" },
  { path: "$", fields: ["key_000001", "key_999999"] },
  { path: "$", fields: ["nope"] },
];

/**
 * The windows and names of MILLION_RUNS a store is held to: the whole read they are compared with costs
 * about 0.5 s a query here, so the full run is on memory in the soak run (helpers/soak.ts), and a sample of
 * every ninth on each store otherwise (the same reader over other storage).
 */
const runsOn = (store: string) =>
  SOAK && store === "memory" ? MILLION_RUNS : MILLION_RUNS.filter((_, i) => i % 9 === 0);

/** The many-fields queries on one store (S26.1): each read of every piece once, as read whole; then on a kept store. */
async function manyFields(
  setup: Awaited<ReturnType<typeof saved>>,
  value: Record<string, string>,
  figures: string[],
): Promise<void> {
  for (const args of MANY_FIELDS_QUERIES) {
    const many = await setup.fresh(args);
    expect(many.result, JSON.stringify(args).slice(0, 80)).toEqual(await expected(value, args));
    // Names none of which is a key: the refusal then reads the first keys' batch and up to 8 more for the names
    // one edit away (S14.5), as a name step does.
    const hint = args === MANY_FIELDS_QUERIES[1] ? 1 + 8 : 0;
    expect(many.gets, `${args.fields[0]} …`).toBeLessThanOrEqual(1 + setup.pieces + hint);
    figures.push(`${args.fields.length} fields ${many.gets} records ${many.ms.toFixed(1)} ms`);
  }
  const present = [...new Set(MANY_FIELDS)].filter((key) => Object.hasOwn(value, key));
  expect(present).toHaveLength(400);
  expect((await setup.fresh(MANY_FIELDS_QUERIES[0]!)).result).toMatchObject({
    value: Object.fromEntries(present.slice(390, 400).map((key) => [key, value[key]])),
    total: 400,
    offset: 390,
  });
  // On a store that keeps what it read: after the sift, a name step and a few fields still read their
  // batches (the keys sifted for are known, no other).
  for (const args of [
    MANY_FIELDS_QUERIES[0]!,
    { path: "$.key_123457" },
    { path: "$", fields: ["key_000001", "no_1", "key_002500"] },
    { path: "$.no_1" },
    MANY_FIELDS_QUERIES[1]!,
  ])
    expectSameAnswer(
      await answered(setup.cached, setup.handle, args),
      await expected(value, args),
      value,
      JSON.stringify(args).slice(0, 80),
    );
}

describe("S16.4 a wide object is read by its member batches, on every store", () => {
  const stores = everyStore("reads-wide", 30_000);
  // Every whole read first: a store's reads then follow its save closely, well within the handle's 60 s
  // lifetime even on a loaded machine (the whole reads of one store's queries took longer than that).
  beforeAll(async () => {
    for (const args of [
      ...MILLION_QUERIES.map(([args]) => args),
      MILLION_SEARCH,
      ...(SOAK ? [] : MANY_FIELDS_QUERIES),
      ...new Set(stores.flatMap(([name]) => runsOn(name))),
    ])
      await expected(million(), args);
  }, 400_000);

  it.each(stores)(
    "%s: the 1M-key object answers each query from a few pieces, exactly as read whole",
    async (name, open) => {
      const value = million();
      const setup = await saved(await open(), value);
      const figures: string[] = [];
      for (const [args, pieces] of MILLION_QUERIES) {
        const { result, gets, ms } = await setup.fresh(args);
        expect(result).toEqual(await expected(value, args));
        // the index, then pieces: of ${setup.pieces}
        expect(gets, JSON.stringify(args)).toBeLessThanOrEqual(1 + pieces);
        figures.push(`${JSON.stringify(args)} ${gets} records ${ms.toFixed(1)} ms`);
      }
      // A search reads every piece once, batch by batch (S14.6), never the object whole: the hits of the whole read.
      const search = MILLION_SEARCH;
      const searched = await setup.fresh(search);
      expect(searched.result).toEqual(await expected(value, search));
      expect(searched.result).toMatchObject({ total: 11 });
      expect(searched.gets).toBeLessThanOrEqual(1 + setup.pieces);
      figures.push(`${JSON.stringify(search)} ${searched.gets} records ${searched.ms.toFixed(1)} ms`);
      // Many fields sift every piece once for the names (S26.1), never the object read whole: the whole read's
      // answer, which is the present names in their order (plain code). Not again in the soak run (its runs below).
      if (!SOAK) await manyFields(setup, value, figures);
      expect((await setup.fresh({ path: "$", offset: 500_000, limit: 10 })).result).toMatchObject({
        total: 1_000_000,
        nextOffset: 500_010,
      });
      expect(((await setup.fresh({ path: "$.kye_500000" })).result as { message: string }).message).toContain(
        'an object of 1000000 keys ("key_000000"',
      );
      expect(((await setup.fresh({ path: "$.kye_500000" })).result as { message: string }).message).toContain(
        'did you mean "key_500000"',
      );
      for (const args of runsOn(name))
        expectSameAnswer(
          await answered(setup.cached, setup.handle, args),
          await expected(value, args),
          value,
          JSON.stringify(args),
        );
      console.log(
        `S16.4 ${name}: 1M-key object (${setup.pieces} pieces, saved in ` +
          `${setup.foldMs.toFixed(0)} ms): ${figures.join("; ")}`,
      );
      await setup.store.onShutdown();
    },
    240_000,
  );
});

/** `count` keys in a shuffled order (not sorted): the index finds a key's batch by Bloom filter. */
function shuffledObject(count: number): Record<string, unknown> {
  const keys = Array.from({ length: count }, (_, i) => `id-${((i * 7919) % count).toString(36)}-${i % 13}`);
  const object: Record<string, unknown> = {};
  for (const key of keys) object[key] = { n: key.length, tag: key.slice(-2) };
  return object;
}

describe("S16.4 wide objects of every kind of key, beside lists and long strings", () => {
  it(
    "a shuffled wide object under $.map: windows and names read candidate batches only, " + "answers as whole",
    async () => {
      const map = shuffledObject(200_000);
      const value = { meta: { kind: "index", pages: 3 }, map, rows: Array.from({ length: 30_000 }, (_, i) => ({ i })) };
      const setup = await saved(new MemoryStorage("reads-wide-bloom", { maxBytes: 200_000_000 }), value);
      const keys = Object.keys(map);
      const counts: number[] = [];
      for (const key of [keys[0]!, keys[1]!, keys[77_777]!, keys[199_999]!]) {
        const args = { path: `$.map[${JSON.stringify(key)}].tag` };
        const { result, gets } = await setup.fresh(args);
        expect(result).toEqual(await expected(value, args));
        expect(gets).toBeLessThanOrEqual(1 + 8); // its batch and a few false positives: of ${setup.pieces} pieces
        counts.push(gets);
      }
      console.log(
        `S16.4 shuffled 200k-key object (${setup.pieces} pieces): a key by name ` +
          `read ${counts.join(", ")} records (the index included)`,
      );
      for (const args of [
        { path: "$" },
        { path: "$.meta" },
        { path: "$.map", offset: 100_000, limit: 30 },
        { path: "$.rows", offset: 10 },
      ]) {
        const { result, gets } = await setup.fresh(args);
        expect(result, JSON.stringify(args)).toEqual(await expected(value, args));
        expect(gets).toBeLessThanOrEqual(8);
      }
      // A key it lacks: refused, the key count named, any hint a real key.
      const missing = (await setup.fresh({ path: "$.map.id-zzzz-99" })).result as { code: string; message: string };
      expect(missing.code).toBe("RESULT_PATH_NOT_FOUND");
      expect(missing.message).toContain("$.map is an object of 200000 keys");
      const hint = /did you mean "([^"]+)"/.exec(missing.message)?.[1];
      if (hint !== undefined) expect(Object.hasOwn(map, hint)).toBe(true);
      // Searches, nodelists, fields and references read it whole and answer as before.
      for (const args of [
        { path: "$.map", limit: 3, offset: 5 },
        { path: "$.map.*", limit: 2 },
        { path: "$.map", fields: [keys[3]!] },
        { path: "$..tag", limit: 1 },
      ]) {
        expect(await answered(setup.cached, setup.handle, args), JSON.stringify(args)).toEqual(
          await expected(value, args),
        );
      }
      const search = await answered(setup.cached, setup.handle, { path: "$.map", search: keys[150_000]! });
      expect(search).toEqual(await expected(value, { path: "$.map", search: keys[150_000]! }));
      expect((await setup.cached.referenced(setup.handle, `$.map[${JSON.stringify(keys[5]!)}]`, owner)).value).toEqual(
        map[keys[5]!],
      );
      await setup.store.onShutdown();
    },
    120_000,
  );

  it("serialises every kind of wide object to the exact text of JSON.stringify, indexing those it may", async () => {
    const integers: Record<string, unknown> = {};
    // Object.keys puts the indexes first, in numeric order
    for (let i = 3000; i >= 0; i--) integers[i % 2 ? String(i) : `k${i}`] = i;
    const odd: Record<string, unknown> = Object.fromEntries(
      Array.from({ length: 3000 }, (_, i) => [`m${String(i).padStart(4, "0")}`, i]),
    );
    Object.defineProperty(odd, "__proto__", {
      value: { polluted: true },
      enumerable: true,
      configurable: true,
      writable: true,
    });
    Object.assign(odd, {
      skipped: undefined,
      fn: () => 1,
      when: new Date(0),
      own: { toJSON: (key: string) => `key ${key}` },
      gone: { toJSON: () => undefined },
    });
    const cases: [string, unknown, number][] = [
      ["root", wideObject(20_000), 20_000],
      ["integers", { data: { byId: integers } }, 3001],
      ["odd members", { odd }, 3003], // undefined, a function and a toJSON giving undefined are left out
      ["too deep", { a: { b: { c: wideObject(5000) } } }, -1], // below LIST_DEPTH: written whole
    ];
    for (const [label, value, members] of cases) {
      const json = await serializeAnswerYielding(value, { pieceBytes: 16 * 1024 });
      expect(json.text, label).toBe(JSON.stringify(value));
      if (members < 0) expect(json.objects).toEqual([]);
      else
        expect(
          json.objects.map((object) => object.length),
          label,
        ).toEqual([members]);
    }
    const parsed = JSON.parse((await serializeAnswerYielding({ odd }, { pieceBytes: 16 * 1024 })).text) as {
      odd: Record<string, unknown>;
    };
    expect(Object.getOwnPropertyDescriptor(parsed.odd, "__proto__")?.value).toEqual({ polluted: true });
  });

  it(
    "the index finds the batch of every key, in code unit order, natural order, with indexes first, " + "or shuffled",
    async () => {
      const natural = Object.fromEntries(Array.from({ length: 30_000 }, (_, i) => [`item${i}-v${i % 7}`, i]));
      const mixed: Record<string, number> = {};
      for (let i = 0; i < 6000; i++) mixed[i % 3 ? `n${i}` : String(i * 1000)] = i;
      const cases: [string, Record<string, unknown>, string | undefined][] = [
        ["code", wideObject(30_000), "code"],
        ["natural", natural, "natural"],
        ["indexes first", mixed, "natural"],
        ["shuffled", shuffledObject(30_000), undefined],
      ];
      for (const [label, object, order] of cases) {
        const [layout] = (await serializeAnswerYielding({ object }, { pieceBytes: 16 * 1024 })).objects;
        expect(layout!.firsts ? (layout!.order ?? "code") : undefined, label).toBe(order);
        const starts = unitStarts(layout!.batches);
        // One expect for all keys (an expect each cost more than the lookups): the keys whose batch is not found.
        const lost = Object.keys(object).filter(
          (key, at) => !batchesFor(layout!, key).includes(starts.findLastIndex((start) => start <= at)),
        );
        expect(lost, label).toEqual([]);
        // A name it lacks: at most one batch in order; by filter, false positives in about 1% of the batches.
        const misses = ["zzz", "item", "key_", "item99999", "0", "a-1"].map((name) => batchesFor(layout!, name).length);
        expect(Math.max(...misses), label).toBeLessThanOrEqual(order ? 1 : Math.ceil(starts.length * 0.03));
      }
    },
    60_000,
  ); // 10 s alone; several times that beside other files on a loaded machine

  it("a wide object's index is a small fraction of it (S16.3), in order or shuffled", async () => {
    for (const [label, value] of [
      ["1M keys in order", million()],
      ["200k shuffled keys", shuffledObject(200_000)],
    ] as const) {
      const json = await serializeAnswerYielding(value, { pieceBytes: 256 * 1024 });
      const index = JSON.stringify(json.objects).length;
      expect(index / json.bytes, label).toBeLessThan(1 / 12);
      console.log(
        `S16.3 ${label}: answer ${(json.bytes / 1e6).toFixed(1)} MB, its objects' index ` +
          `${(index / 1e3).toFixed(1)} KB (${((100 * index) / json.bytes).toFixed(2)}%)`,
      );
      json.release();
    }
  }, 60_000);

  it("an index written before wide objects (no objects field) still decodes, with none", () => {
    const index = {
      nonce: new Uint8Array(16),
      pieces: [10],
      pad: 16,
      ivs: new Uint8Array(12),
      tags: new Uint8Array(16),
      ascii: [1],
      lists: [],
      strings: [],
      objects: [],
    };
    const old = JSON.parse(decodeUtf8(encodeIndex(index))) as Record<string, unknown>;
    delete old.objects;
    expect(decodeIndex(toJsonBytes(old))?.objects).toEqual([]);
  });
});
