// S26.1 S16.4: `$.w[*]` over a wide object reads its window of members, as `$.w` does: a page deep into a
// million keys read the whole object (5.5 s, the loop held 2.7 s). The answer is the same page, paths,
// total and refusal as the evaluation over the whole value; the expected values come from plain code
// (Object.keys of the value given) and, for the refusals, from the query over the whole value.
import { describe, expect, it } from "vitest";
import { MemoryStorage, type Owner } from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { answered, countedQueries, wholeAnswer } from "../../helpers/store-queries.js";

const owner: Owner = { session: "s-members-window", caller: "reader" };
const config = { sliceLimitBytes: 4096, preview: { chars: 500 } } as ResultHandlesConfig;

// Names, array-index keys (listed first by Object.keys), escapes and non-ASCII, in a shuffled order.
const keys = Array.from({ length: 200_000 }, (_, i) =>
  i % 7 === 0 ? String(i) : i % 5 === 0 ? `ké y"${i}` : `key_${(i * 7919) % 200_000}_${i}`,
);
const w: Record<string, unknown> = {};
for (const [i, key] of keys.entries()) w[key] = i % 3 === 0 ? { n: i, s: `v${i}` } : i;
const value = { head: { title: "wide" }, w, tail: [1, 2, 3] };
const order = Object.keys(w);
const canonical = (key: string) =>
  /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `$.w.${key}` : `$.w['${key.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}']`;

describe("S26.1 a window of a wide object's members, read as a window", () => {
  it("pages anywhere in it read a few batches, and answer what plain code says", async () => {
    const { counted, tool, fold } = countedQueries(new MemoryStorage("members-window"), { config, owner });
    const handle = await fold(value);
    for (const [path, offset, limit] of [
      ["$.w[*]", 0, 20],
      ["$.w.*", 199_990, 20],
      ["$['w'][*]", 123_457, 7],
      ["$.w[*]", 28_572, 50],
    ] as const) {
      const before = counted.gets;
      const got = await answered(tool, handle, { path, offset, limit }, owner);
      const page = order.slice(offset, offset + limit);
      expect(got, `${path} ${offset}`).toEqual({
        path,
        value: page.map((key) => w[key]),
        paths: page.map(canonical),
        total: order.length,
        offset,
        ...(offset + limit < order.length ? { nextOffset: offset + page.length } : {}),
      });
      // the index and the pieces of the window, not the object
      expect(counted.gets - before, `${path} ${offset}`).toBeLessThan(12);
    }
  });

  it("past the end, with fields, and too large a page: as over the whole value", async () => {
    const { tool, fold } = countedQueries(new MemoryStorage("members-window-edges"), { config, owner });
    const handle = await fold(value);
    for (const args of [
      { path: "$.w[*]", offset: 500_000 },
      { path: "$.w[*]", offset: 7, limit: 5, fields: ["s"] },
      { path: "$.w[*]", offset: 3, limit: 5000 },
      { path: "$.w[*]", page: 3, limit: 4 },
      { path: "$.nothing[*]" },
      { path: "$.tail[*]", limit: 2 },
    ]) {
      expect(await answered(tool, handle, args, owner), JSON.stringify(args)).toEqual(
        await wholeAnswer(value, args, config),
      );
    }
  });
});
