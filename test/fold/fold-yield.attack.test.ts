// S21.4 a fold yields while it serialises a large answer: between batches of a list, batches of
// a long string and member batches of a wide object, once it has held the thread SERIALISE_HOLD_MS. Before,
// the event loop was held for the whole fold (a million keys: 1.1-1.3 s); the answer is the same either way.
import { afterAll, describe, expect, it } from "vitest";
import { ResultHandlesPlugin, foldToolResult } from "../../src/runtimes/node/index.js";
import { SERIALISE_HOLD_MS } from "../../src/defaults.js";
import { serializeAnswerYielding, type SerializedAnswer } from "../../src/records/format/serialize.js";
import { watchStalls } from "../helpers/attack-bench.js";

const owner = { session: "session-yield-3a9c", caller: "alice@example.test" };
const plugin = ResultHandlesPlugin.init({
  thresholdBytes: 16_384,
  storage: { type: "memory", memory: { maxBytes: 1_000_000_000 } },
});
afterAll(() => plugin.onShutdown());

function rows(count: number) {
  return {
    rows: Array.from({ length: count }, (_, id) => ({ id, title: `row ${id}`, note: "n".repeat(40 + (id % 9)) })),
  };
}
function wide(keys: number) {
  const object: Record<string, string> = {};
  for (let i = 0; i < keys; i++) object[`key_${String(i).padStart(7, "0")}`] = `value ${i}`;
  return object;
}

describe("S21.4 a large answer's fold yields to other work", () => {
  const shapes: [string, () => unknown][] = [
    ["a 40 MB list of rows", () => rows(500_000)],
    ["a 60 MB string", () => "s".repeat(60_000_000)],
    ["a 700,000-key object", () => wide(700_000)],
  ];
  for (const [name, make] of shapes) {
    it(`${name}: the event loop is held for well under the fold, and the answer reads back whole`, async () => {
      const value = make();
      await foldToolResult(plugin, {
        toolName: "warm-up",
        result: { structuredContent: { value: "x".repeat(20_000) } },
        owner,
      }); // the store is open
      const stalls = watchStalls();
      const started = performance.now();
      const folded = await foldToolResult(plugin, {
        toolName: "big",
        result: { structuredContent: value as Record<string, unknown> },
        owner,
      });
      const ms = performance.now() - started;
      const held = stalls.stop();
      console.log(`S21.4 fold of ${name}: ${ms.toFixed(0)} ms, the event loop held at most ${held.toFixed(0)} ms`);
      const handle = (folded.structuredContent as { handle: string }).handle;
      expect(await (await plugin.store()).read(handle, owner)).toEqual({ value });
      expect(held).toBeLessThan(0.6 * ms); // one serialisation in one go held it for the whole fold
    }, 60_000);
  }

  it("yielding, the serialisation is JSON.stringify's bytes, with the layout plain code finds in them", async () => {
    // about 150 ms of writing
    const value = { first: rows(300_000).rows, text: "é".repeat(3_000_000), wide: wide(200_000), last: rows(100_000) };
    const pieceBytes = 64 * 1024;
    const stalls = watchStalls();
    const started = performance.now();
    const yielding = await serializeAnswerYielding(value, { pieceBytes });
    const ms = performance.now() - started;
    expect(stalls.stop()).toBeLessThan(0.6 * ms); // it did yield
    expect(yielding.text).toBe(JSON.stringify(value));
    expectLayouts(value, yielding);
    // the pieces are the text's UTF-8 in order, each but the last within 3 bytes of pieceBytes (whole characters)
    const bytes = new TextEncoder().encode(yielding.text);
    let at = 0;
    yielding.pieces.forEach((piece, i) => {
      expect(Buffer.from(piece.bytes).equals(bytes.subarray(at, at + piece.bytes.byteLength))).toBe(true);
      if (i < yielding.pieces.length - 1) expect(pieceBytes - piece.bytes.byteLength).toBeLessThanOrEqual(3);
      at += piece.bytes.byteLength;
    });
    expect(at).toBe(bytes.byteLength);
    expect(yielding.lists.map((list) => list.path)).toEqual([["first"], ["last", "rows"]]);
    expect(yielding.strings.map((text) => text.path)).toEqual([["text"]]);
    expect(yielding.objects.map((object) => object.path)).toEqual([["wide"]]);
    expect(SERIALISE_HOLD_MS).toBeLessThanOrEqual(50);
  });
});

/**
 * The layout's batches held to plain code: the UTF-8 between one batch's offset and the next (or the end) is the
 * JSON of that batch's items, characters or members, joined as JSON.stringify joins them.
 */
function expectLayouts(value: unknown, json: SerializedAnswer) {
  const bytes = new TextEncoder().encode(json.text);
  const decoder = new TextDecoder();
  const between = (from: number, to: number) => decoder.decode(bytes.subarray(from, to)).replace(/^,|,$/g, "");
  const at = (path: string[]) => path.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], value);
  const check = (batches: number[], end: number, count: number, text: (first: number, last: number) => string) => {
    expect(batches.length).toBeGreaterThan(2);
    for (let k = 0; k < batches.length; k += 2) {
      const last = k + 2 < batches.length ? batches[k + 2]! : count;
      const to = k + 2 < batches.length ? batches[k + 3]! : end;
      expect(between(batches[k + 1]!, to), `batch ${k / 2}`).toBe(text(batches[k]!, last));
    }
  };
  for (const list of json.lists) {
    const items = at(list.path) as unknown[];
    expect(list.length).toBe(items.length);
    check(list.batches, list.end, items.length, (first, last) =>
      items
        .slice(first, last)
        .map((item) => JSON.stringify(item))
        .join(","),
    );
  }
  for (const string of json.strings) {
    const text = at(string.path) as string;
    expect(string.length).toBe(text.length);
    check(string.batches, string.end, text.length, (first, last) =>
      JSON.stringify(text.slice(first, last)).slice(1, -1),
    );
  }
  for (const object of json.objects) {
    const members = at(object.path) as Record<string, unknown>;
    const keys = Object.keys(members);
    expect(object.length).toBe(keys.length);
    check(object.batches, object.end, keys.length, (first, last) =>
      keys
        .slice(first, last)
        .map((key) => `${JSON.stringify(key)}:${JSON.stringify(members[key])}`)
        .join(","),
    );
  }
}
