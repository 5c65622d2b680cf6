import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fitFoldedAnswer } from "../../src/fold/fit.js";
import { cutString, isPlainObject, jsonKeys, type JsonObject } from "../../src/util/json.js";
import { deepestCutWithin, previewTry, previewWithin, type PreviewLimits } from "../../src/fold/preview.js";
import { SHAPE_LIMITS } from "../../src/defaults.js";
import { Outline } from "../../src/fold/shape.js";
import { jsonSize, jsonStringSize, toJsonBytes } from "../../src/util/size.js";

/** The whole preview of `value` (S6.1), as the fit builds it (fold/fit.ts) with no byte allowance. */
const buildPreview = (value: unknown, limits: PreviewLimits) => previewWithin(value, limits, Infinity)!.preview;
/** The whole shape of `value` (S6.2), as the fit renders its outline with no byte allowance. */
const buildShape = (value: unknown, limits: Parameters<typeof Outline.of>[1] = SHAPE_LIMITS) =>
  Outline.of(value, limits).render(limits.depth, Infinity)!.shape;

const HANDLE = "3f1c2a4e-9b7d-4c1e-8f2a-1b2c3d4e5f60";
const orders = (n: number) => ({
  orders: Array.from({ length: n }, (_, id) => ({ id, status: ["open", "shipped", "closed"][id % 3] })),
  total: n,
});

describe("S4.3 size as UTF-8 JSON", () => {
  it("counts multi-byte characters and surrogate pairs as UTF-8 bytes", () => {
    for (const value of ["abc", "é", "€", "😀", { k: "a😀é" }, [1, "x", null], "\ud800"]) {
      expect(jsonSize(value)).toBe(toJsonBytes(value).byteLength);
      expect(jsonSize(value)).toBe(new TextEncoder().encode(JSON.stringify(value)).byteLength);
    }
    expect(jsonSize("😀")).toBe(6); // quotes + 4 bytes
  });

  it("sizes a string as JSON, escapes included, like JSON.stringify", () => {
    fc.assert(fc.property(fc.string({ unit: "binary" }), (text) => jsonStringSize(text) === jsonSize(text)));
    for (const text of ["", "plain", 'q"uote', "back\\slash", "tab\t", "\u0001", "\u007f", "é", "\ud800"]) {
      expect(jsonStringSize(text)).toBe(new TextEncoder().encode(JSON.stringify(text)).byteLength);
    }
  });
});

/** S6.1 written the obvious, recursive way: the oracle the bounded, iterative preview must agree with. */
function referencePreview(value: unknown, limits: PreviewLimits, depth = 0): unknown {
  if (typeof value === "string") return cutString(value, limits.chars);
  if (value === null || typeof value !== "object") return value;
  const flatten = limits.depth !== undefined && depth >= limits.depth;
  if (Array.isArray(value))
    return flatten ? [] : value.slice(0, limits.items).map((item) => referencePreview(item ?? null, limits, depth + 1));
  const out: JsonObject = {};
  if (flatten || !isPlainObject(value)) return out;
  for (const key of jsonKeys(value))
    Object.defineProperty(out, key, {
      value: referencePreview(value[key], limits, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}

/** JSON values, with rows of objects that share some keys (widening) and `__proto__` among the keys. */
const jsonValues = fc.oneof(
  fc.jsonValue({ maxDepth: 5 }),
  fc.dictionary(
    fc.constantFrom("rows", "__proto__", "x"),
    fc.array(fc.dictionary(fc.constantFrom("a", "b", "c", "__proto__"), fc.jsonValue({ maxDepth: 3 })), {
      maxLength: 8,
    }),
  ),
);
const previewLimits = fc.record(
  {
    items: fc.integer({ min: 0, max: 6 }),
    chars: fc.integer({ min: 0, max: 12 }),
    depth: fc.integer({ min: 0, max: 6 }),
  },
  { requiredKeys: ["items", "chars"] },
);

describe("S6.1 S6.2 properties of the bounded builders", () => {
  it("the preview is the reference preview, measured exactly", () => {
    fc.assert(
      fc.property(jsonValues, previewLimits, (value, limits) => {
        const built = previewWithin(value, limits, Infinity)!;
        expect(JSON.stringify(built.preview)).toBe(JSON.stringify(referencePreview(value, limits)));
        expect(built.bytes).toBe(jsonSize(built.preview));
        if (isPlainObject(built.preview)) expect(Object.getPrototypeOf(built.preview)).toBe(Object.prototype);
      }),
    );
  });

  it("a preview within an allowance is given exactly when it fits", () => {
    fc.assert(
      fc.property(jsonValues, previewLimits, fc.integer({ min: 0, max: 400 }), (value, limits, allowance) => {
        const fits = jsonSize(referencePreview(value, limits)) <= allowance;
        expect(previewWithin(value, limits, allowance) !== undefined).toBe(fits);
      }),
    );
  });

  it("a try with smaller limits that still keep what a try kept builds the same preview, or fails the same", () => {
    fc.assert(
      fc.property(
        jsonValues,
        previewLimits,
        fc.integer({ min: 0, max: 400 }),
        fc.nat(),
        fc.nat(),
        (value, limits, allowance, i, c) => {
          const tried = previewTry(value, limits, allowance);
          const items = tried.keptItems + (i % (limits.items - tried.keptItems + 1));
          const chars = tried.keptChars + (c % (limits.chars - tried.keptChars + 1));
          const again = previewTry(value, { ...limits, items, chars }, allowance);
          expect(JSON.stringify(again.built)).toBe(JSON.stringify(tried.built));
        },
      ),
    );
  });

  it("the deepest cut measured in one walk is the deepest at which the preview fits", () => {
    fc.assert(
      fc.property(jsonValues, previewLimits, fc.integer({ min: 0, max: 400 }), (value, { items, chars }, allowance) => {
        const depth = deepestCutWithin(value, { items, chars }, allowance);
        const fits = (cut: number) => previewWithin(value, { items, chars, depth: cut }, allowance) !== undefined;
        if (depth === -1) expect(fits(0)).toBe(false);
        else if (depth === Infinity) expect(previewWithin(value, { items, chars }, allowance)).toBeDefined();
        else expect([fits(depth), fits(depth + 1)]).toEqual([true, false]);
      }),
    );
  });

  it("the outline rendered at any depth is the shape built at that depth, measured exactly", () => {
    fc.assert(
      fc.property(
        jsonValues,
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: 0, max: 600 }),
        (value, depth, allowance) => {
          const rendered = Outline.of(value).render(depth, Infinity)!;
          expect(rendered.shape).toEqual(buildShape(value, { ...SHAPE_LIMITS, depth }));
          expect(rendered.bytes).toBe(jsonSize(rendered.shape));
          expect(Outline.of(value).render(depth, allowance) !== undefined).toBe(rendered.bytes <= allowance);
        },
      ),
    );
  });

  it("S5.4 the folded answer fits its allowance, and keeps the full preview and shape whenever they fit", () => {
    fc.assert(
      fc.property(
        jsonValues,
        fc.record({ items: fc.integer({ min: 1, max: 8 }), chars: fc.integer({ min: 1, max: 40 }) }),
        fc.integer({ min: 512, max: 4096 }),
        (value, preview, allowance) => {
          const folded = fitFoldedAnswer(value, HANDLE, preview, allowance);
          expect(jsonSize(folded)).toBeLessThanOrEqual(allowance);
          const whole = { preview: referencePreview(value, preview), shape: buildShape(value), handle: HANDLE };
          if (jsonSize(whole) <= allowance) expect(JSON.stringify(folded)).toBe(JSON.stringify(whole));
        },
      ),
    );
  });
});

describe("S6.1 preview", () => {
  it("cuts every list and string at every depth, keeping the structure", () => {
    const value = { a: [1, 2, 3, 4], b: { c: "abcdef", d: [[1, 2, 3], [4]] }, e: null, f: true };
    expect(buildPreview(value, { items: 2, chars: 3 })).toEqual({
      a: [1, 2],
      b: { c: "abc", d: [[1, 2], [4]] },
      e: null,
      f: true,
    });
  });

  it("never splits a surrogate pair", () => {
    expect(buildPreview("a😀b", { items: 1, chars: 2 })).toBe("a");
  });

  it("keeps an own __proto__ key as data, not as a prototype", () => {
    const value = JSON.parse('{"__proto__": {"x": 1}, "y": 2}');
    const preview = buildPreview(value, { items: 5, chars: 5 }) as object;
    expect(Object.keys(preview)).toEqual(["__proto__", "y"]);
    expect(Object.getPrototypeOf(preview)).toBe(Object.prototype);
  });
});

describe("S6.2 shape", () => {
  it("describes scalars, strings, lists and objects", () => {
    expect(buildShape(null)).toEqual({ type: "null" });
    expect(buildShape(true)).toEqual({ type: "boolean" });
    expect(buildShape(1.5)).toEqual({ type: "number" });
    expect(buildShape("abc")).toEqual({ type: "string", length: 3 });
    expect(buildShape([])).toEqual({ type: "array", length: 0 });
    expect(buildShape({ a: [1] })).toEqual({
      type: "object",
      keys: { a: { type: "array", length: 1, items: { type: "number" } } },
    });
  });

  it("widens list items: missing keys become optional, other types join anyOf with the first first", () => {
    const shape = buildShape([{ a: 1, b: "x" }, { a: 2 }, { a: 3, c: true }, "s", 4]);
    expect(shape).toEqual({
      type: "array",
      length: 5,
      items: {
        anyOf: [
          {
            type: "object",
            keys: {
              a: { type: "number" },
              b: { type: "string", length: 1, optional: true },
              c: { type: "boolean", optional: true },
            },
          },
          { type: "string", length: 1 },
          { type: "number" },
        ],
      },
    });
  });

  it("widens lists of mixed lists into one anyOf, never an anyOf nested per item", () => {
    const rows = Array.from({ length: 300 }, (_, i) => [i, `x${i}`, { nested: [i] }]);
    expect(buildShape(rows)).toEqual({
      type: "array",
      length: 300,
      items: {
        type: "array",
        length: 3,
        items: {
          anyOf: [
            { type: "number" },
            { type: "string", length: 2 },
            { type: "object", keys: { nested: { type: "array", length: 1, items: { type: "number" } } } },
          ],
        },
      },
    });
  });

  it("lists a key first seen in a row that has as many keys as those listed, but not the same", () => {
    const shape = buildShape([
      { a: 1, b: 1 },
      { a: 2, c: "x" },
      { a: 3, b: 2 },
    ]) as { items: { keys: Record<string, object> } };
    expect(shape.items.keys).toEqual({
      a: { type: "number" },
      b: { type: "number", optional: true },
      c: { type: "string", length: 1, optional: true },
    });
  });

  it("widens rows alike whatever their key order, and never takes an inherited member for a missing key", () => {
    const inherits = Object.create({ b: 5 }, { a: { value: 4, enumerable: true } }) as object;
    const shape = buildShape([{ a: 1, b: "x" }, { b: "y", a: 2 }, { a: 3, b: undefined }, inherits]) as {
      items: { keys: Record<string, object> };
    };
    expect(shape.items.keys).toEqual({ a: { type: "number" }, b: { type: "string", length: 1, optional: true } });
    // A getter that deletes a later key while the row is read: c is missing from that row, so optional.
    const deletes = {
      a: 2,
      get b() {
        delete (this as { c?: number }).c;
        return "y";
      },
      c: 1,
    };
    const mutated = buildShape([{ a: 1, b: "x", c: 0 }, deletes]) as { items: { keys: Record<string, object> } };
    expect(mutated.items.keys.c).toEqual({ type: "number", optional: true });
    const same = buildShape([
      { a: 1, b: "x" },
      { a: 2, b: "yy" },
    ]) as { items: { keys: Record<string, object> } };
    expect(same.items.keys).toEqual({ a: { type: "number" }, b: { type: "string", length: 1 } });
  });

  it("marks a key optional when it is missing from an item of a later list", () => {
    const shape = buildShape([[{ a: 1, b: 1 }], [{ a: 1, b: 1 }, { a: 2 }]]) as {
      items: { items: { keys: Record<string, object> } };
    };
    expect(shape.items.items.keys.b).toEqual({ type: "number", optional: true });
    expect(shape.items.items.keys.a).toEqual({ type: "number" });
  });

  it("S6.3 lists at most 50 keys, with keyCount giving the true number", () => {
    const wide = Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`k${i}`, i]));
    const shape = buildShape(wide) as { keys: object; keyCount: number };
    expect(Object.keys(shape.keys)).toHaveLength(50);
    expect(shape.keyCount).toBe(120);
  });

  it("S6.3 stops at 8 levels, reducing deeper containers to { type, length } or { type, keyCount }", () => {
    let deep: unknown = { leaf: 1 };
    for (let i = 0; i < 12; i++) deep = i % 2 ? { x: deep } : [deep];
    let shape = buildShape(deep) as Record<string, unknown>;
    let levels = 0;
    while (shape.items || shape.keys) {
      shape = (shape.items ?? Object.values(shape.keys as object)[0]) as Record<string, unknown>;
      levels++;
    }
    expect(levels).toBe(8);
    expect(Object.keys(shape).sort()).toEqual(shape.type === "array" ? ["length", "type"] : ["keyCount", "type"]);
  });

  it("S6.3 inspects at most the first 1,000 items of a list for widening", () => {
    const items: unknown[] = Array.from({ length: 1500 }, () => ({ a: 1 }));
    items[1200] = { a: 1, late: true };
    items[999] = { a: 1, early: true };
    const keys = (buildShape(items) as { items: { keys: object } }).items.keys;
    expect(Object.keys(keys)).toEqual(["a", "early"]);
  });
});

describe("S6.4 golden example", () => {
  it("gives exactly the reference's preview and shape for 500 orders with preview.items 2", () => {
    const folded = fitFoldedAnswer(orders(500), HANDLE, { items: 2, chars: 500 }, 16384);
    expect(JSON.stringify(folded)).toBe(
      JSON.stringify({
        preview: {
          orders: [
            { id: 0, status: "open" },
            { id: 1, status: "shipped" },
          ],
          total: 500,
        },
        shape: {
          type: "object",
          keys: {
            orders: {
              type: "array",
              length: 500,
              items: { type: "object", keys: { id: { type: "number" }, status: { type: "string", length: 4 } } },
            },
            total: { type: "number" },
          },
        },
        handle: HANDLE,
      }),
    );
  });
});

describe("S5.4 folded size bound", () => {
  const cases: [string, unknown][] = [
    ["long strings", { rows: Array.from({ length: 100 }, (_, i) => ({ id: i, text: "x".repeat(5000) })) }],
    ["a wide object", Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`key-${i}-${"k".repeat(40)}`, i]))],
    ["deep nesting", JSON.parse("[".repeat(200) + "]".repeat(200))],
    ["a long string", "y".repeat(100_000)],
    [
      "wide items",
      Array.from({ length: 50 }, () =>
        Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`field_${i}`, "v".repeat(30)])),
      ),
    ],
  ];
  it.each(cases)("keeps the folded form of %s within half the threshold", (_, value) => {
    for (const threshold of [1024, 4096, 16384]) {
      const folded = fitFoldedAnswer(value, HANDLE, { items: 5, chars: 500 }, threshold / 2);
      expect(jsonSize(folded)).toBeLessThanOrEqual(threshold / 2);
      expect(folded.handle).toBe(HANDLE);
    }
  });

  it("shrinks the preview before cutting the shape", () => {
    const value = { rows: Array.from({ length: 100 }, (_, i) => ({ id: i, text: "x".repeat(5000) })) };
    const folded = fitFoldedAnswer(value, HANDLE, { items: 5, chars: 500 }, 2048);
    expect(folded.shape).toEqual(buildShape(value));
    expect(jsonSize(folded.preview)).toBeLessThan(jsonSize(buildPreview(value, { items: 5, chars: 500 })));
  });
});
