// S14.6 (review), differential: seeded random answers (lists at the root, under one to three keys, under
// names with dots, quotes, unicode or `__proto__`; items holding escapes, lone surrogates, non-ASCII and
// case-folding traps) and random filters, wildcards, slices, descendants and searches, each answered by
// `result_query` over the store in pieces of 16 KB (lists in batches of about 1 KB) and over the whole
// value: nodes, order, paths, total, paging and refusals must be the same. Then wide objects (S16.4: more
// than 1024 keys, in member batches) at the root or under keys, beside lists, holding lists and rows, one
// inside a list's item, searched at, above and under them. Deterministic (one seed) and fast.
import { describe, expect, it, vi } from "vitest";
import { AnswerReader } from "../../../src/records/read/answer-reader.js";
import { MemoryStorage, ResultHandleStore, ResultQueryTool, type Owner } from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { nodeBatchWorkers } from "../../../src/runtimes/node/batch-workers.js";
import type { BatchWorkers } from "../../../src/query/workers/pool.js";
import { soakSized } from "../../helpers/soak.js";
import { answered, wholeAnswer } from "../../helpers/store-queries.js";

/** The steps a random slice may take (S14.2). */
const STEPS = ["1", "2", "3", "7", "-1", "-3", "0", "100"];

const owner: Owner = { session: "s-diff", caller: "reader" };
const config = { sliceLimitBytes: 16_384, preview: { chars: 60 } } as ResultHandlesConfig;

/** mulberry32: a small seeded generator, so a failure can be replayed. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  return { next, int, pick };
}
type Random = ReturnType<typeof random>;

const TEXTS = [
  'say "hi"',
  "back\\slash",
  "two\nlines here",
  "tab\there",
  "ünïcödé",
  "İstanbul",
  "\u212Aelvin",
  "ΣΊΣΥΦΟΣ",
  "σίσυφος",
  "ς end",
  "\ud800 lone",
  "pair \ud83d\ude00 ok",
  "user5",
  "USER5",
  "",
  "a",
  "'quote'",
  "x\u2028y",
  "\u0000nul",
  "k",
  "0.5",
  "1e+21",
  "true",
];
const NUMBERS = [0, -0, 1, -1, 0.5, 1e21, 1e-7, 123456789, 5, 50, 500, -2.5];

function item(r: Random, i: number): unknown {
  const kind = r.int(10);
  if (kind === 0) return r.pick(TEXTS) + (r.next() < 0.5 ? ` ${i}` : "");
  if (kind === 1) return r.pick(NUMBERS);
  if (kind === 2) return r.pick([true, false, null]);
  const row: Record<string, unknown> = { id: i, owner: `user${r.int(13)}` };
  if (r.next() < 0.7) row.s = r.pick(TEXTS) + (r.next() < 0.3 ? "\n" + r.pick(TEXTS) : "");
  if (r.next() < 0.5) row.n = r.pick(NUMBERS);
  if (r.next() < 0.4) row.b = r.next() < 0.5;
  if (r.next() < 0.2) row.nul = null;
  if (r.next() < 0.5) row.tags = Array.from({ length: r.int(4) }, () => r.pick(["a", "b", "x", "İ", 'q"']));
  if (r.next() < 0.5) row.nested = { name: `n${r.int(20)}`, deep: { name: r.pick(TEXTS) } };
  if (r.next() < 0.1) row[r.pick(["Owner", "ünï", "a.b", PROTO, "user5"])] = r.pick(TEXTS);
  if (r.next() < 0.3) row.pad = "p".repeat(r.int(120));
  return row;
}

function list(r: Random, length: number): unknown[] {
  const scalars = r.next() < 0.15;
  return Array.from({ length }, (_, i) =>
    scalars ? r.pick([...TEXTS, ...NUMBERS.map(String)]) + (i % 7) : item(r, i),
  );
}

/** Where lists stand: keys from the root (empty: the root is the list). */
const PLACES: string[][][] = [
  [["rows"]],
  [[]],
  [["data", "search", "nodes"]],
  [["rows"], ["events"]],
  [["a.b"], ["it's"], ["ü ñ"]],
  [["__proto__"], ["meta", 'x"y']],
  [
    ["data", "rows"],
    ["data", "more"],
  ],
];

/**
 * A wide object (S16.4): keys of every kind (array indexes, which `Object.keys` lists first; texts with
 * escapes and non-ASCII; `__proto__`; keys holding the needles), values as list items are.
 */
function wideObject(r: Random, count: number): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    const kind = r.int(12);
    const key = kind === 0 ? String(i * 7) : kind === 1 ? `${r.pick(TEXTS)} ${i}` : kind === 2 ? `user5 ${i}` : `k${i}`;
    object[key] = item(r, i);
  }
  object[PROTO] = r.pick(TEXTS);
  return object;
}

/** Where lists and wide objects stand, for the rounds with wide objects. */
const WIDE_PLACES: { lists: string[][]; objects: string[][] }[] = [
  { lists: [], objects: [[]] },
  { lists: [["rows"]], objects: [["map"]] },
  { lists: [["data", "rows"]], objects: [["data", "map"], ["ü ñ"]] },
  { lists: [], objects: [["__proto__"], ["a.b"]] },
];

/** A JSON value: built, then renamed and parsed, so `__proto__` is an own key, as in any parsed answer. */
function answer(r: Random, places: string[][], objects: string[][] = []): unknown {
  const proto = (key: string) => (key === "__proto__" ? PROTO : key);
  let built: unknown;
  if (objects[0]?.length === 0) built = wideObject(r, 1100 + r.int(1500));
  else if (places[0]?.length === 0) built = list(r, 1200 + r.int(1500));
  else {
    const root: Record<string, unknown> = { meta: { title: "orders", note: r.pick(TEXTS) }, total: 3 };
    const parts = [...places.map((path) => ({ path, wide: false })), ...objects.map((path) => ({ path, wide: true }))];
    for (const { path, wide } of parts.map(({ path, wide }) => ({ path: path.map(proto), wide }))) {
      let at = root;
      for (const key of path.slice(0, -1)) {
        if (at[key] === null || typeof at[key] !== "object") at[key] = { label: `about ${key}` };
        at = at[key] as Record<string, unknown>;
      }
      const part = wide ? wideObject(r, 1100 + r.int(1500)) : list(r, 900 + r.int(1200));
      // a wide object inside a list's item: read with its batch
      if (!wide && objects.length > 0) (part as unknown[])[r.int(40)] = wideObject(r, 1025 + r.int(200));
      at[path[path.length - 1]!] = part;
    }
    built = root;
  }
  return JSON.parse(JSON.stringify(built).replaceAll(JSON.stringify(PROTO), '"__proto__"'));
}
const PROTO = "__proto_x__";

/** A name selector in one of its spellings. */
function nameSelector(r: Random, name: string): string {
  const dotted = /^[A-Za-z_][A-Za-z0-9_]*$/.test(name);
  const form = r.int(dotted ? 3 : 2);
  if (form === 2) return `.${name}`;
  return form === 0 ? `[${quoteName(name, "'")}]` : `[${quoteName(name, '"')}]`;
}

function quoteName(text: string, quote: "'" | '"'): string {
  let out = quote;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === quote || char === "\\") out += "\\" + char;
    else if (code < 0x20 || (code >= 0xd800 && code <= 0xdfff)) out += "\\u" + code.toString(16).padStart(4, "0");
    else out += char;
  }
  return out + quote;
}

function literal(r: Random): string {
  const text = r.pick([...TEXTS, "user5", "user12", "a", "x", "n3", 'q"']);
  return quoteName(text, r.pick(["'", '"'] as const));
}

function filterTerm(r: Random, depth = 0): string {
  const field = r.pick([
    "@.owner",
    "@.s",
    "@.nested.name",
    "@.nested.deep.name",
    "@",
    "@.tags[0]",
    "@['a.b']",
    "@.Owner",
    "@.n",
    "@.id",
  ]);
  const terms = [
    () => `${field} == ${literal(r)}`,
    () => `${literal(r)} == ${field}`,
    () => `@.owner == 'user${r.int(13)}'`,
    () => `@.n ${r.pick(["<", ">", "<=", ">=", "==", "!="])} ${r.pick(["0", "-1", "0.5", "1e21", "5", "-0"])}`,
    () => `@.id ${r.pick(["<", ">", "=="])} ${r.int(800)}`,
    () => `@.b == ${r.pick(["true", "false", "null"])}`,
    () => `@.nul == null`,
    () => `${field} != ${literal(r)}`,
    () => `@.${r.pick(["s", "tags", "nested", "nul", "missing"])}`,
    () => `length(@.${r.pick(["s", "tags", "owner"])}) ${r.pick([">", "==", "<"])} ${r.int(8)}`,
    () => `count(@.tags[*]) == ${r.int(4)}`,
    () => `match(@.owner, 'user1.?')`,
    () => `search(${r.pick(["@.s", "@"])}, '${r.pick(["ü", "[Uu]ser5", "lone", "^a", "\\\\.", "İ"])}')`,
    () => `value(@..name) == 'n${r.int(20)}'`,
    () => `@.tags[?@ == '${r.pick(["a", "x", "İ"])}']`,
    () => `@ == ${literal(r)}`,
    () => `@ ${r.pick(["<", ">"])} ${r.pick(["'m'", "0", "5"])}`,
  ];
  const term = r.pick(terms)();
  if (depth < 2 && r.next() < 0.35) return `${term} ${r.pick(["&&", "&&", "||"])} ${filterTerm(r, depth + 1)}`;
  if (depth < 2 && r.next() < 0.1) return `!(${term})`;
  if (depth < 2 && r.next() < 0.1) return `(${term} || ${filterTerm(r, depth + 1)}) && ${filterTerm(r, depth + 1)}`;
  return term;
}

function sliceBound(r: Random, length: number): string {
  const choice = r.int(5);
  if (choice === 0) return "";
  if (choice === 1) return String(-r.int(length + 20));
  return String(r.int(length + 20));
}

function step(r: Random, length: number): string {
  switch (r.int(8)) {
    case 0:
      return "[*]";
    case 1:
    case 2:
      return `[?${filterTerm(r)}]`;
    case 3:
      return `[${sliceBound(r, length)}:${sliceBound(r, length)}${r.next() < 0.5 ? "" : ":" + r.pick(STEPS)}]`;
    case 4:
      return `..${r.pick(["name", "id", "s", "deep", "tags"])}`;
    case 5:
      return `..[${quoteName(r.pick(["name", "a.b", "__proto__", "ünï"]), "'")}]`;
    case 6:
      return r.pick(["[?@.id == 3, ?@.id == 1]", "[0,2]", "..*", "[?@.id == $.total]", "..[0]", "[*,*]"]);
    default:
      return `[${-r.int(5) - 1}:]`;
  }
}

function rest(r: Random): string {
  return r.pick(["", "", "", ".id", ".s", ".tags[0]", ".nested.name", "..name", "[*]", ".tags[*]", "[0]", "['a.b']"]);
}

function paging(r: Random): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const choice = r.int(6);
  if (choice === 1) args.offset = r.int(400);
  if (choice === 2) args.page = 1 + r.int(8);
  if (choice >= 1 && r.next() < 0.7) args.limit = 1 + r.int(r.next() < 0.1 ? 1000 : 30);
  if (choice === 3) args.limit = 1 + r.int(60);
  return args;
}

function query(r: Random, places: string[][], value: unknown): Record<string, unknown> {
  const place = r.pick(places);
  const length = (place.reduce<unknown>((at, key) => (at as Record<string, unknown>)[key], value) as unknown[]).length;
  const prefix = "$" + place.map((key) => nameSelector(r, key)).join("");
  if (r.next() < 0.3) {
    const needle = r.pick([
      "user5",
      "USER12",
      "ü",
      "İ",
      "i",
      "k",
      "K",
      "\u212A",
      "σ",
      "ς",
      "Σ",
      "1e+21",
      "0",
      "-0",
      "true",
      "fals",
      "null",
      "owner",
      "OWNER",
      'y "h',
      "\\s",
      "e",
      "lines h",
      "\ud800",
      "😀",
      "p".repeat(40),
      "x\u2028",
      "a.b",
      "'quote",
      "n1",
    ]);
    const parents = [
      "$",
      ...(place.length > 1
        ? [
            "$" +
              place
                .slice(0, -1)
                .map((key) => nameSelector(r, key))
                .join(""),
          ]
        : []),
    ];
    const path = r.pick([
      prefix,
      prefix,
      ...parents,
      `${prefix}[*]`,
      `${prefix}[?@.owner == 'user5']`,
      `${prefix}[${r.int(length)}]`,
    ]);
    const args: Record<string, unknown> = { path, search: needle, ...paging(r) };
    return args;
  }
  const args: Record<string, unknown> = { path: prefix + step(r, length) + rest(r), ...paging(r) };
  if (r.next() < 0.12) args.fields = r.pick([["id"], ["id", "owner"], ["nope"], ["s", "missing"]]);
  return args;
}

/** A search at, above or under a wide object (S16.4), or a query of the lists beside it. */
function wideQuery(r: Random, lists: string[][], objects: string[][], value: unknown): Record<string, unknown> {
  if (lists.length > 0 && r.next() < 0.3) return query(r, lists, value);
  const place = r.pick(objects);
  const object = place.reduce<unknown>((at, key) => (at as Record<string, unknown>)[key], value) as Record<
    string,
    unknown
  >;
  const keys = Object.keys(object);
  const prefix = "$" + place.map((key) => nameSelector(r, key)).join("");
  const parents =
    place.length > 0
      ? [
          "$",
          "$" +
            place
              .slice(0, -1)
              .map((key) => nameSelector(r, key))
              .join(""),
        ]
      : [];
  const under = `${prefix}${nameSelector(r, r.pick(keys))}`;
  const path = r.pick([
    prefix,
    prefix,
    prefix,
    ...parents,
    under,
    `${prefix}['no such key']`,
    `${prefix}.*`,
    `${prefix}[?@.owner == 'user5']`,
  ]);
  const needle = r.pick([
    "user5",
    "USER12",
    "ü",
    "İ",
    "i",
    "k",
    "K1",
    "k10",
    "\u212A",
    "σ",
    "1e+21",
    "0",
    "7",
    "true",
    "null",
    "owner",
    'y "h',
    "e",
    "lines h",
    "\ud800",
    "😀",
    "p".repeat(40),
    "a.b",
    "'quote",
    "n1",
    "__proto__",
    "1 ",
    "nested",
  ]);
  return { path, search: needle, ...paging(r) };
}

/** A window of one part's items or keys, read before the query: the stream then meets batches already in memory. */
function windowRead(r: Random, places: readonly string[][]): Record<string, unknown> {
  const place = r.pick(places);
  return {
    path: "$" + place.map((key) => `[${quoteName(key, "'")}]`).join(""),
    offset: r.int(1500),
    limit: 1 + r.int(40),
  };
}

/**
 * `value` saved once for a round of queries, under `store` (the writer; it is never read through).
 */
async function savedOnce(store: ResultHandleStore, value: unknown): Promise<string> {
  const handle = store.newHandle();
  await store.save(handle, value, owner);
  return handle;
}

/**
 * A `result_query` over a store of its own on `storage`: a query reading the whole answer leaves it cached
 * whole in the store that read it, so each query starts with nothing cached, as on a fresh handle.
 */
function freshTool(storage: MemoryStorage, pool?: BatchWorkers): ResultQueryTool {
  const reader = new ResultHandleStore(storage, 60, { pieceBytes: 16 * 1024 });
  return new ResultQueryTool(() => [{ config, store: async () => reader, workers: pool }]);
}

/**
 * `window` read first when given, then `args` answered from the store and over the whole value, both
 * through one fresh reader of `handle`: a difference goes to `failures`.
 */
async function compare(
  tool: ResultQueryTool,
  handle: string,
  value: unknown,
  args: Record<string, unknown>,
  label: string,
  failures: string[],
  window?: Record<string, unknown>,
) {
  if (window) await answered(tool, handle, window, owner);
  const want = await wholeAnswer(value, args, config);
  const got = await answered(tool, handle, args, owner);
  try {
    expect(got).toEqual(want);
  } catch {
    failures.push(
      `${label} ${JSON.stringify(args)}\n  got  ` +
        `${JSON.stringify(got).slice(0, 400)}\n  want ${JSON.stringify(want).slice(0, 400)}`,
    );
  }
}

/**
 * Rounds (one random answer each) and queries per round: every place of PLACES and WIDE_PLACES in both
 * runs; `npm test` asks about a tenth of the queries the soak run asks (190 of 1840) (helpers/soak.ts).
 */
const ROUNDS = { lists: soakSized(7, 12), wide: soakSized(4, 8), descendants: soakSized(7, 10) };
const QUERIES = { lists: soakSized(10, 80), wide: soakSized(16, 60), descendants: soakSized(8, 40) };

// On this thread, and with every list's batches counted on batch workers first (of any size here).
// never stopped for idleness mid-test (loading one from the sources takes a while)
const workers = nodeBatchWorkers({ minBytes: 0, threads: 2, idleMs: 60_000 })!;
describe.each([
  ["on the calling thread", undefined],
  ["counted on batch workers", workers],
] as const)("S14.6 differential: over batches as over the whole value, %s", (_, pool) => {
  it("random answers and queries (seeded)", async () => {
    const r = random(1406);
    const storage = new MemoryStorage("differential", { maxBytes: 256 * 1024 * 1024 });
    const store = new ResultHandleStore(storage, 60, { pieceBytes: 16 * 1024 });
    if (pool) expect(await pool.warm()).toBe(true); // loaded before the first query, so every query may use them
    const counted = pool && vi.spyOn(pool, "count");
    const failures: string[] = [];
    let asked = 0;
    let streams = 0;
    const streamed = vi.spyOn(AnswerReader.prototype, "batches");
    try {
      for (let round = 0; round < ROUNDS.lists; round++) {
        const places = PLACES[round % PLACES.length]!;
        const value = answer(r, places);
        const handle = await savedOnce(store, value);
        for (let q = 0; q < QUERIES.lists; q++) {
          const args = query(r, places, value);
          asked++;
          // A fresh reader each (a query reading the whole answer leaves it cached whole); on every other,
          // some batches read by a slice first, which a stream then takes from memory.
          const window = q % 2 === 1 ? windowRead(r, places) : undefined;
          await compare(freshTool(storage, pool), handle, value, args, `round ${round}`, failures, window);
        }
      }
      streams = streamed.mock.calls.length;
    } finally {
      streamed.mockRestore();
      await store.onShutdown();
    }
    expect(asked).toBe(ROUNDS.lists * QUERIES.lists);
    expect(streams).toBeGreaterThan(asked / 3); // most queries did stream
    if (counted) {
      expect(counted.mock.calls.length).toBeGreaterThan(asked / 3); // and with a pool, most were counted there
      await expect(counted.mock.results.at(-1)!.value).resolves.toBeDefined();
      expect(pool.usable).toBe(true); // no worker failed on the way
    }
    expect(failures.slice(0, 8).join("\n")).toBe("");
  }, 60_000);
});

describe("S14.6, S16.4 differential: searches over wide objects' member batches as over the whole value", () => {
  it("random answers with wide objects and searches at, above and under them (seeded)", async () => {
    const r = random(1643);
    const storage = new MemoryStorage("differential-wide", { maxBytes: 256 * 1024 * 1024 });
    const store = new ResultHandleStore(storage, 60, { pieceBytes: 16 * 1024 });
    const failures: string[] = [];
    let asked = 0;
    const streamed = vi.spyOn(AnswerReader.prototype, "memberBatches");
    try {
      for (let round = 0; round < ROUNDS.wide; round++) {
        const { lists, objects } = WIDE_PLACES[round % WIDE_PLACES.length]!;
        const value = answer(r, lists, objects);
        const handle = await savedOnce(store, value);
        for (let q = 0; q < QUERIES.wide; q++) {
          const args = wideQuery(r, lists, objects, value);
          asked++;
          // Some batches read first by a window (of keys, or of items), which the search must still read whole.
          const window = q % 2 === 1 ? windowRead(r, [...lists, ...objects]) : undefined;
          await compare(freshTool(storage), handle, value, args, `round ${round}`, failures, window);
        }
      }
      expect(streamed.mock.calls.length).toBeGreaterThan(asked / 3); // most searches did stream member batches
    } finally {
      streamed.mockRestore();
      await store.onShutdown();
    }
    expect(failures.slice(0, 8).join("\n")).toBe("");
  }, 60_000);
});

describe.each([
  ["on the calling thread", undefined],
  ["counted on batch workers", workers],
] as const)(
  "S14.6 differential: descendants by name above lists, each list read where it stands, as over the whole value, %s",
  (_, pool) => {
    it("random answers and $..name queries (seeded)", async () => {
      const r = random(1407);
      const storage = new MemoryStorage("differential-descendants", { maxBytes: 256 * 1024 * 1024 });
      const store = new ResultHandleStore(storage, 60, { pieceBytes: 16 * 1024 });
      if (pool) expect(await pool.warm()).toBe(true);
      const counted = pool && vi.spyOn(pool, "count");
      const walked = vi.spyOn(AnswerReader.prototype, "partAt");
      const failures: string[] = [];
      let asked = 0;
      try {
        for (let round = 0; round < ROUNDS.descendants; round++) {
          const places = PLACES[round % PLACES.length]!.filter((place) => place.length > 0);
          if (places.length === 0) continue; // a root list is an item plan already
          const value = answer(r, places);
          const handle = await savedOnce(store, value);
          for (let q = 0; q < QUERIES.descendants; q++) {
            const place = r.pick(places);
            const parents = [
              "$",
              ...place.slice(0, -1).map(
                (_, n) =>
                  "$" +
                  place
                    .slice(0, n + 1)
                    .map((key) => nameSelector(r, key))
                    .join(""),
              ),
            ];
            // Names in items, names of the lists themselves (then read whole), names outside the lists.
            const names = r.pick([
              "name",
              "id",
              "owner",
              "s",
              "deep",
              "tags",
              "a.b",
              "__proto__",
              "title",
              "note",
              "label",
              place[place.length - 1]!,
              "nested",
              "missing",
            ]);
            const second = r.next() < 0.2 ? `, ${quoteName(r.pick(["id", "name", "total"]), "'")}` : "";
            const args: Record<string, unknown> = {
              path: `${r.pick(parents)}..[${quoteName(names, "'")}${second}]${rest(r)}`,
              ...paging(r),
            };
            if (r.next() < 0.1) args.fields = r.pick([["id"], ["nope"]]);
            asked++;
            await compare(freshTool(storage, pool), handle, value, args, `round ${round}`, failures);
          }
        }
        expect(walked.mock.calls.length).toBeGreaterThan(asked); // most queries walked the outside parts
        if (counted) expect(counted.mock.calls.length).toBeGreaterThan(asked / 3); // and counted lists on the workers
      } finally {
        walked.mockRestore();
        counted?.mockRestore();
        await store.onShutdown();
      }
      // rounds with a root list only are skipped
      expect(asked).toBeGreaterThan(ROUNDS.descendants * QUERIES.descendants * 0.7);
      expect(failures.slice(0, 8).join("\n")).toBe("");
    }, 60_000);
  },
);
