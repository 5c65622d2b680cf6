// S21.2 S21.4 S24.1: a query of thousands of steps, within MAX_QUERY_CHARS (4,096 characters), is planned in
// one pass. Its compile wrote the text of every prefix again for each step (quadratic): `$.a.a…` of 2,047
// names held the calling thread 1.2 s per compile, `$..a..a…` as long, and an aggregate `by` such a member
// compiled it several times (held 4.0 s; a second owner's small query waited 3.7 s). Through a real
// McpServer over real HTTP, while bob sends a small result_query 300 ms after each starts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAttackBench, textOf, type AttackBench } from "../../helpers/attack-bench.js";
import { foldAs, line, withSecondCaller } from "../../helpers/second-caller.js";

const SLACK = Number(process.env.COST_SLACK ?? 2);
// Before: each of these held the loop 1.2 s or more on an idle machine; after: about 40 ms. Room for load.
const HOLD_MS = 250 * SLACK;
const WAIT_MS = 500 * SLACK;

let bench: AttackBench;
let handle: string;
let bobHandle: string;
const bobSmall = () => bench.bob("result_query", { handle: bobHandle, path: "$.rows[?@.id == 7].title" });

describe("S21.4 long queries are planned in one pass", () => {
  beforeAll(async () => {
    bench = await startAttackBench();
    bobHandle = await foldAs(bench, bench.bob, {
      rows: Array.from({ length: 300 }, (_, i) => ({ id: i, title: `Row number ${i}` })),
    });
    handle = await foldAs(bench, bench.alice, {
      rows: Array.from({ length: 300 }, (_, i) => ({ id: i, a: { a: i % 3 } })),
    });
  });
  afterAll(async () => bench?.close());

  const cases: [string, () => Record<string, unknown>, (text: string) => void][] = [
    [
      "a path of 2,047 names",
      () => ({ handle, path: "$" + ".a".repeat(2047) }),
      (text) => expect(text).toMatch(/^RESULT_PATH_NOT_FOUND/),
    ],
    [
      "a path of 1,365 descendant names",
      () => ({ handle, path: "$" + "..a".repeat(1365) }),
      (text) => expect(text).toMatch(/^\{"path"/),
    ],
    [
      "an aggregate by a member of 2,047 names",
      () => ({ handle, path: "$.rows[*]", aggregate: { by: "@" + ".a".repeat(2047) } }),
      // No node has the member: one group of all 300 under null, or refused as too large for its note's length.
      (text) =>
        expect(text).toMatch(/^(\{"path":"\$\.rows\[\*\]","groups":\[\{"key":null,"count":300|RESULT_SLICE_TOO_LARGE)/),
    ],
  ];
  for (const [label, args, check] of cases) {
    it(label, async () => {
      const m = await withSecondCaller(() => bench.alice("result_query", args()), bobSmall);
      console.log(line(label, m));
      check(textOf(m.result));
      expect(m.second.structuredContent).toMatchObject({ value: ["Row number 7"] });
      expect(m.stallMs).toBeLessThan(HOLD_MS);
      expect(m.waitMs).toBeLessThan(WAIT_MS);
    });
  }
});
