import { afterEach, describe, expect, it, vi } from "vitest";
import { RESULT_HANDLE_META_KEY, ResultHandlesPlugin, foldToolResult, type ToolResult } from "mcp-result-handles";
import { bareDeepList, deepList, deepObject, mixedRows, wideObject, wideRows } from "../helpers/hostile-answers.js";

const THRESHOLD = 16384;
const alice = { session: "s-1", caller: "alice" };
const utf8 = (text: string) => new TextEncoder().encode(text).byteLength;
const isFolded = (result: ToolResult) => RESULT_HANDLE_META_KEY in (result._meta ?? {});

function plugin() {
  const warnings: string[] = [];
  const instance = ResultHandlesPlugin.init({ thresholdBytes: THRESHOLD, storage: { type: "memory" } });
  instance.logger = { warn: (message) => void warnings.push(message) };
  return { instance, warnings };
}

const answers: [string, () => Record<string, unknown> | unknown[]][] = [
  ["an object nested 3000 levels deep", () => deepObject(3000)],
  ["a list nested 3000 levels deep", () => deepList(3000)],
  ["an object of 48,000 keys", () => wideObject(48_000)],
  ["rows of 60 keys", () => wideRows(2000)],
  ["rows of mixed kinds", () => mixedRows(20_000)],
];

describe("S4.8 answers of any shape fold in linear time", () => {
  it.each(answers)(
    "folds %s well under a second, within half the threshold (S5.4), and reads it back",
    async (_, make) => {
      const value = make();
      const json = JSON.stringify(value);
      // The usual MCP answer: a text repeating structuredContent (a list goes in the text alone).
      const original: ToolResult = Array.isArray(value)
        ? { content: [{ type: "text", text: json }] }
        : { content: [{ type: "text", text: json }], structuredContent: value };
      const { instance, warnings } = plugin();
      const started = performance.now();
      const result = await foldToolResult(instance, { toolName: "hostile", result: original, owner: alice });
      const elapsed = performance.now() - started;

      expect(warnings).toEqual([]);
      expect(isFolded(result)).toBe(true);
      expect(utf8(JSON.stringify(result.structuredContent))).toBeLessThanOrEqual(THRESHOLD / 2);
      expect(result._meta![RESULT_HANDLE_META_KEY]).toMatchObject({ bytes: utf8(json) });
      // A guard against the quadratic fold of before (seconds); the speed itself is measured by `npm run bench`.
      expect(elapsed).toBeLessThan(1000);
      const { handle } = result.structuredContent as { handle: string };
      const stored = await (await instance.store()).read(handle, alice);
      expect(JSON.stringify(stored!.value)).toBe(json);
      await instance.onShutdown();
    },
  );

  it("shows the start of a deep answer in the preview, not only an empty container", async () => {
    const { instance } = plugin();
    const result = await foldToolResult(instance, {
      toolName: "deep",
      result: { structuredContent: deepObject(3000) },
      owner: alice,
    });
    const { preview } = result.structuredContent as { preview: { level: number; child: { level: number } } };
    expect(preview.level).toBe(0);
    expect(preview.child.level).toBe(1);
    await instance.onShutdown();
  });

  it(
    "folds a text repeating a 3000-deep structuredContent in another key order (no recursion in the " + "comparison)",
    async () => {
      const value = deepObject(3000);
      let reversed: Record<string, unknown> | null = null;
      for (let level = 2999; level >= 0; level--)
        reversed = { child: reversed, note: "n".repeat(100), name: `node ${level}`, level };
      const reordered = JSON.stringify(reversed);
      expect(reordered).not.toBe(JSON.stringify(value));
      const { instance, warnings } = plugin();
      const result = await foldToolResult(instance, {
        toolName: "deep",
        result: { content: [{ type: "text", text: reordered }], structuredContent: value },
        owner: alice,
      });
      expect(warnings).toEqual([]);
      expect(isFolded(result)).toBe(true);
      await instance.onShutdown();
    },
  );
});

describe("S4.7 a fold never fails the call", () => {
  const cryptoDescriptor = Object.getOwnPropertyDescriptor(globalThis, "crypto")!;
  afterEach(() => {
    Object.defineProperty(globalThis, "crypto", cryptoDescriptor);
  });

  /** A page served over plain http has `crypto.getRandomValues` but neither `randomUUID` nor `subtle`. */
  function insecurePageCrypto(keep: "nothing" | "randomUUID" | "only randomUUID") {
    const real = globalThis.crypto;
    const limited: Partial<Crypto> =
      keep === "only randomUUID" ? {} : { getRandomValues: real.getRandomValues.bind(real) };
    if (keep !== "nothing") limited.randomUUID = real.randomUUID.bind(real);
    Object.defineProperty(globalThis, "crypto", { value: limited, configurable: true, writable: true });
  }

  it.each([
    ["crypto.randomUUID is missing (newHandle throws)", "nothing", "randomUUID"],
    // Node seals with node:crypto (S8.4), so crypto.subtle alone is not needed there: take the IV source too.
    ["crypto.subtle and crypto.getRandomValues are missing (sealing fails)", "only randomUUID", "WebCrypto"],
  ] as const)("sends the answer whole with a warning when %s", async (_, keep, reason) => {
    const { instance, warnings } = plugin();
    await instance.store(); // opened while WebCrypto is there; only the fold runs without it
    const original: ToolResult = { structuredContent: wideRows(100) };
    insecurePageCrypto(keep);
    const result = await foldToolResult(instance, { toolName: "rows", result: original, owner: alice });
    Object.defineProperty(globalThis, "crypto", cryptoDescriptor);
    expect(result).toBe(original);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('"rows"');
    expect(warnings[0]).toContain(reason);
    await instance.onShutdown();
  });

  it("in Node, a missing crypto.subtle does not stop the fold: node:crypto seals the same records (S8.4)", async () => {
    const { instance, warnings } = plugin();
    await instance.store();
    insecurePageCrypto("randomUUID");
    const result = await foldToolResult(instance, {
      toolName: "rows",
      result: { structuredContent: wideRows(100) },
      owner: alice,
    });
    Object.defineProperty(globalThis, "crypto", cryptoDescriptor);
    expect(isFolded(result)).toBe(true);
    expect(warnings).toEqual([]);
    await instance.onShutdown();
  });

  it("sends whole, with a warning, an answer JSON cannot write: 100,000 levels deep, or holding a bigint", async () => {
    const tooDeep = bareDeepList(100_000);
    expect(() => JSON.stringify(tooDeep)).toThrow(RangeError); // what the fold meets
    for (const original of [
      { content: [{ type: "text", text: "x".repeat(20_000) }], structuredContent: { rows: tooDeep } },
      { structuredContent: { rows: tooDeep } },
      { structuredContent: { big: 10n, pad: "x".repeat(20_000) } },
    ] as ToolResult[]) {
      const { instance, warnings } = plugin();
      const result = await foldToolResult(instance, { toolName: "odd", result: original, owner: alice });
      expect(result).toBe(original);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/could not fold the answer of tool "odd" \(.+\); sent it whole/);
      await instance.onShutdown();
    }
  });

  it(
    "sends whole, with a warning, an answer that fails while the preview is built, after " + "encryption started",
    async () => {
      let reads = 0;
      const rows = wideRows(100).rows;
      const answer = {
        get rows() {
          if (++reads > 1) throw new Error("answer changed under the fold");
          return rows;
        },
      };
      const unhandled = vi.fn();
      process.on("unhandledRejection", unhandled);
      const { instance, warnings } = plugin();
      const original: ToolResult = { structuredContent: answer };
      const result = await foldToolResult(instance, { toolName: "moving", result: original, owner: alice });
      await new Promise((resolve) => setTimeout(resolve, 20));
      process.off("unhandledRejection", unhandled);
      expect(result).toBe(original);
      expect(warnings.join()).toContain("answer changed under the fold");
      expect(unhandled).not.toHaveBeenCalled();
      await instance.onShutdown();
    },
  );
});

describe("S4.8 the answer is serialised once", () => {
  it("folds the usual MCP answer (a text repeating structuredContent) with one JSON.stringify of it", async () => {
    const value = wideRows(300);
    const original: ToolResult = { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
    const { instance } = plugin();
    await instance.store();
    const stringify = vi.spyOn(JSON, "stringify"); // observes only
    try {
      const result = await foldToolResult(instance, { toolName: "rows", result: original, owner: alice });
      expect(isFolded(result)).toBe(true);
      // Once: the store serialises big lists in batches (S8.5), so count characters written, not calls.
      const written = stringify.mock.results.reduce(
        (sum, { value: json }) => sum + (typeof json === "string" ? json.length : 0),
        0,
      );
      const once = original.content![0]!.text!.length;
      expect(written).toBeGreaterThanOrEqual(once);
      expect(written).toBeLessThan(1.5 * once);
    } finally {
      stringify.mockRestore();
    }
    await instance.onShutdown();
  });

  it(
    "folds a repeat in any layout: pretty-printed with any indent (one more JSON.stringify at " + "most), CRLF",
    async () => {
      const value = { note: 'say:"hi"and\\done', ...wideRows(300) }; // no whitespace inside its strings
      const { instance } = plugin();
      await instance.store();
      const pretty = JSON.stringify(value, null, 2);
      for (const text of [
        pretty,
        JSON.stringify(value, null, 4),
        JSON.stringify(value, null, "\t"),
        pretty.replaceAll("\n", "\r\n"),
      ]) {
        const original: ToolResult = { content: [{ type: "text", text }], structuredContent: value };
        const stringify = vi.spyOn(JSON, "stringify"); // observes only
        try {
          expect(isFolded(await foldToolResult(instance, { toolName: "rows", result: original, owner: alice }))).toBe(
            true,
          );
          expect(stringify.mock.calls.filter(([argument]) => argument === value).length).toBeLessThanOrEqual(2);
        } finally {
          stringify.mockRestore();
        }
      }
      // Whitespace inside a string is data, also after an escaped quote: a text that adds some says something else.
      for (const [from, to] of [
        ["say:", "say :"],
        ['\\"hi', '\\" hi'],
        ["and\\\\done", "and\\\\ done"],
      ]) {
        const text = JSON.stringify(value, null, 2).replace(from!, to!);
        expect(text).not.toBe(JSON.stringify(value, null, 2));
        const result = await foldToolResult(instance, {
          toolName: "rows",
          result: { content: [{ type: "text", text }], structuredContent: value },
          owner: alice,
        });
        expect(isFolded(result)).toBe(false);
      }
      await instance.onShutdown();
    },
  );

  it("still folds a pretty-printed repeat and still refuses a text that differs", async () => {
    const value = wideRows(300);
    const { instance } = plugin();
    const fold = (text: string) =>
      foldToolResult(instance, {
        toolName: "rows",
        result: { content: [{ type: "text", text }], structuredContent: value },
        owner: alice,
      });
    expect(isFolded(await fold(JSON.stringify(value, null, 2)))).toBe(true);
    const other = structuredClone(value);
    other.rows[299]!.field_5 = "changed";
    const differing = await fold(JSON.stringify(other));
    expect(isFolded(differing)).toBe(false);
    expect(isFolded(await fold(JSON.stringify({ ...value, extra: 1 })))).toBe(false);
    await instance.onShutdown();
  });
});
