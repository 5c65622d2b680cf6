// S14.3 S16.1: no query makes the server work more than linearly, overflow the stack or block it.
import fc from "fast-check";
import { McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { ResultHandlesPlugin, ResultQueryError } from "mcp-result-handles";
import { MAX_QUERY_CHARS } from "../../../src/defaults.js";
import { formatPath } from "../../../src/query/paths/path.js";
import { answerWhole, resolveReferenceValue } from "../../helpers/query-shortcuts.js";
import { linkInMemory } from "../../helpers/in-memory.js";
import { rejectionOf } from "../../helpers/refusal-of.js";

/** What a tool call answers for `path` over `answer` held whole (or the refusal it rejects with). */
const run = (answer: unknown, path: string, more: Record<string, unknown> = {}, threshold = 1_000_000) =>
  answerWhole(answer, { handle: "h", path, ...more }, threshold);

/** Fastest of a few runs, in milliseconds. */
async function fastest(action: () => Promise<unknown>, runs = 3): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await action();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

describe("S14.3 match() and search() run I-Regexp in linear time", () => {
  const rows = Array.from({ length: 400 }, (_, i) => ({ id: i, t: "a".repeat(40) }));

  it("(a+)+b over 400 rows of 40 a's costs about what a plain 'a' does", async () => {
    for (const fn of ["match", "search"]) {
      const evil = await fastest(() => run({ rows }, `$.rows[?${fn}(@.t, '(a+)+b')]`));
      const plain = await fastest(() => run({ rows }, `$.rows[?${fn}(@.t, 'a')]`));
      console.log(`${fn}: (a+)+b ${evil.toFixed(1)} ms, a ${plain.toFixed(1)} ms over 400 rows of 40 a's`);
      // A backtracking engine takes seconds per row here; linear time stays within a few times the plain one.
      expect(evil).toBeLessThan(Math.max(10 * plain, 250));
      expect((await run({ rows }, `$.rows[?${fn}(@.t, '(a+)+b')]`)).total).toBe(0);
    }
  });

  it("match is the whole string, search any part; . is not a line break; invalid patterns are false", async () => {
    const values = { v: ["abc", "xabcx", "a\nc", "a😀c", "ABC"] };
    expect((await run(values, "$.v[?match(@, 'a.c')]")).value).toEqual(["abc", "a😀c"]);
    expect((await run(values, "$.v[?search(@, 'a.c')]")).value).toEqual(["abc", "xabcx", "a😀c"]);
    expect((await run(values, "$.v[?match(@, '[A-Z]+')]")).value).toEqual(["ABC"]);
    // Not I-Regexp (lookahead, backreference, unclosed group): LogicalFalse, not an error.
    for (const pattern of ["(?=a)", "(a)\\\\1", "(a", "\\\\d"])
      expect((await run(values, `$.v[?search(@, '${pattern}')]`)).total).toBe(0);
    expect((await run(values, "$.v[?search(@, '\\\\p{Lu}')]")).value).toEqual(["ABC"]);
  });
});

describe("S14.3 descendants on an answer 3000 levels deep", () => {
  let deep: unknown = { x: "bottom" };
  for (let i = 0; i < 3000; i++) deep = { a: deep, i };

  it("$..x finds the bottom without overflowing the stack, with its canonical path", async () => {
    const started = performance.now();
    const result = await run(deep, "$..x");
    console.log(`$..x over 3000 levels: ${(performance.now() - started).toFixed(1)} ms`);
    expect(result.value).toEqual(["bottom"]);
    expect(result.paths).toEqual([`$${".a".repeat(3000)}.x`]);
    expect(await run(deep, "$..i", { limit: 2 })).toMatchObject({ value: [2999, 2998], total: 3000, nextOffset: 2 });
  });

  it("filters with descendants inside, and resolveReferenceValue, take the deep answer too", async () => {
    expect((await run(deep, "$[?@..x]")).paths).toEqual(["$.a"]);
    expect((await run(deep, "$..[?@.x == 'bottom']")).total).toBe(1);
    expect(await resolveReferenceValue(deep, "$..x")).toEqual(["bottom"]);
  });

  it("quadratic descendants ($..*..x) are refused as INVALID_INPUT, not run for seconds", async () => {
    const started = performance.now();
    const error = await rejectionOf(run(deep, "$..*..x"));
    console.log(`$..*..x over 3000 levels refused after ${(performance.now() - started).toFixed(0)} ms`);
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.message).toMatch(/more than \d+ nodes/);
  });

  it(
    "a query inside a filter counts its steps too: one from the root runs " +
      "once (S26.1), one from @ over every descendant is refused",
    async () => {
      const small = { rows: Array.from({ length: 1000 }, (_, i) => ({ id: i })) };
      expect(
        (await answerWhole(small, { handle: "h", path: "$.rows[?count($.rows[*]) > 0].id", limit: 5 }, 1_000_000))
          .total,
      ).toBe(1000);
      // 100,000 × 100,000 steps were refused; the inner query now runs once, before the filter: every row is selected.
      const large = { rows: Array.from({ length: 100_000 }, (_, i) => ({ id: i })) };
      let started = performance.now();
      expect(
        await answerWhole(large, { handle: "h", path: "$.rows[?count($.rows[*]) == 100000].id", limit: 2 }, 1_000_000),
      ).toMatchObject({ value: [0, 1], total: 100_000 });
      console.log(
        `$.rows[?count($.rows[*]) == 100000] over 100,000 rows answered ` +
          `in ${(performance.now() - started).toFixed(0)} ms`,
      );
      // Every descendant's descendants of a 4000-deep chain: 8 M steps, refused.
      let chain: unknown = 0;
      for (let i = 0; i < 4000; i++) chain = [chain];
      started = performance.now();
      const error = await rejectionOf(
        answerWhole({ chain }, { handle: "h", path: "$.chain..*[?count(@..*) > 5000]" }, 1_000_000),
      );
      console.log(
        `$.chain..*[?count(@..*) > 5000] over a 4000-deep chain refused ` +
          `after ${(performance.now() - started).toFixed(0)} ms`,
      );
      expect(error.code).toBe("INVALID_INPUT");
      expect(error.message).toMatch(/more than \d+ nodes/);
    },
  );

  it("values too deep for the engine's own recursion answer or are a coded refusal, never a RangeError", async () => {
    let deeper: unknown = { x: 1 };
    for (let i = 0; i < 200_000; i++) deeper = { a: deeper };
    const queries = [
      "$[?@ == $.a]",
      "$..x",
      "$..[?@ == $]",
      "$[?" + "(".repeat(2000) + "@.q" + ")".repeat(2000) + "]",
      "$[?" + "!".repeat(4000) + "@]",
    ];
    for (const path of queries) {
      try {
        await run(deeper, path, { limit: 1 });
      } catch (error) {
        expect(error).toBeInstanceOf(ResultQueryError);
        expect((error as ResultQueryError).code).toMatch(
          /^(INVALID_INPUT|RESULT_PATH_NOT_FOUND|RESULT_SLICE_TOO_LARGE)$/,
        );
      }
    }
  });
});

describe("S14.3 query length", () => {
  it(`a JSONPath query over ${MAX_QUERY_CHARS} characters is INVALID_INPUT saying why`, async () => {
    const union = `$[${Array(2100).fill("0").join(",")}]`;
    const error = await rejectionOf(run([1], union));
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.message).toContain(`over the ${MAX_QUERY_CHARS} a query may have`);
    expect(error.message.length).toBeLessThan(1000);
  });

  it("an S7.2 form is not a query and has no such limit", async () => {
    const key = "k".repeat(5000);
    expect((await run({ [key]: 1 }, `$['${key}']`)).value).toBe(1);
  });
});

describe("S16.1 work is bounded by what a call returns", () => {
  const items = Array.from({ length: 100_000 }, (_, i) => ({ id: i, name: `item ${i}`, n: i % 7 }));
  const fields = Array.from({ length: 100_000 }, (_, i) => `f${i}`);
  fields[50_000] = "id";

  it("100,000 fields over 100,000 items through a real server: well under a second, other clients served", async () => {
    const plugin = ResultHandlesPlugin.init({ storage: { type: "memory" } });
    const servers = [new McpServer({ name: "a", version: "1" }), new McpServer({ name: "b", version: "1" })];
    for (const server of servers) {
      plugin.install(server, { logger: { warn: () => {} } });
      server.registerTool("items", { description: "items" }, async () => ({
        content: [{ type: "text" as const, text: JSON.stringify({ items }) }],
        structuredContent: { items },
      }));
    }
    const [mine, other] = [await linkInMemory(servers[0]!, "one"), await linkInMemory(servers[1]!, "two")];
    const folded = (await mine.callTool({ name: "items", arguments: {} })) as { structuredContent: { handle: string } };
    const handle = folded.structuredContent.handle;
    const baseline = performance.now();
    await mine.callTool({ name: "result_query", arguments: { handle, path: "$.items[0]" } });
    console.log(`reading one item of the same answer: ${(performance.now() - baseline).toFixed(0)} ms`);
    for (const path of ["$.items", "$.items[*]", `$.items[${Array(1000).fill("0").join(",")}]`]) {
      const started = performance.now();
      let listed = 0;
      const [read] = await Promise.all([
        mine.callTool({ name: "result_query", arguments: { handle, path, limit: 100_000, fields } }),
        other.listTools().then(() => (listed = performance.now() - started)),
      ]);
      const took = performance.now() - started;
      const { error, value } = read.structuredContent as {
        error?: { code: string; message: string };
        value?: unknown[];
      };
      console.log(
        `${path.slice(0, 20)} with 100,000 fields × 100,000 items: ${took.toFixed(0)} ms ` +
          `(${error?.code ?? `${value!.length} nodes`}); other client's tools/list ${listed.toFixed(0)} ms`,
      );
      expect(took).toBeLessThan(1000);
      expect(listed).toBeLessThan(1000);
      if (error) expect(error.message).toMatch(/^The slice .* At most \d+ (items|nodes) from offset 0 fit/);
      else expect(value).toEqual(Array(1000).fill({ id: 0 })); // the union's 1000 small nodes fit
    }
    await plugin.onShutdown();
  });

  it("duplicate fields count once and keep the order they are first named in; fields: [] keeps all", async () => {
    const few = { rows: [{ a: 1, b: 2, c: 3 }] };
    const many = Array.from({ length: 1000 }, () => ["c", "a"]).flat();
    expect(JSON.stringify((await run(few, "$.rows", { fields: many })).value)).toBe('[{"c":3,"a":1}]');
    expect(JSON.stringify((await run(few, "$.rows", { fields: ["c", "a", "c"] })).value)).toBe('[{"c":3,"a":1}]');
    expect((await run(few, "$.rows", { fields: [] })).value).toEqual(few.rows);
    expect((await run(few, "$.rows[*]", { fields: [] })).value).toEqual(few.rows);
  });

  it("a page stops at the first entry past the limit and says how many fit", async () => {
    const error = await rejectionOf(run({ items }, "$.items", { limit: 100_000 }, 4096));
    expect(error.code).toBe("RESULT_SLICE_TOO_LARGE");
    const fit = Number(/At most (\d+) items/.exec(error.message)![1]);
    await expect(run({ items }, "$.items", { limit: fit }, 4096)).resolves.toBeDefined();
    await expect(run({ items }, "$.items", { limit: fit + 1 }, 4096)).rejects.toThrow(ResultQueryError);
    const nodes = await rejectionOf(run({ items }, "$.items[?@.n == 3]", { limit: 100_000 }, 4096));
    const fitNodes = Number(/At most (\d+) nodes/.exec(nodes.message)![1]);
    expect((await run({ items }, "$.items[?@.n == 3]", { limit: fitNodes }, 4096)).value).toHaveLength(fitNodes);
  });
});

describe("S7.2 only own properties, in JSONPath too", () => {
  it("__proto__, constructor and toString name nothing unless the answer has them as its own keys", async () => {
    const answer = { rows: [{ id: 1 }, JSON.parse('{"__proto__": {"x": 2}, "constructor": 3}')] };
    expect((await run(answer, "$..constructor")).value).toEqual([3]);
    expect((await run(answer, "$..__proto__.x")).paths).toEqual(["$.rows[1].__proto__.x"]);
    expect((await run(answer, "$.rows[?@.constructor]")).paths).toEqual(["$.rows[1]"]);
    expect((await run(answer, "$.rows[?@.toString || @.hasOwnProperty]")).total).toBe(0);
    expect((await run(answer, "$.rows[*].toString")).total).toBe(0);
    expect((await run(answer, "$.rows[?length(@.id.constructor) > 0]")).total).toBe(0);
  });
});

describe("S7.6 S14.3 random queries", () => {
  const token = fc.constantFrom(
    "$",
    "@",
    ".",
    "..",
    "*",
    "[",
    "]",
    "?",
    "(",
    ")",
    "==",
    "<=",
    "&&",
    "||",
    "!",
    "'a'",
    '"b"',
    "0",
    "-1",
    ":",
    ",",
    "length(",
    "match(",
    "search(",
    "count(",
    "value(",
    " ",
    "a",
    "b",
    "1.5",
    "true",
    "null",
  );
  it("raise nothing but coded errors, over random values", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.array(token, { maxLength: 24 }), async (value, tokens) => {
        const path = `$${tokens.join("")}`;
        try {
          await run(value, path, { limit: 5 });
        } catch (error) {
          if (!(error instanceof ResultQueryError)) throw error;
        }
      }),
      { numRuns: 3000 },
    );
  });
});

describe("S7.2 S14.1 every S7.2 form keeps its meaning through the plan", () => {
  it(
    "a bracket path or canonical path built from a value's own keys answers that place, with its " + "canonical path",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.jsonValue(), fc.array(fc.nat(), { maxLength: 6 }), async (value, choices) => {
          const steps: (string | number)[] = [];
          let current: unknown = value;
          for (const choice of choices) {
            if (Array.isArray(current) && current.length > 0) steps.push(choice % current.length);
            else if (current && typeof current === "object" && Object.keys(current).length > 0)
              steps.push(Object.keys(current)[choice % Object.keys(current).length]!);
            else break;
            current = (current as Record<string | number, unknown>)[steps[steps.length - 1]!];
          }
          const bracket =
            "$" + steps.map((s) => (typeof s === "number" ? `[${s}]` : `[${JSON.stringify(s)}]`)).join("");
          for (const path of [bracket, formatPath(steps)]) {
            const result = await run(value, path, { limit: 100_000 });
            expect(result.path).toBe(formatPath(steps));
            expect(result.paths).toBeUndefined(); // singular: answered as S7.5
            if (current === null || typeof current !== "object")
              expect(result.value).toEqual(typeof current === "string" ? current.slice(0, 100_000) : current);
          }
        }),
        { numRuns: 1000 },
      );
    },
  );
});
