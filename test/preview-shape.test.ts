import { describe, expect, it } from "vitest";
import { fitFoldedAnswer } from "../src/fit.js";
import { buildPreview } from "../src/preview.js";
import { buildShape } from "../src/shape.js";
import { jsonSize, toJsonBytes } from "../src/size.js";

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
});

describe("S6.1 preview", () => {
  it("cuts every list and string at every depth, keeping the structure", () => {
    const value = { a: [1, 2, 3, 4], b: { c: "abcdef", d: [[1, 2, 3], [4]] }, e: null, f: true };
    expect(buildPreview(value, { items: 2, chars: 3 })).toEqual({ a: [1, 2], b: { c: "abc", d: [[1, 2], [4]] }, e: null, f: true });
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
    expect(buildShape({ a: [1] })).toEqual({ type: "object", keys: { a: { type: "array", length: 1, items: { type: "number" } } } });
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
            keys: { a: { type: "number" }, b: { type: "string", length: 1, optional: true }, c: { type: "boolean", optional: true } },
          },
          { type: "string", length: 1 },
          { type: "number" },
        ],
      },
    });
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
    ["wide items", Array.from({ length: 50 }, () => Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`field_${i}`, "v".repeat(30)])))],
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
