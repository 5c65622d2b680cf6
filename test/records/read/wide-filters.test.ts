// S26.1 S16.4 S14.6: a wildcard or a filter over a wide object's members (`$[?count(@.k1) > 5]` over an answer of
// one wide object, `$.map[?@.n > 12]`) reads its member batches one by one, never the object whole, and answers
// exactly what the whole answer read as one answers (itself held to json-p3 and plain code over the plain value,
// helpers/query-oracle.ts). Real stores (memory, SQLite, Redis) under the real ResultQueryTool; every record
// fetched is counted at the storage, and each query runs on a new store (nothing cached).
import { describe, expect, it } from "vitest";
import { ResultHandleStore, ResultQueryTool, type Owner } from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { answered, everyStore, referenceAnswer, savedCounted } from "../../helpers/store-queries.js";

const owner: Owner = { session: "s-wide-filters", caller: "reader" };
const THRESHOLD = 16_384;
const config = { sliceLimitBytes: THRESHOLD, preview: { chars: 500 } };

/** Members of every kind: array-index keys (listed first by Object.keys), escapes, nested values, scalars. */
function members(count: number): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    const key = i % 97 === 0 ? String(i) : `id-${((i * 7919) % count).toString(36)}-${i % 13}${i % 50 ? "" : '"ü'}`;
    object[key] =
      i % 5 === 0
        ? i
        : i % 7 === 0
          ? `text ${i} "quoted"`
          : { n: i % 31, tag: `t${i % 4}`, k1: i % 11 ? [1, 2, 3, 4, 5, 6] : [1], deep: { x: i % 3 === 0 } };
  }
  return object;
}

const QUERIES: Record<string, unknown>[] = [
  { path: "$[?count(@.k1) > 5]" },
  { path: "$[?count(@.k1) > 5]", offset: 15_000, limit: 7 },
  { path: "$[?count(@.k1) > 50]" }, // nothing: empty, as whole
  { path: "$[?@.tag == 't2' && @.n > 20]", limit: 3 },
  { path: "$[?@.tag == 'none']" }, // no batch holds it: none parsed
  { path: "$[?@ > 30000]", limit: 4 }, // scalar members
  { path: "$[?match(@, 'text 1.*')]", offset: 2, limit: 3 },
  { path: "$[*].deep.x", offset: 5, limit: 5 },
  { path: "$[*]", limit: 3 }, // members: a window
  { path: "$[?@.deep]", fields: ["n"], limit: 3 },
  { path: "$.map[?@.n > 29].tag", limit: 5 },
  { path: "$.map[*].n", offset: 29_990 },
  { path: "$.map[?@.k1]" }, // a page too large: the same refusal
];

const tool = (store: ResultHandleStore) =>
  new ResultQueryTool(() => [{ config: config as ResultHandlesConfig, store: async () => store }]);

describe("S26.1 wildcards and filters over a wide object's members read its member batches", () => {
  const stores = everyStore("wide-filters", 30_000);
  // 2.2 and 1.6 MB, each in several pieces and many batches: a third of the time of 120,000 and 100,000 members.
  const root = members(40_000);
  const nested = { meta: { kind: "map" }, map: members(30_000), rows: Array.from({ length: 3000 }, (_, i) => i) };

  it.each(stores)(
    "%s: each query answers as the whole answer, reading each piece at most once",
    async (name, open) => {
      const storage = await open();
      const figures: string[] = [];
      for (const value of [root, nested]) {
        const { counted, handle, store } = await savedCounted(storage, value, owner);
        const pieces = Math.ceil(JSON.stringify(value).length / store.pieceBytes);
        for (const args of QUERIES.filter(({ path }) => String(path).startsWith("$.map") === (value === nested))) {
          counted.gets = 0;
          const fresh = new ResultHandleStore(counted, 60);
          const started = performance.now();
          const result = await answered(tool(fresh), handle, args, owner);
          const ms = performance.now() - started;
          const label = JSON.stringify(args);
          expect(result, label).toEqual(await referenceAnswer(value, args, config));
          // the index, then each piece once: a whole read would read them as well, so this bounds the batches
          expect(counted.gets, label).toBeLessThanOrEqual(1 + pieces);
          figures.push(`${label} ${counted.gets} records ${ms.toFixed(0)} ms`);
        }
      }
      // Read by batches, nothing of the object is kept whole: the same query on the same store reads its pieces again,
      // and so does a filter reading $, which reads `$['0']` first (S26.1), where it read the object whole and then
      // found it kept, reading only its main record.
      const again = async (path: string) => {
        const { counted, handle, store } = await savedCounted(storage, root, owner);
        const reused = tool(new ResultHandleStore(counted, 60));
        await answered(reused, handle, { path }, owner);
        counted.gets = 0;
        await answered(reused, handle, { path }, owner);
        return { gets: counted.gets, pieces: Math.ceil(JSON.stringify(root).length / store.pieceBytes) };
      };
      const streamed = await again("$[?count(@.k1) > 5]");
      expect(streamed.pieces).toBeGreaterThan(5);
      expect(streamed.gets).toBeGreaterThanOrEqual(streamed.pieces); // every piece again
      const rooted = await again("$[?@ == $['0']]");
      expect(rooted.gets).toBeGreaterThanOrEqual(rooted.pieces);
      // An aggregate over the members (S24.1) reads them the same way: its count from plain code.
      const { counted, handle } = await savedCounted(storage, root, owner);
      counted.gets = 0;
      const args = { path: "$[?@.n == 3]", aggregate: { count: true } };
      const count = Object.values(root).filter((member) => (member as { n?: unknown })?.n === 3).length;
      expect(count).toBeGreaterThan(300);
      expect(await answered(tool(new ResultHandleStore(counted, 60)), handle, args, owner)).toMatchObject({
        value: { count },
      });
      console.log(`S26.1 ${name}: ${figures.join("; ")}`);
    },
    240_000,
  );
});
