// S21.4 a fold yields while it serialises a large answer: between batches of a list, batches of
// a long string and member batches of a wide object, once it has held the thread SERIALISE_HOLD_MS. Before,
// the event loop was held for the whole fold (a million keys: 1.1-1.3 s); the answer is the same either way.
import { afterAll, describe, expect, it } from "vitest";
import { ResultHandlesPlugin, foldToolResult } from "../../src/runtimes/node/index.js";
import { SERIALISE_HOLD_MS } from "../../src/defaults.js";
import { serializeAnswer, serializeAnswerYielding } from "../../src/records/format/serialize.js";
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

  it("yielding or in one go, the serialisation is the same bytes and layout", async () => {
    // about 150 ms of writing
    const value = { first: rows(300_000).rows, text: "é".repeat(3_000_000), wide: wide(200_000), last: rows(100_000) };
    const whole = serializeAnswer(value, { pieceBytes: 64 * 1024 });
    const stalls = watchStalls();
    const started = performance.now();
    const yielding = await serializeAnswerYielding(value, { pieceBytes: 64 * 1024 });
    const ms = performance.now() - started;
    expect(stalls.stop()).toBeLessThan(0.6 * ms); // it did yield
    expect(yielding.text).toBe(whole.text);
    expect(yielding.text).toBe(JSON.stringify(value));
    expect([yielding.lists, yielding.strings, yielding.objects]).toEqual([whole.lists, whole.strings, whole.objects]);
    expect(yielding.pieces.map((piece) => piece.bytes.byteLength)).toEqual(
      whole.pieces.map((piece) => piece.bytes.byteLength),
    );
    expect(SERIALISE_HOLD_MS).toBeLessThanOrEqual(50);
  });
});
