// S21.1–S21.5 attacked from the outside: a real McpServer over real HTTP, on memory and on a real
// redis-server, alice attacking and bob (a second owner) sending a small result_query 300 ms after each
// attack starts. Each attack of issue 24 answers or is refused within 2 s (asserted with room for a loaded
// 2-core machine) and bob is answered within 1 s (likewise). Figures are printed for the report.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAttackBenchOn, textOf, type AttackBench, type Result } from "../../helpers/attack-bench.js";
import { bobsSmallQuery, foldAs, line, withSecondCaller, type Measured } from "../../helpers/second-caller.js";

/**
 * The SPEC's bars (2 s, 1 s), doubled for a machine others share while the tests run; COST_SLACK changes the factor.
 */
const SLACK = Number(process.env.COST_SLACK ?? 2);
const ATTACK_MS = 2000 * SLACK;
const WAIT_MS = 1000 * SLACK;
const TIMEOUT = Number(process.env.COST_TIMEOUT_MS ?? 180_000);

const bigRows = (n: number, width = 0) => ({
  rows: Array.from({ length: n }, (_, i) => ({
    id: i,
    a: i % 10,
    title: `Row number ${i}`,
    ...(width ? { s: "k".repeat(width) } : {}),
  })),
});

for (const store of ["memory", "redis"] as const) {
  describe(`S21 attacks on ${store}`, () => {
    let bench: AttackBench;
    let bobSmall: () => Promise<Result>;

    beforeAll(async () => {
      bench = await startAttackBenchOn(store);
      bobSmall = await bobsSmallQuery(bench);
    }, TIMEOUT);
    afterAll(() => bench?.close());

    const check = (label: string, m: Measured, refusal: RegExp) => {
      console.log(line(`${store}: ${label}`, m));
      expect(textOf(m.result)).toMatch(refusal);
      expect(m.second.structuredContent).toMatchObject({ value: ["Row number 7"] });
      expect(m.ms).toBeLessThan(ATTACK_MS);
      expect(m.waitMs).toBeLessThan(WAIT_MS);
    };

    it(
      "search(@.s, '.{1000}' × 30) over 80 KB, the same pattern read from the answer, and one within the static limit",
      async () => {
        const handle = await foldAs(bench, bench.alice, { rows: [{ s: "x".repeat(80_000), p: ".{1000}".repeat(30) }] });
        const literal = await withSecondCaller(
          () => bench.alice("result_query", { handle, path: `$.rows[?search(@.s, '${".{1000}".repeat(30)}')]` }),
          bobSmall,
        );
        check(
          "search(@.s, '.{1000}' x 30) over 80 KB",
          literal,
          /^INVALID_INPUT: The pattern .* instructions, over the 5000/,
        );
        const read = await withSecondCaller(
          () => bench.alice("result_query", { handle, path: "$.rows[?search(@.s, @.p)]" }),
          bobSmall,
        );
        check("search(@.s, @.p) with that pattern in the answer", read, /^INVALID_INPUT: The pattern .* instructions/);
        const four = await withSecondCaller(
          () => bench.alice("result_query", { handle, path: `$.rows[?search(@.s, '${".{1000}".repeat(4)}')]` }),
          bobSmall,
        );
        check("search(@.s, '.{1000}' x 4) over 80 KB", four, /^INVALID_INPUT: (One search\(\)|The call would cost)/);
      },
      TIMEOUT,
    );

    it(
      "2000 ! reading $, and a 4000-character || chain, over a 1,000,000-item list",
      async () => {
        const handle = await foldAs(bench, bench.alice, {
          x: 1,
          rows: Array.from({ length: 1_000_000 }, (_, i) => ({ a: i % 10 })),
        });
        // An honest filter over the same list answers (and starts the batch workers, which load once).
        expect(
          (await bench.alice("result_query", { handle, path: "$.rows[?@.a == 7]", limit: 1 })).structuredContent,
        ).toMatchObject({ total: 100_000 });
        const nots = await withSecondCaller(
          () => bench.alice("result_query", { handle, path: `$.rows[?${"!".repeat(2000)}$.x]` }),
          bobSmall,
        );
        check("2000 ! reading $ over 1,000,000 items", nots, /^INVALID_INPUT: .*(nests|too deeply)/);
        const ors = await withSecondCaller(
          () => bench.alice("result_query", { handle, path: `$.rows[?${Array(500).fill("@.a==1").join("||")}]` }),
          bobSmall,
        );
        check(
          "a 4000-character || chain over 1,000,000 items",
          ors,
          /^INVALID_INPUT: .*expression nodes, over the 300/,
        );
        // Own shape: a filter within the static limits (70 terms, 280 nodes) whose work per item is what costs.
        const heavy = await withSecondCaller(
          () => bench.alice("result_query", { handle, path: `$.rows[?${Array(70).fill("@.a==11").join("||")}]` }),
          bobSmall,
        );
        check(
          "a 280-node filter over 1,000,000 items",
          heavy,
          // Refused on the batch worker that ran out of its job's share (S21.4), in words that say what it spent.
          /^INVALID_INPUT: One piece of the list .* would cost more than .*filter-expression nodes evaluated/,
        );
        // S21.4 S26.1: a filter reading $ reads its query from the root first ($.x, from the parts outside the list),
        // then streams the list batch by batch as any filter does (it read the answer whole and ran over the list in
        // memory, yielding as it ran: it held the thread 54-61 ms at a time; 1.5-1.6 s before it yielded).
        const rooted = await withSecondCaller(
          () => bench.alice("result_query", { handle, path: "$.rows[?@.a == $.x]", limit: 1 }),
          bobSmall,
        );
        console.log(line(`${store}: a filter reading $ over 1,000,000 items`, rooted));
        expect(rooted.result.structuredContent).toMatchObject({ total: 100_000, value: [{ a: 1 }] });
        expect(rooted.second.structuredContent).toMatchObject({ value: ["Row number 7"] });
        expect(rooted.ms).toBeLessThan(ATTACK_MS);
        expect(rooted.waitMs).toBeLessThan(WAIT_MS);
        expect(rooted.stallMs).toBeLessThan(300); // room for a loaded machine's collector
        // A filter from the root inside a filter selects the same nodes for every item: it runs once, yielding
        // as it goes, before the outer filter (S26.1; it ran once per item, held the thread 1.1-1.4 s and bob
        // waited 1.7-2.1 s).
        const rootInner = await withSecondCaller(
          () => bench.alice("result_query", { handle, path: "$[?count($.rows[?@.a == 1]) > 0]", limit: 1 }),
          bobSmall,
        );
        console.log(line(`${store}: a filter from the root inside a filter over 1,000,000 items`, rootInner));
        // x and rows: the inner filter reads $, not @
        expect(rootInner.result.structuredContent).toMatchObject({ total: 2, value: [1] });
        expect(rootInner.ms).toBeLessThan(ATTACK_MS);
        expect(rootInner.waitMs).toBeLessThan(WAIT_MS);
        expect(rootInner.stallMs).toBeLessThan(300);
        // A filter from @ inside a filter runs whole inside one item's evaluation, where nothing can yield:
        // refused once it has held the thread MAX_HOLD_MS with MAX_HOLD_UNITS of work.
        const inner = await withSecondCaller(
          () => bench.alice("result_query", { handle, path: "$[?count(@[?@.a == 1]) > 0]" }),
          bobSmall,
        );
        check(
          "a filter from @ inside a filter over 1,000,000 items",
          inner,
          /^INVALID_INPUT: The query held the server \d+ ms in one piece, more than the 50 ms .*run such an inner query as a query of its own/,
        );
        // S26.1: the hold limit (50 ms and 15 M units, each item the inner filter tests charged as a node) and room
        // for a loaded machine and its collector, as for the filter reading $ above. It held 300-600 ms before
        // (595 ms on Redis in a clean-clone CI run, 593-1678 ms under a load of 16 on 2 cores, when the inner
        // filter's items were charged their expression alone and the limit was 50 M units); 162-236 ms under
        // that load now, about 60-100 ms on a quieter machine.
        expect(inner.stallMs).toBeLessThan(300);
      },
      TIMEOUT,
    );

    // S21.1 S26.1: two lists compared whole for each item (json-p3 compares lists member by member), each read first as
    // a query from the root: 22 s answered, the loop held 0.3-0.6 s, when a comparison paid only its expression's nodes
    (store === "memory" ? it : it.skip)(
      "two equal lists of 50,000 rows compared with == for each of 1,000 items",
      async () => {
        const rows = () => Array.from({ length: 50_000 }, (_, id) => ({ id, t: `row ${id}`, tags: ["a", "b"] }));
        const handle = await foldAs(bench, bench.alice, {
          a: Array.from({ length: 1000 }, (_, i) => i),
          r1: rows(),
          r2: rows(),
        });
        const compared = await withSecondCaller(
          () => bench.alice("result_query", { handle, path: "$.a[?$.r1 == $.r2]", limit: 2 }),
          bobSmall,
        );
        check(
          "two 50,000-row lists compared for each of 1,000 items",
          compared,
          /^INVALID_INPUT: The call would cost more than its limit .*the members of the lists and objects it compares/,
        );
        // one comparison of two 2 MB lists in one piece, and a loaded machine's collector (0.3-0.6 s held before)
        expect(compared.stallMs).toBeLessThan(500);
      },
      TIMEOUT,
    );

    it(
      "64 distinct references each selecting a 10 MB list",
      async () => {
        const handle = await foldAs(bench, bench.alice, bigRows(200_000, 10));
        const before = bench.runs.lists;
        const lists = Array.from({ length: 64 }, (_, i) => ({ $result: handle, path: `$.rows[${i}:]` }));
        const refs = await withSecondCaller(() => bench.alice("merge_lists", { lists }), bobSmall);
        check(
          "64 distinct references of a 10 MB list",
          refs,
          /^INVALID_INPUT: The \{ "\$result": … \} references of this call resolve to more than \d+ bytes/,
        );
        expect(bench.runs.lists).toBe(before); // the tool never ran
      },
      TIMEOUT,
    );

    it(
      "a slow filter on the batch workers: refused within its share; another owner's 10 MB filter meanwhile",
      async () => {
        const handle = await foldAs(bench, bench.alice, bigRows(100_000, 100));
        const bobLarge = await foldAs(bench, bench.bob, bigRows(100_000, 100));
        await bench.alice("result_query", { handle, path: "$.rows[?@.id == 3]" }); // the workers start and load
        const slow = `$.rows[?search(@.s, '[a-z]{50}q') || search(@.title, '[a-z]{40}q')]`;
        const attack = await withSecondCaller(
          () => bench.alice("result_query", { handle, path: slow }),
          () => bench.bob("result_query", { handle: bobLarge, path: "$.rows[?@.id == 99999].title" }),
        );
        console.log(line(`${store}: a slow filter on the batch workers (bob's 10 MB filter meanwhile)`, attack));
        expect(textOf(attack.result)).toMatch(/^INVALID_INPUT: The call would cost more than its limit .*regex/);
        expect(attack.second.structuredContent).toMatchObject({ value: ["Row number 99999"] });
        expect(attack.ms).toBeLessThan(ATTACK_MS);
        // bob's own filter reads 10 MB: its own cost on top of the wait
        expect(attack.waitMs).toBeLessThan(WAIT_MS + 1000);
        const small = await withSecondCaller(() => bench.alice("result_query", { handle, path: slow }), bobSmall);
        check("the slow filter again, bob's small query meanwhile", small, /^INVALID_INPUT: /);
      },
      TIMEOUT,
    );
  });
}
