import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ResultQueryError } from "../../../src/errors.js";
import { formatPath } from "../../../src/query/paths/path.js";
import { answerWhole, resolvePath } from "../../helpers/query-shortcuts.js";
import { parseQueryArguments, type QueryArguments } from "../../../src/query/query.js";

const answer = {
  rows: Array.from({ length: 50 }, (_, i) => ({ id: `T-${i}`, title: `Ticket ${i}`, tags: ["a", "b"] })),
  "odd key": { "it's": 1, "a/b": 2, "m~n": 3, "": 4 },
  text: "héllo😀world",
  n: 7,
};
const q = (args: Partial<QueryArguments>, threshold = 16384) =>
  answerWhole(answer, { handle: "h", path: "$", ...args }, threshold);

/** The coded refusal `run` raises (or rejects with), or undefined when it raises none. */
async function refusalOf(run: () => unknown): Promise<ResultQueryError | undefined> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(ResultQueryError);
    return error as ResultQueryError;
  }
  return undefined;
}

async function messageOf(run: () => unknown): Promise<string> {
  const refusal = await refusalOf(run);
  if (!refusal) throw new Error("not refused");
  return refusal.message;
}

async function codeOf(run: () => unknown): Promise<string> {
  return (await refusalOf(run))?.code ?? "no error";
}

describe("S7.2 path forms", () => {
  it.each([
    "$.rows[2].title",
    "$['rows'][2]['title']",
    '$["rows"][2]["title"]',
    "rows.2.title",
    "/rows/2/title",
    "$.rows[-48].title",
    "rows[2].title",
  ])("%s names the same place", async (path) => {
    expect(await q({ path })).toEqual({ path: "$.rows[2].title", value: "Ticket 2", total: 8, offset: 0 });
  });

  it("reads the whole answer with $ or an empty path", async () => {
    expect((await q({ path: "" })).path).toBe("$");
    expect((await q({ path: "$" })).total).toBe(4);
  });

  it("unescapes quoted names (JSON escapes, either quote) and JSON Pointer tokens", async () => {
    expect((await q({ path: "$['odd key']['it\\'s']" })).value).toBe(1);
    expect((await q({ path: '$["odd key"]["it\'s"]' })).value).toBe(1);
    expect((await q({ path: "$['odd\\u0020key']['a/b']" })).value).toBe(2);
    expect((await q({ path: "/odd key/a~1b" })).value).toBe(2);
    expect((await q({ path: "/odd key/m~0n" })).value).toBe(3);
    expect((await q({ path: "/odd key/" })).value).toBe(4);
  });

  it.each([
    "$.nope",
    "$.rows[50]",
    "$.rows[-51]",
    "/rows/01",
    "/rows/-",
    "/rows/~2",
    "rows..title",
    "$.rows[2",
    "$['rows'",
    "$.rows[x]",
    "$.__proto__",
    "$.constructor",
    "rows.toString",
    "/rows/length",
    "$.n.x",
    "$.text[0]",
  ])("%s names nothing: RESULT_PATH_NOT_FOUND", async (path) => {
    expect(await codeOf(() => q({ path }))).toBe("RESULT_PATH_NOT_FOUND");
  });

  it("reaches __proto__ and constructor when the answer has them as its own keys", async () => {
    const value = JSON.parse('{"__proto__": {"constructor": 5}}');
    expect((await answerWhole(value, { handle: "h", path: "$.__proto__.constructor" }, 4096)).value).toBe(5);
    expect((await answerWhole(value, { handle: "h", path: "/__proto__/constructor" }, 4096)).path).toBe(
      "$.__proto__.constructor",
    );
  });
});

describe("S7.5 canonical path", () => {
  it("uses .name for identifiers, ['...'] with escapes for others, [n] for indexes", () => {
    expect(formatPath(["rows", 2, "odd key", "it's", 'q"', "a\nb", "$x_1"])).toBe(
      `$.rows[2]['odd key']['it\\'s']['q"']['a\\nb'].$x_1`,
    );
  });

  it("a path of many steps (joined from its parts) reads as the same steps one by one", () => {
    const steps = ["rows", 2, "odd key", "it's", 'q"', "a\nb", "$x_1"];
    const many = Array.from({ length: 40 }, (_, i) => steps[i % steps.length]!);
    const expected = "$" + many.map((step) => formatPath([step]).slice(1)).join("");
    expect(formatPath(many)).toBe(expected);
    expect(formatPath(many)).toContain(`['it\\'s']['q"']['a\\nb'].$x_1.rows[2]`);
  });
});

describe("S7.3 S7.4 S7.5 slicing and fields", () => {
  it("pages a list with offset, limit and page, reporting total, offset and nextOffset", async () => {
    expect(await q({ path: "$.rows" })).toMatchObject({ total: 50, offset: 0, nextOffset: 20 });
    expect(((await q({ path: "$.rows" })).value as unknown[]).length).toBe(20);
    const page3 = await q({ path: "rows", limit: 20, page: 3 });
    expect(page3).toMatchObject({ total: 50, offset: 40 });
    expect(page3.nextOffset).toBeUndefined();
    expect((page3.value as { id: string }[]).map((r) => r.id)).toEqual(
      Array.from({ length: 10 }, (_, i) => `T-${40 + i}`),
    );
    expect(await q({ path: "rows", offset: 60 })).toMatchObject({ value: [], total: 50, offset: 50 });
  });

  it("slices strings by UTF-16 units without splitting a surrogate pair", async () => {
    expect(await q({ path: "$.text", offset: 0, limit: 6 })).toEqual({
      path: "$.text",
      value: "héllo",
      total: 12,
      offset: 0,
      nextOffset: 5,
    });
    expect((await q({ path: "$.text", offset: 6, limit: 3 })).value).toBe("😀w");
    expect((await q({ path: "$.text", offset: 5, limit: 1 })).value).toBe("😀");
  });

  it("slices an object's keys in order", async () => {
    expect(await q({ path: "$['odd key']", offset: 1, limit: 2 })).toEqual({
      path: "$['odd key']",
      value: { "a/b": 2, "m~n": 3 },
      total: 4,
      offset: 1,
      nextOffset: 3,
    });
  });

  it("returns a scalar as it is, without total or offset", async () => {
    expect(await q({ path: "$.n", offset: 3 })).toEqual({ path: "$.n", value: 7 });
  });

  it("keeps only the named fields of each object item, or of an object", async () => {
    expect((await q({ path: "$.rows", limit: 2, fields: ["id", "missing"] })).value).toEqual([
      { id: "T-0" },
      { id: "T-1" },
    ]);
    expect((await q({ path: "$.rows[0]", fields: ["title"] })).value).toEqual({ title: "Ticket 0" });
  });

  it("refuses fields for a string value", async () => {
    expect(await codeOf(() => q({ path: "$.text", fields: ["x"] }))).toBe("INVALID_INPUT");
  });
});

describe("S7.6 RESULT_SLICE_TOO_LARGE", () => {
  it("refuses a slice over the threshold and says how many items would fit", async () => {
    const big = { rows: Array.from({ length: 200 }, (_, i) => ({ id: i, body: "z".repeat(100) })) };
    try {
      await answerWhole(big, { handle: "h", path: "$.rows", limit: 100 }, 1024);
      throw new Error("not refused");
    } catch (error) {
      expect((error as ResultQueryError).code).toBe("RESULT_SLICE_TOO_LARGE");
      const fit = Number(/At most (\d+) items/.exec((error as Error).message)?.[1]);
      expect(fit).toBeGreaterThan(0);
      const ok = await answerWhole(big, { handle: "h", path: "$.rows", limit: fit }, 1024);
      expect(JSON.stringify(ok.value).length).toBeLessThanOrEqual(1024);
      await expect(answerWhole(big, { handle: "h", path: "$.rows", limit: fit + 1 }, 1024)).rejects.toThrow(
        ResultQueryError,
      );
    }
  });

  it("says how many characters would fit", async () => {
    const text = "€".repeat(3000);
    try {
      await answerWhole(text, { handle: "h", path: "$", limit: 3000 }, 1024);
      throw new Error("not refused");
    } catch (error) {
      const fit = Number(/At most (\d+) characters/.exec((error as Error).message)?.[1]);
      expect(fit).toBe(340); // (1024 - 2 quotes) / 3 bytes
    }
  });
});

describe("S7.6 a character slice of a 20 MB string", () => {
  // Escapes, 3-byte and 4-byte (surrogate pair) characters, so the fit is not a simple division.
  const unit = 'abc€"\\😀xyz\n';
  const text = unit.repeat(Math.ceil(20_000_000 / unit.length));
  const at = (offset: number, limit: number) => () =>
    answerWhole(text, { handle: "h", path: "$", offset, limit }, 16384);
  const fitOf = async (run: () => unknown) => {
    try {
      await run();
    } catch (error) {
      expect((error as ResultQueryError).code).toBe("RESULT_SLICE_TOO_LARGE");
      return Number(/At most (\d+) characters/.exec((error as Error).message)?.[1]);
    }
    throw new Error("not refused");
  };

  it("limit 100000 is refused with the exact fit; that limit is accepted and one more character is not", async () => {
    for (const offset of [0, 10_000_001, text.length - 100_000]) {
      const fit = await fitOf(at(offset, 100_000));
      expect(fit).toBeGreaterThan(1000);
      const ok = (await at(offset, fit)()) as { value: string; offset: number };
      expect(ok.value).toBe(text.slice(ok.offset, ok.offset + ok.value.length));
      expect(new TextEncoder().encode(JSON.stringify(ok.value)).length).toBeLessThanOrEqual(16384);
      // fit + 1 may end inside a surrogate pair (the range then stops before it); fit + 2 adds a whole character.
      expect(await codeOf(at(offset, fit + 2))).toBe("RESULT_SLICE_TOO_LARGE");
    }
  });

  it("the fit is searched within the slice, not the 20 MB after it: about as fast as on the slice alone", async () => {
    const slice = text.slice(10_000_001, 10_100_001);
    const fastest = async (run: () => unknown) => {
      let best = Infinity;
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        await fitOf(run);
        best = Math.min(best, performance.now() - started);
      }
      return best;
    };
    const alone = await fastest(() => answerWhole(slice, { handle: "h", path: "$", limit: 100_000 }, 16384));
    const inBig = await fastest(at(10_000_001, 100_000));
    expect(inBig).toBeLessThan(alone * 8 + 5); // was about 35x: the search cut strings of up to 20 MB
  });
});

describe("S7.1 S7.6 INVALID_INPUT", () => {
  it.each([
    [undefined],
    [{}],
    [{ handle: 5 }],
    [{ handle: "" }],
    [{ handle: "h", path: 1 }],
    [{ handle: "h", offset: -1 }],
    [{ handle: "h", offset: 1.5 }],
    [{ handle: "h", offset: "one" }], // a string of digits is read as a number (S18.4)
    [{ handle: "h", limit: 0 }],
    [{ handle: "h", limit: 100001 }],
    [{ handle: "h", page: 0 }],
    [{ handle: "h", page: 1, offset: 1 }],
    [{ handle: "h", fields: 7 }], // one comma-separated string is split (S18.4)
    [{ handle: "h", fields: [1] }],
  ])("refuses %j", async (args) => {
    expect(await codeOf(() => parseQueryArguments(args))).toBe("INVALID_INPUT");
  });

  it("S7.1 a missing handle is required; a handle of another type must be a string", async () => {
    for (const args of [{}, { handle: undefined }, { handle: null }, { handle: "" }]) {
      expect(await messageOf(() => parseQueryArguments(args)), JSON.stringify(args)).toMatch(/^handle is required/);
    }
    for (const [handle, kind] of [
      [42, "a number"],
      [true, "a boolean"],
      [["h"], "a list"],
      [{ id: "h" }, "an object"],
    ] as const) {
      const message = await messageOf(() => parseQueryArguments({ handle }));
      expect(await codeOf(() => parseQueryArguments({ handle }))).toBe("INVALID_INPUT");
      expect(message).toBe(`handle must be a string, the handle of a folded answer (got ${kind})`);
      expect(message).not.toContain("required");
    }
  });

  it("S7.1 offset 0 beside page, as clients that fill schema defaults send it, is accepted: page decides", async () => {
    expect(parseQueryArguments({ handle: "h", page: 2, offset: 0, limit: 5 })).toEqual({
      handle: "h",
      path: "$",
      page: 2,
      limit: 5,
    });
    expect(
      await q({ ...parseQueryArguments({ handle: "h", path: "$.rows", page: 2, offset: 0, limit: 5 }) }),
    ).toMatchObject({
      offset: 5,
      nextOffset: 10,
    });
  });

  it("accepts the bounds", () => {
    // S14.5: fields [] (what form-filling clients send) means all fields, so it is dropped here.
    expect(parseQueryArguments({ handle: "h", limit: 100000, offset: 0, fields: [] })).toEqual({
      handle: "h",
      path: "$",
      limit: 100000,
      offset: 0,
    });
  });
});

const QUERY_CODES = new Set(["RESULT_PATH_NOT_FOUND", "RESULT_SLICE_TOO_LARGE", "INVALID_INPUT"]);

describe("S7.2 S7.6 properties", () => {
  it("random values with random arguments raise nothing but coded errors", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue(),
        fc.record(
          {
            path: fc.oneof(fc.string(), fc.constantFrom("$", "$.a", "/0", "a.0", "$[-1]", "$['a']")),
            offset: fc.oneof(fc.integer({ min: -2, max: 50 }), fc.double()),
            limit: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constant(100001)),
            page: fc.integer({ min: 0, max: 5 }),
            fields: fc.oneof(fc.array(fc.string()), fc.string()),
          },
          { requiredKeys: [] },
        ),
        fc.integer({ min: 1024, max: 4096 }),
        async (value, args, threshold) => {
          try {
            await answerWhole(value, parseQueryArguments({ handle: "h", ...args }), threshold);
          } catch (error) {
            if (!(error instanceof ResultQueryError) || !QUERY_CODES.has(error.code)) throw error;
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it("a path built from a value's own keys resolves to that sub-value in all four forms", async () => {
    const walk = (value: unknown, choices: number[]): (string | number)[] => {
      const steps: (string | number)[] = [];
      let current = value;
      for (const choice of choices) {
        if (Array.isArray(current) && current.length > 0) {
          const index = choice % current.length;
          steps.push(index);
          current = current[index];
        } else if (current && typeof current === "object" && Object.keys(current).length > 0) {
          const keys = Object.keys(current);
          const key = keys[choice % keys.length]!;
          steps.push(key);
          current = (current as Record<string, unknown>)[key];
        } else break;
      }
      return steps;
    };
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.array(fc.nat(), { maxLength: 6 }), async (value, choices) => {
        const steps = walk(value, choices);
        let expected: unknown = value;
        for (const step of steps) expected = (expected as Record<string | number, unknown>)[step];
        const bracket = "$" + steps.map((s) => (typeof s === "number" ? `[${s}]` : `[${JSON.stringify(s)}]`)).join("");
        const pointer = steps.length
          ? "/" + steps.map((s) => String(s).replace(/~/g, "~0").replace(/\//g, "~1")).join("/")
          : "";
        const forms = [bracket, formatPath(steps), pointer];
        const dottable = steps.every(
          (s) =>
            typeof s === "number" ||
            (s !== "" && !/[.[]/.test(s) && s !== "$" && !s.startsWith("$") && !/^(0|[1-9]\d*)$/.test(s)),
        );
        if (dottable && steps.length > 0 && !(typeof steps[0] === "string" && steps[0].startsWith("/")))
          forms.push(steps.join("."));
        for (const path of forms) {
          const resolved = resolvePath(value, path);
          expect(resolved.value).toEqual(expected);
          expect(formatPath(resolved.steps)).toBe(formatPath(steps));
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("S7.10 refusals never echo an argument at length", () => {
  const huge = "x".repeat(1_000_000);

  it.each([
    ["a dot path", `$.${huge}`],
    ["a quoted name", `$['${huge}']`],
    ["a JSON Pointer", `/${huge}`],
    ["a malformed path", `$.rows[${huge}`],
    ["a bare token", huge],
  ])("%s of 1 MB: the message quotes at most 200 of its characters", async (_, path) => {
    const message = await messageOf(() => q({ path }));
    expect(message.length).toBeLessThan(1000);
    const quoted = JSON.parse(/^Path ("(?:[^"\\]|\\.)*")… \(\d+ characters\)/.exec(message)![1]!) as string;
    expect(quoted).toBe(path.slice(0, 200));
    expect(message).toContain(`(${path.length} characters)`);
  });

  it("a short path is quoted whole", async () => {
    expect(await messageOf(() => q({ path: "$.nope" }))).toContain('Path "$.nope" names nothing');
  });

  it("a long key of the answer itself, named by the path, is cut in the size refusal", async () => {
    const key = "k".repeat(5000);
    const message = await messageOf(() =>
      answerWhole({ [key]: "v".repeat(5000) }, { handle: "h", path: `$['${key}']`, limit: 5000 }, 1024),
    );
    expect(message.length).toBeLessThan(1000);
    expect(message).toMatch(/^The slice at \$\.k{190,200}… \(\d+ characters\) is \d+ bytes/);
  });
});
