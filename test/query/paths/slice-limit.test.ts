// S7.6: a slice of exactly the limit (the instance's thresholdBytes) is answered; one byte more is refused
// with RESULT_SLICE_TOO_LARGE. For a window of a list, of an object's members, of a string and for a
// nodelist, over an answer read whole and over one read in pieces. The expected values and sizes are
// plain code over the value saved.
import { describe, expect, it } from "vitest";
import {
  MemoryStorage,
  ResultHandlesPlugin,
  ResultHandleStore,
  ResultQueryError,
  ResultQueryTool,
  type Owner,
} from "mcp-result-handles";

const LIMIT = 2048;
const owner: Owner = { session: "slice-limit" };
const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/**
 * 23 strings of 86 characters make a list of 23 × 89 + 1 = 2048 bytes of JSON ([, "…", commas, ]); so do 23
 * members `"k00": "<80 characters>"` as an object and a string of 2046 characters. Item 30 and member k30
 * are one character longer. `rows` has `count` items (more: the answer is read in pieces).
 */
function answerOf(count: number) {
  const rows = Array.from(
    { length: count },
    (_, i) => String(i).padStart(4, "0") + (i === 30 ? "y".repeat(83) : "x".repeat(82)),
  );
  const member = (i: number) => [`k${String(i).padStart(2, "0")}`, "v".repeat(i === 30 ? 81 : 80)];
  const map = Object.fromEntries(Array.from({ length: 60 }, (_, i) => member(i)));
  return { rows, map, text: "t".repeat(5000) };
}

async function tool(answer: unknown, pieceBytes?: number) {
  const { config } = ResultHandlesPlugin.init({ thresholdBytes: LIMIT, storage: { type: "memory" } });
  const store = new ResultHandleStore(new MemoryStorage("slice-limit"), 60, pieceBytes ? { pieceBytes } : undefined);
  const handle = store.newHandle();
  await store.save(handle, answer, owner);
  const query = new ResultQueryTool(() => [{ config, store: async () => store }]);
  return (args: Record<string, unknown>) => query.query({ handle, ...args }, owner);
}

async function refusedCode(run: Promise<unknown>): Promise<string> {
  try {
    await run;
  } catch (error) {
    if (error instanceof ResultQueryError) return error.code;
    throw error;
  }
  return "answered";
}

describe.each([
  ["read whole", 100, undefined],
  ["read in pieces", 3000, 16 * 1024],
] as const)("S7.6 a slice of exactly the limit, %s", (_, count, pieceBytes) => {
  const answer = answerOf(count);

  it("a window of a list: 23 items of exactly the limit answer, 23 with one byte more are refused", async () => {
    const query = await tool(answer, pieceBytes);
    const exact = answer.rows.slice(0, 23);
    expect(size(exact)).toBe(LIMIT);
    const result = await query({ path: "$.rows", offset: 0, limit: 23 });
    expect(result).toMatchObject({ value: exact, total: count, offset: 0, nextOffset: 23 });
    expect(size(answer.rows.slice(10, 33))).toBe(LIMIT + 1);
    expect(await refusedCode(query({ path: "$.rows", offset: 10, limit: 23 }))).toBe("RESULT_SLICE_TOO_LARGE");
  });

  it("a nodelist: the same 23 items by a slice selector", async () => {
    const query = await tool(answer, pieceBytes);
    const result = await query({ path: "$.rows[0:23]", limit: 23 });
    expect(result).toMatchObject({ value: answer.rows.slice(0, 23), total: 23 });
    expect(await refusedCode(query({ path: "$.rows[10:33]", limit: 23 }))).toBe("RESULT_SLICE_TOO_LARGE");
  });

  it("a window of an object's members", async () => {
    const query = await tool(answer, pieceBytes);
    const exact = Object.fromEntries(Object.entries(answer.map).slice(0, 23));
    expect(size(exact)).toBe(LIMIT);
    const result = await query({ path: "$.map", offset: 0, limit: 23 });
    expect(result).toMatchObject({ value: exact, total: 60, offset: 0, nextOffset: 23 });
    expect(size(Object.fromEntries(Object.entries(answer.map).slice(10, 33)))).toBe(LIMIT + 1);
    expect(await refusedCode(query({ path: "$.map", offset: 10, limit: 23 }))).toBe("RESULT_SLICE_TOO_LARGE");
  });

  it("a window of a string", async () => {
    const query = await tool(answer, pieceBytes);
    expect(size(answer.text.slice(0, 2046))).toBe(LIMIT);
    const result = await query({ path: "$.text", offset: 0, limit: 2046 });
    expect(result).toMatchObject({ value: answer.text.slice(0, 2046), total: 5000, nextOffset: 2046 });
    expect(await refusedCode(query({ path: "$.text", offset: 0, limit: 2047 }))).toBe("RESULT_SLICE_TOO_LARGE");
  });
});
