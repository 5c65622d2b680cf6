// S8.5 and S21.4: an answer stored in pieces reads back whole exactly as it was written, though its lists,
// long strings and wide objects are parsed a window at a time yielding between them (read-whole.ts): the
// same values, the same key order (the parts' keys keep their places), `__proto__` as an own key. Runs in
// Node and again inside Chromium.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemoryStorage, ResultHandleStore, type Owner } from "mcp-result-handles";

const alice: Owner = { session: "session-alice-whole", caller: "alice@example.test" };

async function roundTrip(value: unknown, pieceBytes = 16 * 1024): Promise<unknown> {
  const store = new ResultHandleStore(new MemoryStorage("whole", { maxBytes: 256 * 1024 * 1024 }), 60, { pieceBytes });
  const handle = store.newHandle();
  await store.save(handle, value, alice);
  return (await store.read(handle, alice))?.value;
}

/** Same JSON text, so same values and the same key order everywhere. */
async function expectSame(value: unknown, pieceBytes?: number): Promise<void> {
  const back = await roundTrip(value, pieceBytes);
  expect(JSON.stringify(back)).toBe(JSON.stringify(value));
}

const rows = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    id: i,
    title: `row ${i} ünïcødé ${"x".repeat(i % 7)}`,
    tags: ["a", i % 3],
  }));

describe("S8.5 a pieced answer read whole, part by part", () => {
  it("lists beside other keys, under nested keys, and at the root", async () => {
    await expectSame({ before: 1, rows: rows(20_000), middle: { deep: { items: rows(5000) } }, after: "end" });
    await expectSame(rows(30_000));
    await expectSame({ a: [], b: rows(3000), c: [] });
    // three keys down
    await expectSame({ data: { search: { nodes: rows(12_000) } }, "7": "an integer key beside them" });
    await expectSame(Array.from({ length: 300_000 }, (_, i) => i)); // numbers: many windows of slots
  });

  it(
    "long strings (at the root and under keys, escapes and astral " +
      "characters) and wide objects (integer keys, __proto__)",
    async () => {
      const text = 'line "quoted" \\ back 😀 é\n'.repeat(40_000);
      await expectSame({ log: text, rows: rows(2000), tail: true });
      await expectSame(text);
      const wide: Record<string, unknown> = {};
      for (let i = 0; i < 20_000; i++) wide[i % 3 === 0 ? String(i) : `key_${i}`] = { n: i };
      await expectSame({ first: 0, map: wide, last: 1 });
      await expectSame(wide); // a wide object at the root, over several windows
      await expectSame({ log: text, map: wide, rows: rows(12_000) }); // each kind over several windows, in one answer
      const read = (await roundTrip(
        JSON.parse(
          `{"map":{"__proto__":{"x":1},${Array.from({ length: 5000 }, (_, i) => `"k${i}":${i}`).join(",")}},` +
            `"rows":${JSON.stringify(rows(3000))}}`,
        ),
      )) as {
        map: Record<string, unknown>;
      };
      expect(Object.hasOwn(read.map, "__proto__")).toBe(true);
      expect(Object.getPrototypeOf(read.map)).toBe(Object.prototype);
      expect(({} as { x?: unknown }).x).toBeUndefined();
    },
  );

  it("any JSON value round-trips whole, in pieces as small as 1 KB", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue({ maxDepth: 4 }),
        fc.array(fc.jsonValue({ maxDepth: 2 }), { minLength: 50, maxLength: 300 }),
        async (extra, list) => {
          await expectSame({ extra, list, text: "t".repeat(5000) + JSON.stringify(extra) }, 1024);
        },
      ),
      { numRuns: 40 },
    );
  });
});
