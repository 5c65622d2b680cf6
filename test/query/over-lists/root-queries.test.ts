// S26.1 S21.4 S21.5 filters whose expression reads the root (`count($.b[*])`, `@.v == $.pick`, `?$.x`, `value()`,
// `$..*`), over answers kept in pieces (indexed lists, wide objects, a long string), on memory, SQLite and Redis under
// the real ResultQueryTool: each query from the root is read first, only as far as the filter reads it, and the
// query then streams; the answers (nodes, paths, total, pages) are those over the whole value, held to json-p3 run on
// the plain answer (`referenceAnswer`: src's whole evaluation, itself held to the oracle of helpers/query-oracle.ts);
// the whole answer is never read (a spy on the reader's `all` only observes). Queries whose root query can only be
// read whole still answer right. On real batch workers, the jobs carry the summaries and answer the same. The reads
// first are the call's: its one meter (S21.1) and its store deadline (S26.3) bound them.
import { afterAll, describe, expect, it, vi } from "vitest";
import { jsonpath } from "json-p3";
import { MemoryStorage, ResultHandleStore, ResultQueryTool, type Owner } from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { AnswerReader } from "../../../src/records/read/answer-reader.js";
import { nodeBatchWorkers } from "../../../src/runtimes/node/batch-workers.js";
import type { WorkerPool, WorkerPort } from "../../../src/query/workers/pool.js";
import { ROOT_SUMMARY_JOB_BYTES } from "../../../src/defaults.js";
import {
  answered,
  countedQueries,
  everyStore,
  PassThroughStorage,
  referenceAnswer,
} from "../../helpers/store-queries.js";

const owner: Owner = { session: "s-root-queries", caller: "reader" };
const config = { sliceLimitBytes: 16_384, preview: { chars: 500 } } as ResultHandlesConfig;

/** Lists of rows and of small objects (indexed), a small list (not), scalars and a long string beside them. */
const lists = {
  meta: { pick: 7, name: "row 3", pattern: "t1[0-9]", tags: ["x", "y"], none: null },
  a: Array.from({ length: 12 }, (_, i) => i),
  k: 3,
  b: Array.from({ length: 600 }, (_, i) => ({ x: i % 17, y: `v${i}` })),
  rows: Array.from({ length: 150 }, (_, id) => ({
    id,
    v: id % 11,
    t: `t${id}`,
    tags: id % 3 === 0 ? ["x"] : id % 3 === 1 ? ["y", "z"] : [],
  })),
  log: "line of a long log\n".repeat(600),
};
/** A wide object beside a list: the members of `w` are read member batch by member batch. */
const wideBeside = {
  a: [1, 2, 3, 4],
  w: Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`m${i}`, { k: i % 5, x: i }])),
  b: Array.from({ length: 1500 }, (_, i) => ({ x: i % 7 })),
};
/**
 * One node under a list of one long item, and under an object holding a long string: `value()` of `..*` there is
 * that node's value (counted, not read, it was none: `length(value($.one..*))` selected nothing).
 */
const single = { a: [1, 2, 3], one: ["z".repeat(5000)], holder: { s: "y".repeat(70_000) } };
/** An answer that is one wide object. */
const wideRoot = Object.fromEntries(Array.from({ length: 1200 }, (_, i) => [`k${i}`, { n: i % 97 }]));

/** Every node under the root, by plain code (what `count($..*)` counts). */
function nodesUnder(value: unknown): number {
  let count = -1;
  const pending = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    count++;
    if (item !== null && typeof item === "object") pending.push(...Object.values(item));
  }
  return count;
}

/** Queries that read their roots first and then stream: the whole answer is never read. */
const STREAMED: [object, Record<string, unknown>[]][] = [
  [
    lists,
    [
      { path: "$.a[?count($.b[*]) > 0]", limit: 3 },
      { path: "$.a[?count($.b[*]) == 600]", offset: 10 },
      { path: "$.a[?count($.b[*]) == 599]" },
      { path: "$.rows[?count($.b[?@.x == 3]) > @.id].id", offset: 5, limit: 4 },
      { path: "$.rows[?@.v == $.meta.pick].id", offset: 10, limit: 5 },
      { path: "$.rows[?@.v == $.k && @.id > 120].t" },
      { path: "$.rows[?@.id == $.rows[-1].id || @.id == $.b[4].x].id" },
      { path: "$.rows[?$.meta.none == null].id", limit: 2 },
      { path: "$.rows[?$.meta.absent == null].id" },
      { path: "$.rows[?$.meta.absent].id" },
      { path: "$.rows[?!$.meta.absent].id", limit: 3 },
      { path: "$.rows[?$.b[?@.x == 16] && @.v == 2].id", page: 3, limit: 7 },
      { path: "$.rows[?!$.b[?@.x == 17]].id", limit: 2 },
      { path: `$.a[?count($..*) == ${nodesUnder(lists)}]`, offset: 10 },
      { path: `$.a[?count($..*) == ${nodesUnder(lists) + 1}]` },
      { path: `$.a[?count($.rows..*) == ${nodesUnder(lists.rows)}]`, limit: 2 },
      { path: "$.a[?count($.meta..*) == 7]", limit: 2 },
      { path: "$.a[?count($.rows[*].tags[*]) == 150]", limit: 1 },
      { path: "$.rows[?value($.b[?@.y == 'v7'].x) == @.v].id", limit: 4 },
      { path: "$.rows[?value($.b[*].x) == 1].id" },
      { path: "$.rows[?length($.meta.name) == 5 && @.id < 3].id" },
      { path: "$.rows[?search(@.t, $.meta.pattern)].t", offset: 3, limit: 5 },
      { path: "$.rows[?count($.b[?@.x == $.k]) > 30].id", limit: 2 },
      { path: "$.a[?count($..t) == 150]", limit: 1 }, // descendants by name above the lists
    ],
  ],
  [
    wideBeside,
    [
      { path: "$.w[?@.k == $.a[1]].x", offset: 2, limit: 4 },
      { path: "$.a[?count($.w.*) == 3000]" },
      { path: "$.a[?count($.w[?@.x > 2996]) == @]" },
      { path: `$.a[?count($..*) == ${nodesUnder(wideBeside)}]` },
      { path: "$.b[?@.x == value($.w.m12.k)]", limit: 3 },
    ],
  ],
  [
    single,
    [{ path: "$.a[?length(value($.one..*)) == 5000]" }, { path: "$.a[?value($.one..*) == $.one[0]]", limit: 2 }],
  ],
  [
    wideRoot,
    [
      { path: "$[?@ == $.k5]", limit: 3 },
      { path: "$[?@ == $.k9999]" },
      { path: "$[?@.n == $.k3.n].n", offset: 5, limit: 3 },
    ],
  ],
];

/** Queries whose root query (or the query itself) reads the whole answer: answered as before. */
const WHOLE: [object, Record<string, unknown>[]][] = [
  [
    lists,
    [
      { path: "$.rows[?@.t == $.log].id" }, // a long string, whole
      { path: "$[?count($.b[*]) > 0].pick" }, // the query itself reads the root's members whole
      { path: "$.rows[?$ != $.k].id", limit: 2 }, // `$` itself
      // from `@`'s filter, json-p3 reads `$` as the item (and the whole read is held to it)
      { path: "$.rows[?count(@.tags[?@ == $.meta.tags[1]]) > 0].id", offset: 30, limit: 3 },
      { path: "$.rows[?@.tags[?count($.a[?@ > $.k]) == 8]].id", limit: 3 },
    ],
  ],
  // the value of the one node of `$.holder..*`, a long string, is not in the parts outside the lists
  [single, [{ path: "$.a[?length(value($.holder..*)) == 70000]" }]],
];

describe("S26.1 queries from the root inside filters, read first, on every store", () => {
  const stores = everyStore("root-queries");

  it.each(stores)(
    "%s: every query answers as json-p3 over the whole value; the streamed ones never read it whole",
    async (_name, open) => {
      const setup = countedQueries(await open(), { config, owner });
      const all = vi.spyOn(AnswerReader.prototype, "all"); // only observes
      try {
        for (const [cases, whole] of [
          [STREAMED, false],
          [WHOLE, true],
        ] as const)
          for (const [value, queries] of cases)
            for (const args of queries) {
              const handle = await setup.fold(value); // a fresh handle: nothing of it read or kept yet
              all.mockClear();
              const got = await answered(setup.tool, handle, args, owner);
              const reference = await referenceAnswer(value, args, config);
              expect(got, JSON.stringify(args)).toEqual(reference);
              expect((got as { code?: string }).code, JSON.stringify(args)).toBeUndefined();
              if (!whole) expect(all, JSON.stringify(args)).not.toHaveBeenCalled();
            }
        // `$..*` over an answer that is one wide object, counted member batch by member batch (json-p3 takes seconds
        // for it over every member: its reference is the same filter without the count, which holds or never does)
        for (const [count, as] of [
          [nodesUnder(wideRoot), "$[?@ == $.k5]"],
          [nodesUnder(wideRoot) - 1, "$[?@ == $.k5 && 1 == 2]"],
        ] as const) {
          const path = `$[?@ == $.k5 && count($..*) == ${count}]`;
          const handle = await setup.fold(wideRoot);
          all.mockClear();
          expect(await answered(setup.tool, handle, { path, limit: 2 }, owner)).toEqual({
            ...((await referenceAnswer(wideRoot, { path: as, limit: 2 }, config)) as object),
            path,
          });
          expect(all).not.toHaveBeenCalled();
        }
        // an aggregate over such a filter streams as well, its count json-p3's
        const handle = await setup.fold(lists);
        all.mockClear();
        const path = "$.rows[?@.v == $.k]";
        expect(await answered(setup.tool, handle, { path, aggregate: { count: true } }, owner)).toMatchObject({
          value: { count: jsonpath.query(path, lists).length },
        });
        expect(all).not.toHaveBeenCalled();
      } finally {
        all.mockRestore();
        await setup.store.onShutdown();
      }
    },
    60_000,
  );
});

describe("S26.1 S21.1 the reads first are the call's work", () => {
  it("a count from the root past the call's cost limit is refused, as the whole read refuses it", async () => {
    // `$..*` over the lists: about 3,600 nodes, each charged as the walk of `..*` charges it (S21.1)
    const limited = { ...config, costLimit: 300 * 2000 } as ResultHandlesConfig;
    const setup = countedQueries(new MemoryStorage("root-queries-cost"), { config: limited, owner });
    try {
      const handle = await setup.fold(lists);
      const refused = (await answered(setup.tool, handle, { path: "$.a[?count($..*) > 0]" }, owner)) as {
        code?: string;
        message?: string;
      };
      expect(refused.code).toBe("INVALID_INPUT");
      expect(refused.message).toMatch(/visit more than \d+ nodes .*costLimit/);
      // within the limit, the same call answers
      const small = await setup.fold({ ...lists, rows: lists.rows.slice(0, 20), b: [] });
      expect(
        await answered(setup.tool, small, { path: "$.a[?count($.rows[*]) == 20]", limit: 1 }, owner),
      ).toMatchObject({ value: [0], total: lists.a.length });
    } finally {
      await setup.store.onShutdown();
    }
  });
});

describe("S26.1 S26.3 the reads first are the call's store calls", () => {
  it("a slow store ends the call within its deadline while a count from the root is read", async () => {
    let delayMs = 0;
    /** A storage whose reads each take `delayMs` once the answer is saved. */
    class SlowStorage extends PassThroughStorage {
      override async get(key: string) {
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        return this.inner.get(key);
      }
    }
    const storage = new SlowStorage(new MemoryStorage("root-queries-deadline"));
    const saving = new ResultHandleStore(storage, 60, { pieceBytes: 16 * 1024 });
    const handle = saving.newHandle();
    // `a` stands beside the lists (the parts outside: a piece or two); counting `rows` reads its pieces too
    await saving.save(handle, { ...lists, rows: [...lists.rows, ...lists.rows, ...lists.rows] }, owner);
    const args = { path: "$.a[?count($.rows[*]) > 0]", limit: 1 };
    delayMs = 120;
    /** The call on a store that has read nothing of the answer yet, with a deadline or none. */
    const call = async (deadlineMs?: number) => {
      const store = new ResultHandleStore(storage, 60, { pieceBytes: 16 * 1024, deadlineMs });
      const started = performance.now();
      const got = await answered(
        new ResultQueryTool(() => [{ config, store: async () => store }]),
        handle,
        args,
        owner,
      );
      return { got, ms: performance.now() - started };
    };
    const slow = await call();
    expect(slow.got).toMatchObject({ value: [0], total: lists.a.length });
    expect(slow.ms).toBeGreaterThan(3 * 120); // the main record, the parts outside, then rows' pieces
    const bounded = await call(200);
    expect(bounded.got).toMatchObject({ code: "RESULT_STORE_UNAVAILABLE" });
    // the deadline and the read under way when it passed, with room for a loaded machine
    expect(bounded.ms).toBeLessThan(200 + 120 + 400);
    await saving.onShutdown();
  });
});

describe("S26.1 S14.6 on batch workers", () => {
  const pools: WorkerPool[] = [];
  afterAll(() => pools.forEach((pool) => pool.stop()));

  it("the jobs of a filter bound to its root queries carry their summaries, and answer as json-p3", async () => {
    const pool = nodeBatchWorkers({ minBytes: 0, threads: 1, idleMs: 60_000, retryMs: 60_000 })!;
    pools.push(pool);
    expect(await pool.warm()).toBe(true);
    const port = (pool as unknown as { workers: { port: WorkerPort }[] }).workers[0]!.port;
    const post = vi.spyOn(port, "post"); // passes every message on
    const setup = countedQueries(new MemoryStorage("root-queries-workers"), { config, owner, workers: pool });
    try {
      for (const [value, args] of [
        [lists, { path: "$.rows[?@.v == $.meta.pick].id", offset: 10, limit: 3 }],
        [lists, { path: "$.rows[?count($.b[*]) == 600 && @.v == $.k].id", offset: 10 }],
        [lists, { path: "$.rows[?count($.b[?@.x == $.k]) > 0 && @.id > 140].id" }],
        [wideBeside, { path: "$.w[?@.k == $.a[1] && count($.b[*]) == 1500].x", offset: 7, limit: 2 }], // members
      ] as const) {
        post.mockClear();
        const handle = await setup.fold(value);
        expect(await answered(setup.tool, handle, args, owner), JSON.stringify(args)).toEqual(
          await referenceAnswer(value, args, config),
        );
        const jobs = post.mock.calls.map(([message]) => (message as { job: { query: string; roots?: unknown } }).job);
        const bound = jobs.filter((job) => job.query === args.path);
        expect(bound.length, JSON.stringify(args)).toBeGreaterThan(0);
        for (const job of bound) expect(job.roots, JSON.stringify(args)).toBeInstanceOf(Array);
      }
      // a value read first past ROOT_SUMMARY_JOB_BYTES (an object of small strings, outside the parts) goes with no
      // job: the list is read on the calling thread, bound all the same (never read whole), and answers the same
      const obj = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, "s".repeat(1000)]));
      const value = { ...lists, meta: { ...lists.meta, obj } };
      expect(JSON.stringify(obj).length).toBeGreaterThan(ROOT_SUMMARY_JOB_BYTES);
      const args = { path: "$.rows[?length($.meta.obj) == 100 && @.v == 3].id", offset: 2 };
      const all = vi.spyOn(AnswerReader.prototype, "all"); // only observes
      post.mockClear();
      const handle = await setup.fold(value);
      expect(await answered(setup.tool, handle, args, owner)).toEqual(await referenceAnswer(value, args, config));
      expect(all).not.toHaveBeenCalled();
      all.mockRestore();
      const jobs = post.mock.calls.map(([message]) => (message as { job: { query: string } }).job);
      expect(jobs.filter((job) => job.query === args.path)).toEqual([]);
    } finally {
      post.mockRestore();
      await setup.store.onShutdown();
    }
  });
});
