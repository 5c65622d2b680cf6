// S21.4 S26.1 S16.4 attacked from the outside: a list whose items are far larger than the items before them (or than
// the first batch guessed). A reader parses a list batch in one JSON.parse on the calling thread, and a batch was cut
// by item count alone: 2000 rows then 150 objects of 10,000 keys made one batch of about 17 MB, so reading one of
// those objects held the server 3.2-3.6 s, and the filter over them 3.1 s (a batch worker then gave up on it). A real
// McpServer over real HTTP on memory, Redis and SQLite; bob (a second owner) sends a small result_query 300 ms after
// each attack starts. Expected values come from plain code over the answer.
import { loadavg } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAttackBenchOn, type AttackBench, type Result } from "../../helpers/attack-bench.js";
import { bobsSmallQuery, line, withSecondCaller, type Measured } from "../../helpers/second-caller.js";
import { slowdown } from "../../helpers/slowdown.js";

const wide = (keys: number, prefix: string) => {
  const object: Record<string, number> = {};
  for (let i = 0; i < keys; i++) object[`${prefix}${i}`] = i;
  return object;
};
const ROWS = 2000;
const WIDE = 150;
const list = [
  ...Array.from({ length: ROWS }, (_, id) => ({ id, text: "x".repeat(80) })),
  ...Array.from({ length: WIDE }, (_, j) => wide(10_000, `m${j}_`)),
] as Record<string, unknown>[];

/** How much slower than idle this machine runs now (`slowdown`): the bars scale by it. */
const LOAD = slowdown();
const SLACK = Number(process.env.COST_SLACK ?? 2) * LOAD;
/** About 50 ms at a time (S21.4), with room for a loaded 2-core machine and its collector. */
const HOLD_MS = Number(process.env.HOLD_MS ?? 200 * SLACK);
const WAIT_MS = 1000 * SLACK;
const TIMEOUT = 240_000;
console.log(
  `list batches: ${LOAD.toFixed(1)}x slower than idle, load ${loadavg()[0]!.toFixed(1)}; ` +
    `bars ${Math.round(HOLD_MS)} ms of hold, ${Math.round(WAIT_MS)} ms for the second caller`,
);
const heapMb = () => Math.round(process.memoryUsage().heapUsed / 1e6);
const handleOf = (result: { structuredContent?: Record<string, unknown> }) =>
  (result.structuredContent as { handle: string }).handle;

const STORES = (process.env.HOLDS_STORES ?? "memory,redis,sqlite").split(",") as ("memory" | "redis" | "sqlite")[];
for (const store of STORES) {
  describe(`S21.4 S26.1 a list of rows, then of large objects, on ${store}`, () => {
    let bench: AttackBench;
    let bobSmall: () => Promise<Result>;
    let handle: string;

    beforeAll(async () => {
      // The store's deadline (S26.3) well past the bars: these tests time the calling thread, not the store.
      bench = await startAttackBenchOn(store, { deadlineMs: 60_000, memory: { maxBytes: 2_000_000_000 } });
      bobSmall = await bobsSmallQuery(bench);
      bench.answer.next = { list };
      handle = handleOf(await bench.alice("report_structured"));
      bench.answer.next = undefined;
    }, TIMEOUT);
    afterAll(() => bench?.close());

    const attack = async (label: string, args: Record<string, unknown>): Promise<Measured> => {
      const before = heapMb();
      const m = await withSecondCaller(() => bench.alice("result_query", { handle, ...args }), bobSmall);
      console.log(
        `${line(`${store}: ${label}`, m)}, heap ${before} -> ${heapMb()} MB, load ${loadavg()[0]!.toFixed(1)}`,
      );
      expect(m.second.structuredContent).toMatchObject({ value: ["Row number 7"] });
      expect(m.waitMs).toBeLessThan(WAIT_MS);
      expect(m.stallMs).toBeLessThan(HOLD_MS);
      return m;
    };

    it(
      "a filter over the large objects, first read: no batch parsed in one piece holds the server",
      async () => {
        const m = await attack("$.list[?@.m120_3 == 3].m120_4", { path: "$.list[?@.m120_3 == 3].m120_4" });
        const at = list.findIndex((item) => item.m120_3 === 3);
        expect(m.result.structuredContent).toMatchObject({
          value: [list[at]!.m120_4],
          paths: [`$.list[${at}].m120_4`],
          total: 1,
        });
      },
      TIMEOUT,
    );

    it(
      "one member of one large object, and of the last: each read without parsing its neighbours",
      async () => {
        for (const at of [ROWS + 100, ROWS + WIDE - 1]) {
          const name = `m${at - ROWS}_5`;
          const m = await attack(`$.list[${at}].${name}`, { path: `$.list[${at}].${name}` });
          expect(m.result.structuredContent).toMatchObject({ path: `$.list[${at}].${name}`, value: list[at]![name] });
        }
        // a window of the rows just before them, and fields of the first large objects
        const rows = await attack("$.list[1995:2003] with fields id, m0_9, m1_9", {
          path: "$.list",
          offset: ROWS - 5,
          limit: 8,
          fields: ["id", "m0_9", "m1_9"],
        });
        const expected = list
          .slice(ROWS - 5, ROWS + 3)
          .map((item) => Object.fromEntries(["id", "m0_9", "m1_9"].filter((k) => k in item).map((k) => [k, item[k]])));
        expect(rows.result.structuredContent).toMatchObject({ value: expected, total: ROWS + WIDE });
      },
      TIMEOUT,
    );
  });
}
