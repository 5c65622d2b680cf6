// S21.1 the costLimit option and the refusal's text; S21.2 the static limits of filters; S21.3 a whole
// resources/read past its size refused with the ranged form that works. Over real HTTP where a client sees it.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { jsonpath } from "json-p3";
import { ResultHandlesPlugin, ResultHandlesConfigurationError, ResultQueryError } from "mcp-result-handles";
import {
  DEFAULT_COST_LIMIT,
  MAX_HOLD_MS,
  MAX_HOLD_UNITS,
  MAX_PATH_CHARS,
  MAX_WHOLE_RESOURCE_BYTES,
  STATIC_LIMITS,
} from "../../../src/defaults.js";
import { answerPlan, answerPlanYielding } from "../../../src/query/query.js";
import { CostMeter } from "../../../src/query/cost.js";
import { planPath } from "../../../src/query/paths/plan.js";
import { startAttackBench, textOf, type AttackBench } from "../../helpers/attack-bench.js";
import { foldAs } from "../../helpers/second-caller.js";
import { refusalOf, rejectionOf } from "../../helpers/refusal-of.js";
import { answerWhole } from "../../helpers/query-shortcuts.js";

/** What a tool call answers for `path` over `answer` held whole (or the refusal it rejects with). */
const run = (answer: unknown, path: string) => answerWhole(answer, { handle: "h", path }, 1_000_000);
const refusal = refusalOf;

describe("S21.1 costLimit", () => {
  it("is an option with its default, checked like the others", () => {
    expect(ResultHandlesPlugin.init().config.costLimit).toBe(DEFAULT_COST_LIMIT);
    expect(ResultHandlesPlugin.init({ costLimit: 5e6 }).config.costLimit).toBe(5e6);
    for (const bad of [0, -1, 1.5, "1"])
      expect(() => ResultHandlesPlugin.init({ costLimit: bad as number })).toThrow(ResultHandlesConfigurationError);
  });

  describe("through a real server with a small limit", () => {
    let bench: AttackBench;
    let handle: string;
    beforeAll(async () => {
      bench = await startAttackBench({ costLimit: 50_000_000 });
      handle = await foldAs(bench, bench.alice, {
        rows: Array.from({ length: 20_000 }, (_, i) => ({ id: i, a: i % 10, title: `Row ${i}` })),
      });
    });
    afterAll(async () => bench.close());

    it("a call within it answers; one over it names what cost most and a narrower call", async () => {
      expect(
        (await bench.alice("result_query", { handle, path: "$.rows[?@.a == 3]", limit: 2 })).structuredContent,
      ).toMatchObject({ total: 2000 });
      const filter = textOf(
        await bench.alice("result_query", { handle, path: `$.rows[?${Array(20).fill("@.a == 11").join(" || ")}]` }),
      );
      expect(filter).toMatch(
        /^INVALID_INPUT: The call would cost more than its limit \(cost over 50000000 units, costLimit; most of it \d+ filter-expression nodes evaluated .*\): use a shorter filter/,
      );
      const nodes = textOf(await bench.alice("result_query", { handle, path: "$..*..a", limit: 1 }));
      expect(nodes).toMatch(
        /^INVALID_INPUT: The query would visit more than \d+ nodes of this answer \(cost over 50000000 units/,
      );
      const regex = textOf(
        await bench.alice("result_query", { handle, path: "$.rows[?match(@.title, '[a-zA-Z0-9 ]{1,200}x')]" }),
      );
      expect(regex).toMatch(/^INVALID_INPUT: .*(regex program instructions|One match\(\))/);
    });

    it(
      "the bytes a call's reads decrypt and parse are charged before the parse: a whole " +
        "read past the limit is refused, a window of the same text answers",
      async () => {
        // 7.2 MB of lines in one long string: a search above it reads the answer whole (10 units a byte, 72 M > 50 M).
        const log = Array.from({ length: 300_000 }, (_, i) => `line ${String(i).padStart(6, "0")} of the log`).join(
          "\n",
        );
        const big = await foldAs(bench, bench.alice, { log, other: "x" });
        const parse = vi.spyOn(JSON, "parse"); // observed: the text read whole is never parsed
        const refused = textOf(await bench.alice("result_query", { handle: big, search: "line 299999" }));
        const parsedLong = parse.mock.calls.some(([text]) => typeof text === "string" && text.length > 1_000_000);
        parse.mockRestore();
        expect(refused).toMatch(
          /^INVALID_INPUT: The call would cost more than its limit \(cost over 50000000 units, costLimit; most of it \d+ bytes parsed\): read a deeper path, a slice/,
        );
        expect(parsedLong).toBe(false);
        // Nothing changed: the narrower call the refusal names reads the batch it needs, and the search still refuses
        // the
        // same way.
        // 23 characters a line
        const window = await bench.alice("result_query", {
          handle: big,
          path: "$.log",
          offset: 299_999 * 23,
          limit: 22,
        });
        expect(window.structuredContent).toMatchObject({ value: "line 299999 of the log" });
        expect(textOf(await bench.alice("result_query", { handle: big, search: "line 299999" }))).toMatch(
          /^INVALID_INPUT: .* bytes parsed\)/,
        ); // the index, read before, is not charged again
      },
    );
  });
});

describe("S21.1 a comparison of two lists or objects pays for the members it compares", () => {
  // json-p3 compares lists and objects member by member: `$.a[?$.r1 == $.r2]` over two equal lists of 50,000 rows
  // compared them whole for each item of a, charged a few expression nodes each (22 s uncharged, the loop held 0.6 s)
  const rows = () => Array.from({ length: 20_000 }, (_, id) => ({ id, t: `row ${id}` }));
  const answer = { a: Array.from({ length: 1000 }, (_, i) => i), r1: rows(), r2: rows(), small: [{ x: [1, 2] }] };
  const args = (path: string) => ({ handle: "h", path, limit: 3 });

  it("refused as it passes the limit, naming the comparison's work; small comparisons answer as json-p3", async () => {
    const meter = new CostMeter(100_000_000);
    const refused = await rejectionOf(answerWhole(answer, args("$.a[?$.r1 == $.r2]"), 1_000_000, meter));
    expect(refused.code).toBe("INVALID_INPUT");
    expect(refused.message).toMatch(/most of it \d+ filter-expression nodes evaluated .*the members .* it compares/);
    // each item of a compares 60,001 members at most (the list, its rows and their two members): refused early on
    expect(meter.counts.expressions).toBeLessThan(100 * 2 * 60_001);
    for (const path of [
      "$.a[?$.r1[0] == $.r2[0]]",
      "$.a[?$.r1[0] != $.r2[1]]",
      "$.a[?$.small[0] <= $.small[0]]",
      "$.a[?$.small[0].x >= $.r1[0]]",
      "$.r1[?@ == $.r2[7]]",
    ]) {
      const got = (await answerWhole(answer, args(path), 1_000_000, new CostMeter(100_000_000))) as {
        value: unknown[];
        total: number;
      };
      const nodes = jsonpath.query(path, answer as never).values();
      expect({ value: got.value, total: got.total }, path).toEqual({ value: nodes.slice(0, 3), total: nodes.length });
    }
  });
});

describe("S21.2 static limits of a filter, refused before any work", () => {
  const rows = { rows: [{ a: 1 }, { a: 2 }] };
  it(`a filter of more than ${STATIC_LIMITS.filterNodes} expression nodes`, async () => {
    expect((await run(rows, `$.rows[?${Array(70).fill("@.a == 2").join(" || ")}]`)).total).toBe(1); // 279 nodes
    const error = await rejectionOf(run(rows, `$.rows[?${Array(80).fill("@.a == 2").join(" || ")}]`));
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.message).toMatch(
      /has filters of \d+ expression nodes, over the 300 a query may have \(S21.2, checked before any work\)/,
    );
  });

  const nested =
    `a filter nested more than ${STATIC_LIMITS.filterNesting} levels ` + "(a long chain of one operator is flat)";
  it(nested, async () => {
    expect((await run(rows, `$.rows[?${"!".repeat(30)}@.a]`)).total).toBe(2);
    expect((await rejectionOf(run(rows, `$.rows[?${"!".repeat(60)}@.a]`))).message).toMatch(
      /nests its filter \d+ levels deep, over the 40/,
    );
    expect((await run(rows, `$.rows[?${Array(60).fill("@.b").join(" || ")} || @.a == 1]`)).total).toBe(1);
  });

  it("a pattern over the program limit, in the query or in the answer, is refused naming its size", async () => {
    const pattern = ".{1000}".repeat(6);
    expect((await rejectionOf(run(rows, `$.rows[?match(@.t, '${pattern}')]`))).message).toMatch(
      /compiles to \d+ instructions, over the 5000 a pattern may have/,
    );
    expect((await rejectionOf(run({ rows: [{ t: "x", p: pattern }] }, "$.rows[?match(@.t, @.p)]"))).message).toMatch(
      /compiles to \d+ instructions/,
    );
    expect((await run({ rows: [{ t: "ab" }] }, "$.rows[?match(@.t, 'a.{0,100}')]")).total).toBe(1);
  });
});

describe(`S21.4 work that cannot yield is refused once it holds the thread ${MAX_HOLD_MS} ms`, () => {
  const answer = { x: 1, rows: Array.from({ length: 400_000 }, (_, i) => ({ a: i % 10 })) };
  const args = { handle: "h", path: "$[?count(@[?@.a == 1]) > 0]" };

  it(
    "a filter inside a filter over a large list: a call's meter refuses it, " +
      "naming the hold; an unguarded one (a worker's job) does not",
    async () => {
      const big = { x: 1, rows: Array.from({ length: 1_000_000 }, (_, i) => ({ a: i % 10 })) }; // 170 M units of work
      const guarded = new CostMeter(DEFAULT_COST_LIMIT, undefined, true);
      const refused = await answerPlanYielding(big, planPath(args.path), args, 1_000_000, guarded).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(ResultQueryError);
      expect((refused as ResultQueryError).code).toBe("INVALID_INPUT");
      expect((refused as Error).message).toMatch(
        new RegExp(
          `^The query held the server \\d+ ms in one piece, more than the ${MAX_HOLD_MS} ms a piece may take, ` +
            `where it could not let other calls in .*run such an inner query as a query of its own`,
        ),
      );
      // The same work on an unguarded meter runs to its end: the guard is the call's, on the calling thread.
      const unguarded = new CostMeter();
      const whole = answerPlan(big, planPath(args.path), args, 100_000_000, unguarded);
      expect(whole).toMatchObject({ total: 1 }); // the rows: the inner filter selects none of x, a number
      expect(guarded.spent).toBeLessThan(unguarded.spent / 2); // it stopped there, not at the end of the work
    },
  );

  it(
    "the hold is time and work together: a piece that only waited for " +
      "the processor is not refused, one that worked is",
    () => {
      const spin = (ms: number) => {
        for (const until = performance.now() + ms; performance.now() < until;);
      };
      const looks = (meter: CostMeter, each: number) => {
        for (let i = 0; i < 1024; i++) meter.charge("expressions", each);
      };
      const waited = new CostMeter(DEFAULT_COST_LIMIT, undefined, true);
      looks(waited, 1); // the first look starts the clock
      spin(MAX_HOLD_MS + 50); // the thread held, little evaluation done (a loaded machine, a native call)
      expect(() => looks(waited, 1)).not.toThrow();
      const worked = new CostMeter(DEFAULT_COST_LIMIT, undefined, true);
      looks(worked, 1);
      spin(MAX_HOLD_MS + 50);
      expect(() => looks(worked, Math.ceil(MAX_HOLD_UNITS / 20 / 1024) + 1)).toThrow(
        /^The query held the server \d+ ms in one piece, more than/,
      ); // 20 units an expression node
      // Worker counts absorbed on this thread are not its hold.
      const absorbed = new CostMeter(DEFAULT_COST_LIMIT, undefined, true);
      looks(absorbed, 1);
      spin(MAX_HOLD_MS + 50);
      absorbed.absorb(MAX_HOLD_UNITS * 2);
      expect(() => looks(absorbed, 1)).not.toThrow();
    },
  );

  it("work that yields is never refused for its length: a filter reading $ over the same list answers", async () => {
    const path = "$.rows[?@.a == $.x]";
    const meter = new CostMeter(DEFAULT_COST_LIMIT, undefined, true);
    const started = performance.now();
    const answered = await answerPlanYielding(
      answer,
      planPath(path),
      { handle: "h", path, limit: 1 },
      1_000_000,
      meter,
    );
    console.log(`a filter reading $ over 400,000 items yielded for ${Math.round(performance.now() - started)} ms`);
    expect(answered).toMatchObject({ total: 40_000 });
    // Many small lists yield as one large one does (the count runs across lists), and so do a
    // wildcard's nodes that the next segment drops.
    const small = {
      x: 1,
      rows: Array.from({ length: 200_000 }, (_, i) => ({ f: i % 10, g: 1, h: 2 })),
      groups: Array.from({ length: 2000 }, (_, g) => ({
        items: Array.from({ length: 200 }, (_, i) => ({ a: (g + i) % 10 })),
      })),
    };
    for (const [many, total] of [
      ["$.rows[*][?@ == $.x]", 200_000 + 20_000],
      ["$.groups[*].items[?@.a == $.x]", 40_000],
      ["$.rows[*].missing", 0],
      ["$.groups[*].items[*].missing", 0],
    ] as const) {
      const answered = await answerPlanYielding(
        small,
        planPath(many),
        { handle: "h", path: many, limit: 1 },
        1_000_000,
        new CostMeter(DEFAULT_COST_LIMIT, undefined, true),
      );
      expect(answered, many).toMatchObject({ total });
    }
    // A descendant walk whose filter meets the whole list yields inside that list too.
    const descendant = "$..[?@.a == $.x]";
    expect(
      await answerPlanYielding(
        answer,
        planPath(descendant),
        { handle: "h", path: descendant, limit: 1 },
        1_000_000,
        new CostMeter(DEFAULT_COST_LIMIT, undefined, true),
      ),
    ).toMatchObject({ total: 40_000 });
  }, 90_000); // about 2 s of work that yields every 20 ms: on a loaded machine each yield waits for the processor
});

describe("S21.2 a path over MAX_PATH_CHARS, refused before it is parsed", () => {
  it(
    `a path of any form up to ${MAX_PATH_CHARS} characters reads (a quoted ` +
      `key of 60,000); one more is INVALID_INPUT in milliseconds`,
    async () => {
      const key = "k".repeat(60_000);
      const quoted = `$['${key}']`;
      expect(await run({ [key]: 7 }, quoted)).toMatchObject({ value: 7 });
      const longest = "$." + "x".repeat(MAX_PATH_CHARS - 2);
      // parsed: no key of that name
      expect((await rejectionOf(run({ x: 1 }, longest))).code).toBe("RESULT_PATH_NOT_FOUND");
      for (const path of [
        longest + "x",
        "rows" + ".x".repeat(500_000),
        "/rows" + "/x".repeat(500_000),
        "$.rows" + "[0]".repeat(300_000),
      ]) {
        // Processor time of this process, not wall time: other work on a loaded machine does not count.
        const started = process.cpuUsage();
        const refused = await rejectionOf(run({ rows: [] }, path));
        const spent = process.cpuUsage(started);
        expect((spent.user + spent.system) / 1000).toBeLessThan(50);
        expect(refused.code).toBe("INVALID_INPUT");
        expect(refused.message).toContain(`characters, over the ${MAX_PATH_CHARS} a path may have`);
        expect(refused.message.length).toBeLessThan(1000);
      }
    },
  );
});

describe("S21.3 a whole resources/read past its size", () => {
  let bench: AttackBench;
  beforeAll(async () => {
    bench = await startAttackBench({}, { resources: true });
  });
  afterAll(async () => bench.close());

  it(
    `is refused past ${MAX_WHOLE_RESOURCE_BYTES} bytes with ranged URIs that work; a smaller one ` + `reads whole`,
    async () => {
      const large = await foldAs(bench, bench.alice, {
        rows: Array.from({ length: 200_000 }, (_, i) => ({
          id: i,
          title: `Row number ${i} of a long answer, read in parts`,
        })),
      });
      const uri = `result-handle://${large}`;
      const started = performance.now();
      const error = await bench.aliceClient.readResource({ uri }).then(
        () => undefined,
        (failure: { message: string }) => failure,
      );
      const ms = performance.now() - started;
      console.log(
        `whole resources/read of a ${MAX_WHOLE_RESOURCE_BYTES}+ byte answer ` +
          `refused in ${Math.round(ms)} ms: ${error?.message}`,
      );
      expect(error?.message).toMatch(
        /RESULT_SLICE_TOO_LARGE: The whole answer is \d+ bytes, over the 8388608 a whole resources\/read returns/,
      );
      // The ranged URI it names is made from the advice of a refused $ (its largest list, a limit that fits), and
      // works.
      const named = new RegExp(`such as (${uri.replace(/[.?]/g, "\\$&")}\\?path=[^ ]+&limit=(\\d+))\\.`).exec(
        error!.message,
      )!;
      expect(named[1]).toContain("?path=%24.rows&limit=");
      const ranged = await bench.aliceClient.readResource({ uri: named[1]! });
      expect(JSON.parse((ranged.contents[0] as { text: string }).text)).toMatchObject({
        total: 200_000,
        nextOffset: Number(named[2]),
      });
      const small = await foldAs(bench, bench.alice, { rows: Array.from({ length: 300 }, (_, i) => ({ id: i })) });
      const whole = await bench.aliceClient.readResource({ uri: `result-handle://${small}` });
      expect(JSON.parse((whole.contents[0] as { text: string }).text).rows).toHaveLength(300);
    },
    60_000,
  );
});
