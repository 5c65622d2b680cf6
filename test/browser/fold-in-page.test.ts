// The fold's own code in a page build: UTF-8 without Node's Buffer, and hostile answers (S4.3, S4.8, S5.4).
import { describe, expect, it } from "vitest";
import { RESULT_HANDLE_META_KEY, ResultHandlesPlugin, foldToolResult } from "mcp-result-handles";
import { jsonSize } from "../../src/util/size.js";
import { utf8Bytes, utf8Length } from "../../src/util/utf8.js";
import { deepList, mixedRows, wideObject } from "../helpers/hostile-answers.js";

const alice = { session: "s-1", caller: "alice" };

describe("S4.3 UTF-8 in a page (TextEncoder.encodeInto, no Buffer)", () => {
  it("encodes and measures ASCII, multi-byte text and surrogate pairs like TextEncoder", () => {
    expect((globalThis as { Buffer?: unknown }).Buffer).toBeUndefined();
    const grows = ["中".repeat(1000), "😀".repeat(500), `${"x".repeat(900)}${"é".repeat(300)}`]; // past the first buffer
    for (const text of [
      "",
      "plain ascii",
      "é€😀",
      `${"x".repeat(1000)}é`,
      JSON.stringify({ k: "a😀é\ud800" }),
      ...grows,
    ]) {
      const expected = new TextEncoder().encode(text);
      expect(utf8Bytes(text)).toEqual(expected);
      expect(utf8Length(text)).toBe(expected.byteLength);
    }
    expect(jsonSize({ k: "😀" })).toBe(12);
  });
});

describe("S4.8 hostile answers fold in a page", () => {
  it.each([
    ["a list nested 3000 levels deep", () => deepList(3000)],
    ["an object of 48,000 keys", () => wideObject(48_000)],
    ["rows of mixed kinds", () => mixedRows(20_000)],
  ])("folds %s within half the threshold", async (_, make) => {
    const plugin = ResultHandlesPlugin.init({ thresholdBytes: 16384 });
    const warnings: string[] = [];
    plugin.logger = { warn: (message) => void warnings.push(message) };
    const value = make();
    const json = JSON.stringify(value);
    const started = performance.now();
    const result = await foldToolResult(plugin, {
      toolName: "hostile",
      result: { content: [{ type: "text", text: json }] },
      owner: alice,
    });
    expect(performance.now() - started).toBeLessThan(1000); // a guard against quadratic folds, not a speed figure
    expect(warnings).toEqual([]);
    expect(result._meta?.[RESULT_HANDLE_META_KEY]).toMatchObject({ bytes: new TextEncoder().encode(json).byteLength });
    expect(new TextEncoder().encode(JSON.stringify(result.structuredContent)).byteLength).toBeLessThanOrEqual(8192);
    await plugin.onShutdown();
  });
});
