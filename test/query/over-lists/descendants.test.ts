// S14.6 descendants by name above indexed lists (`$..x`), each list read where it stands: the review's
// cases answer exactly as over the whole value, with and without batch workers: a name that selects an
// object holding a list (read whole then), number literals json-p3 would write back differently, a list
// under a key longer than a query may be, and the meter (S14.3) refusing at the same size.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { MemoryStorage, ResultHandleStore, ResultQueryTool, type Owner } from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { nodeBatchWorkers } from "../../../src/runtimes/node/batch-workers.js";
import { AnswerReader } from "../../../src/records/read/answer-reader.js";
import { answerPlan } from "../../../src/query/query.js";
import { planPath } from "../../../src/query/paths/plan.js";
import { CostMeter } from "../../../src/query/cost.js";
import { DEFAULT_COST_LIMIT } from "../../../src/defaults.js";
import type { ResultQueryError } from "../../../src/errors.js";
import { answered, wholeAnswer } from "../../helpers/store-queries.js";

const owner: Owner = { session: "s-descendants", caller: "reader" };
const config = { sliceLimitBytes: 16_384, preview: { chars: 500 } } as ResultHandlesConfig;
// stopped after all: never for idleness mid-test
const workers = nodeBatchWorkers({ minBytes: 0, threads: 2, idleMs: 60_000 })!;
beforeAll(async () => expect(await workers.warm()).toBe(true));
afterAll(() => workers.stop());

async function compare(
  value: unknown,
  queries: Record<string, unknown>[],
  pool = workers as typeof workers | undefined,
) {
  const store = new ResultHandleStore(new MemoryStorage("descendants", { maxBytes: 1e9 }), 60, {
    pieceBytes: 16 * 1024,
  });
  const tool = new ResultQueryTool(() => [{ config, store: async () => store, workers: pool }]);
  const walked = vi.spyOn(AnswerReader.prototype, "partAt");
  try {
    for (const args of queries) {
      const handle = store.newHandle();
      await store.save(handle, value, owner);
      expect(await answered(tool, handle, args, owner), JSON.stringify(args)).toEqual(
        await wholeAnswer(value, args, config),
      );
    }
    return walked.mock.calls.length;
  } finally {
    walked.mockRestore();
    await store.onShutdown();
  }
}

/** Members of every kind under keys of a wide object: array-index keys, nested names, scalars. */
function wideMembers(count: number): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (let i = 0; i < count; i++)
    object[i % 97 === 0 ? String(i) : `k${i}`] =
      i % 3 === 0 ? { title: `t${i}`, x: { title: i } } : i % 3 === 1 ? i : [{ title: i, k5: i }];
  return object;
}

describe.each([
  ["on the calling thread", undefined],
  ["with batch workers", workers],
] as const)("S26.1 descendants by name over wide objects, %s", (_, pool) => {
  it("read the member batches where the walk meets them, never the answer whole", async () => {
    const whole = vi.spyOn(AnswerReader.prototype, "all"); // observed: no whole read
    const counted = pool && vi.spyOn(pool, "count"); // observed: the workers counted every batch they were given
    try {
      for (const value of [
        wideMembers(6000),
        { meta: { title: "m" }, w: wideMembers(6000), title: "top", rows: [{ title: "r" }] },
      ])
        await compare(
          value,
          [
            { path: "$..title" },
            { path: "$..title", offset: 3000, limit: 3 },
            { path: "$..x.title", limit: 2 },
            { path: "$..k5", offset: 1990 },
            { path: "$..['97', 'k98']" }, // names in the wide object itself, then below it
            { path: "$..nope" }, // the note names the keys there
          ],
          pool,
        );
      expect(whole).not.toHaveBeenCalled();
      if (counted) {
        const replies = await Promise.all(
          counted.mock.results.map(({ value }) => value as ReturnType<typeof pool.count>),
        );
        expect(replies.length).toBeGreaterThan(0);
        expect(replies.flatMap(({ nodes }) => nodes).every((nodes) => nodes >= 0)).toBe(true);
      }
    } finally {
      whole.mockRestore();
      counted?.mockRestore();
    }
  });
});

describe.each([
  ["on the calling thread", undefined],
  ["with batch workers", workers],
] as const)("S14.6 descendants by name above lists, %s", (_, pool) => {
  it(
    "a name selecting an object that holds a list reads the answer whole: the object comes " + "with its list",
    async () => {
      const value = {
        meta: { note: "x" },
        data: { label: "d", rows: Array.from({ length: 3000 }, (_, i) => ({ id: i, label: `r${i}` })) },
      };
      await compare(
        value,
        [
          { path: "$..data" },
          { path: "$..data", fields: ["label"] },
          { path: "$..data.rows[0]" },
          { path: "$..data[*]" },
          { path: "$..rows", limit: 1 },
        ],
        pool,
      );
      // Names that only meet values outside the lists or inside the items walk the parts instead.
      expect(
        await compare(
          value,
          [
            { path: "$..label", offset: 2990 },
            { path: "$..id", limit: 3 },
            { path: "$.data..label", offset: 1 },
          ],
          pool,
        ),
      ).toBeGreaterThan(0);
    },
    60_000,
  );

  it("queries whose literals or keys could not be written back as text answer as over the whole value", async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => ({ x: { a: i % 9 }, id: i }));
    await compare(
      { meta: { x: { a: 1 } }, rows },
      [
        { path: "$..x[?@ < 1e400]", limit: 2 },
        { path: "$..x[?@.a > 1e-400]", offset: 100 },
        { path: "$..x.a", offset: 2995 },
      ],
      pool,
    );
    const long = { meta: { x: 1 }, ["k".repeat(4100)]: Array.from({ length: 30000 }, (_, i) => ({ id: i, x: i % 7 })) };
    expect(
      await compare(
        long,
        [
          { path: "$..x", limit: 3 },
          { path: "$..x", offset: 29990 },
        ],
        pool,
      ),
    ).toBeGreaterThan(0);
  }, 60_000);
});

describe(
  "S14.3 S14.6 S21.1 the meter counts the walk as it counts the whole value, and the walk's " + "reads besides",
  () => {
    it(
      "the walk by batch is charged the nodes the whole-value evaluation is, " +
        "plus what it decrypts and parses; both refuse past the limit",
      async () => {
        // A tenth of the default limit (the costLimit option, S21.1): the bisection below evaluates the whole
        // value about sixteen times, each up to the limit (0.4 s at the default).
        const costLimit = DEFAULT_COST_LIMIT / 10;
        const meta: Record<string, unknown> = {};
        for (let a = 0; a < 50; a++)
          // 5,000 nodes outside the lists
          meta[`a${a}`] = Object.fromEntries(Array.from({ length: 100 }, (_, b) => [`b${b}`, { x: 1 }]));
        const item = { x: 2, v: Array.from({ length: 400 }, (_, i) => i) };
        const make = (rows: number) => ({ meta, rows: Array.from({ length: rows }, () => item) });
        const args = { path: "$..x", limit: 1 };
        const whole = (rows: number) => {
          const meter = new CostMeter(costLimit);
          try {
            answerPlan(make(rows), planPath(args.path), { handle: "h", ...args }, config.sliceLimitBytes, meter);
            return meter;
          } catch (error) {
            if ((error as ResultQueryError).code === "INVALID_INPUT") return "refused";
            throw error;
          }
        };
        /** The walk through a store of 32 KB pieces: its outcome and what it was charged, by kind. */
        const walk = async (rows: number) => {
          const store = new ResultHandleStore(new MemoryStorage("meter", { maxBytes: 2e9 }), 60, {
            pieceBytes: 32 * 1024,
          });
          const tool = new ResultQueryTool(() => [{ config: { ...config, costLimit }, store: async () => store }]);
          const handle = store.newHandle();
          await store.save(handle, make(rows), owner);
          const walked = vi.spyOn(AnswerReader.prototype, "partAt"); // observed: the rows are walked batch by batch
          const charged = vi.spyOn(CostMeter.prototype, "charge"); // observed: what the call is charged
          const ticked = vi.spyOn(CostMeter.prototype, "node"); // and each node, charged on its own
          try {
            const outcome = (await answered(tool, handle, args, owner)) as { code?: string };
            expect(walked.mock.calls.length, `${rows} rows`).toBeGreaterThan(0);
            const by: Record<string, number> = {};
            for (const [kind, count = 1] of charged.mock.calls) by[kind] = (by[kind] ?? 0) + count;
            by.nodes = (by.nodes ?? 0) + ticked.mock.calls.length;
            return { outcome, by };
          } finally {
            walked.mockRestore();
            charged.mockRestore();
            ticked.mockRestore();
            await store.onShutdown();
          }
        };
        const fitting = whole(500);
        expect(fitting).not.toBe("refused");
        const { outcome, by } = await walk(500);
        expect(outcome.code).toBeUndefined();
        expect(by.nodes).toBe((fitting as CostMeter).counts.nodes); // the same nodes, walked by batch or whole
        expect(by.decrypted).toBeGreaterThan(JSON.stringify(make(500).rows).length); // every piece, padding included
        expect(by.parsed).toBeGreaterThan(JSON.stringify(make(500).rows).length); // every batch

        let [fits, refuses] = [100, 1200];
        expect(whole(fits)).not.toBe("refused");
        expect(whole(refuses)).toBe("refused");
        while (refuses - fits > 1) {
          const mid = (fits + refuses) >> 1;
          if (whole(mid) === "refused") refuses = mid;
          else fits = mid;
        }
        console.log(
          `S14.3 $..x refused from ${refuses} rows whole ` +
            `(${JSON.stringify(make(refuses)).length} bytes); walked by batch, ${by.nodes} nodes at 500 rows as whole`,
        );
        expect((await walk(refuses)).outcome.code).toBe("INVALID_INPUT"); // its reads cost more on top
      },
      60_000,
    );
  },
);

describe("S14.6 a batch whose text holds no key of the names is never parsed", () => {
  it(
    "$..missing and $.rows..missing parse no batch of rows; $..note parses only the batches " + "holding notes",
    async () => {
      const rows = Array.from({ length: 6000 }, (_, i) =>
        i % 1000 === 7 ? { id: i, note: `n${i}` } : { id: i, text: `row ${i} ${"x".repeat(40)}` },
      );
      const value = { meta: { title: "t" }, rows };
      const parsed = async (args: Record<string, unknown>) => {
        const parse = vi.spyOn(JSON, "parse");
        try {
          await compare(value, [args], undefined);
          // a batch of rows
          return parse.mock.calls.filter(([text]) => typeof text === "string" && text.startsWith('[{"id":')).length;
        } finally {
          parse.mockRestore();
        }
      };
      expect(await parsed({ path: "$..missing" })).toBe(0);
      expect(await parsed({ path: "$.rows..missing" })).toBe(0);
      const notes = await parsed({ path: "$..note", limit: 3 });
      expect(notes).toBeGreaterThan(0);
      expect(notes).toBeLessThanOrEqual(6); // one batch per note at most, of about 60
    },
    60_000,
  );
});
