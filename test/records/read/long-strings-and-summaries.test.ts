// S16.4 reads cost what they return: a long string is stored so a window of it reads only the pieces
// holding it (S8.5), with `total` from the index; a refused `$` on a large answer is built from the index
// and the first bytes of each part, not from every piece. Real stores (memory, SQLite, Redis) under the
// real ResultQueryTool; each read counted at the storage.
import { describe, expect, it } from "vitest";
import {
  MemoryStorage,
  ResultHandleStore,
  ResultQueryTool,
  type NamespacedStorage,
  type Owner,
} from "mcp-result-handles";
import { decodeIndex, encodeIndex } from "../../../src/records/format/answer-index.js";
import { decodeUtf8 } from "../../../src/util/utf8.js";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { answered as answeredBy, everyStore, savedCounted, wholeAnswer } from "../../helpers/store-queries.js";

const owner: Owner = { session: "s-reads", caller: "reader" };

/** A log of `chars` characters with escapes, non-ASCII and surrogate pairs everywhere, so batch edges fall on them. */
function logText(chars: number): string {
  const line = 'line "quoted" \\ tab\t ünï 😀 end\n';
  return line.repeat(Math.ceil(chars / line.length)).slice(0, chars);
}

/** What result_query answers for the whole value, read as one: the reference (S7.3, S7.5, S14.5). */
const expected = (value: unknown, args: Record<string, unknown>, thresholdBytes: number) =>
  wholeAnswer(value, args, { sliceLimitBytes: thresholdBytes, preview: { chars: 500 } });
const answered = (tool: ResultQueryTool, handle: string, args: Record<string, unknown>) =>
  answeredBy(tool, handle, args, owner);

async function setUp(storage: NamespacedStorage, value: unknown, thresholdBytes = 16_384) {
  const { counted, store, handle, foldMs } = await savedCounted(storage, value, owner);
  const tool = new ResultQueryTool(() => [
    {
      config: { sliceLimitBytes: thresholdBytes, preview: { chars: 500 } } as ResultHandlesConfig,
      store: async () => store,
    },
  ]);
  return { counted, store, handle, tool, foldMs, pieceBytes: store.pieceBytes };
}

/** Time of one query and the records it fetched (the main record included). */
async function measured(setup: Awaited<ReturnType<typeof setUp>>, args: Record<string, unknown>) {
  setup.counted.gets = 0;
  const started = performance.now();
  const result = await answered(setup.tool, setup.handle, args);
  return { result, ms: performance.now() - started, gets: setup.counted.gets };
}

describe("S16.4 reads cost what they return, on every store", () => {
  const stores = everyStore("reads-cost");

  it.each(stores)(
    "%s: a window of a 20 MB string at $.log reads only its pieces, and total is the whole length",
    async (name, open) => {
      const log = logText(20_000_000);
      const value = { title: "build 42", log, status: "failed" };
      const setup = await setUp(await open(), value);
      const pieces = Math.ceil(20_000_000 / setup.pieceBytes);
      const windows = [
        { path: "$.log" },
        { path: "$.log", offset: 10_000_001, limit: 3000 },
        { path: "log", page: 4000 },
        { path: "/log", offset: log.length - 5 },
        { path: "$.log", offset: log.length + 10 },
      ];
      const times: number[] = [];
      for (const args of windows) {
        const { result, ms, gets } = await measured(setup, args);
        expect(result).toEqual(await expected(value, args, 16_384));
        expect((result as { total: number }).total).toBe(log.length);
        expect(gets).toBeLessThanOrEqual(3); // the index and at most two pieces, of more than 30
        times.push(ms);
      }
      // Windows whose edges fall inside a surrogate pair, as S7.3 cuts them.
      for (let offset = 1_000_000; offset < 1_000_040; offset += 3) {
        const args = { path: "$.log", offset, limit: 7 };
        expect((await measured(setup, args)).result).toEqual(await expected(value, args, 16_384));
      }
      expect((await measured(setup, { path: "$.log.size" })).result).toEqual(
        await expected(value, { path: "$.log.size" }, 16_384),
      );
      expect((await measured(setup, { path: "$.status" })).gets).toBeLessThanOrEqual(3);
      console.log(
        `S16.4 ${name}: a 2000-character window of a 20 MB string (${pieces} pieces) read ≤3 records, ` +
          `${times.map((t) => t.toFixed(1)).join(", ")} ms per query (fold ${setup.foldMs.toFixed(0)} ms)`,
      );
      await setup.store.onShutdown();
    },
    60_000,
  );

  it.each(stores)(
    "%s: a search or a JSONPath nodelist over the string still reads it all; a reference gets it whole",
    async (_, open) => {
      const log = logText(1_500_000) + "needle at the end";
      const value = { log };
      const setup = await setUp(await open(), value);
      const search = await measured(setup, { path: "$.log", search: "NEEDLE" });
      const whole = (await expected(value, { path: "$.log", search: "NEEDLE" }, 16_384)) as { value: unknown[] };
      expect(search.result).toEqual(whole);
      expect(whole.value).toEqual([expect.objectContaining({ path: "$.log", line: log.split("\n").length })]);
      for (const args of [{ path: "$[*]" }, { path: "$[?search(@, 'needle at')]", limit: 1 }]) {
        const nodes = await measured(setup, args);
        expect(nodes.result).toEqual(await expected(value, args, 16_384));
      }
      const small = await setUp(new MemoryStorage("reads-cost-nodes"), value, 2_000_000);
      expect(await answered(small.tool, small.handle, { path: "$.*" })).toEqual({
        path: "$.*",
        value: [log],
        paths: ["$.log"],
        total: 1,
        offset: 0,
      });
      const referenced = await setup.tool.referenced(setup.handle, "$.log", owner);
      expect(referenced.value).toBe(log);
      await setup.store.onShutdown();
    },
    60_000,
  );

  it.each(stores)(
    "%s: a refused $ on a 10 MB answer is built from the index, the same refusal as from the whole",
    async (name, open) => {
      const value = {
        report: "weekly",
        rows: Array.from({ length: 60_000 }, (_, i) => ({
          id: i,
          title: `Row ${i} ${"x".repeat(i % 50)}`,
          tags: ["a", "b"],
        })),
        log: logText(4_000_000),
        meta: { pages: 3, events: Array.from({ length: 20_000 }, (_, i) => ({ at: i, kind: "tick" })) },
      };
      const setup = await setUp(await open(), value);
      const bytes = JSON.stringify(value).length;
      const refusal = (await expected(value, { path: "$" }, 16_384)) as { code: string; message: string };
      expect(refusal.code).toBe("RESULT_SLICE_TOO_LARGE");
      const times: number[] = [];
      let gets = 0;
      for (let i = 0; i < 3; i++) {
        const run = await measured(setup, { path: "$" });
        expect(run.result).toEqual(refusal);
        times.push(run.ms);
        gets = Math.max(gets, run.gets);
      }
      const pieces = Math.ceil(bytes / setup.pieceBytes);
      expect(gets).toBeLessThanOrEqual(8); // index, head and tail, the first pieces of each part: not all ${pieces}
      for (const args of [{ path: "$", fields: ["report", "log"] }, { path: "$.meta" }, { path: "$", offset: 3 }]) {
        expect((await measured(setup, args)).result).toEqual(await expected(value, args, 16_384));
      }
      console.log(
        `S16.4 ${name}: refused $ on a ${(bytes / 1e6).toFixed(1)} MB answer (${pieces} pieces) read ` +
          `≤${gets} records, ${times.map((t) => t.toFixed(1)).join(", ")} ms per query`,
      );
      await setup.store.onShutdown();
    },
    60_000,
  );

  it("a $ whose first keys fit is read whole and answered exactly (the summary only ever refuses)", async () => {
    const value = { a: 1, rows: Array.from({ length: 20_000 }, (_, i) => ({ i })), text: logText(300_000), z: "end" };
    const setup = await setUp(new MemoryStorage("reads-cost-fit"), value, 2_000_000);
    expect((await measured(setup, { path: "$" })).result).toEqual(await expected(value, { path: "$" }, 2_000_000));
    expect((await measured(setup, { path: "$", limit: 2 })).result).toEqual(
      await expected(value, { path: "$", limit: 2 }, 2_000_000),
    );
    await setup.store.onShutdown();
  });

  it("a root string answers by window too", async () => {
    const text = logText(3_000_000);
    const setup = await setUp(new MemoryStorage("reads-cost-root"), text);
    for (const args of [{}, { offset: 2_999_000, limit: 5000 }, { path: "$", page: 2 }]) {
      const run = await measured(setup, args);
      expect(run.result).toEqual(await expected(text, args, 16_384));
      expect(run.gets).toBeLessThanOrEqual(3);
    }
    await setup.store.onShutdown();
  });
});

describe("S16.4 S8.5 a long string's batches in the stored index", () => {
  const layout = { path: ["log"], length: 100, batches: [0, 9, 50, 60], end: 111 };
  const index = {
    nonce: new Uint8Array(16),
    pieces: [120],
    pad: 128,
    ivs: new Uint8Array(12),
    tags: new Uint8Array(16),
    ascii: [1],
    lists: [],
    strings: [layout],
    objects: [],
  };

  it('are stored under the key `chunks`, as indexes written before the word "batch" named them', () => {
    const stored = JSON.parse(decodeUtf8(encodeIndex(index))) as { strings: Record<string, unknown>[] };
    expect(stored.strings).toEqual([{ path: ["log"], length: 100, chunks: [0, 9, 50, 60], end: 111 }]);
  });

  it("of an index written earlier (its text as that version wrote it) read back as the string's batches", () => {
    const earlier =
      '{"nonce":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"pieces":[120],"pad":128,"ivs":[0,0,0,0,0,0,0,0,0,0,0,0],' +
      '"tags":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"ascii":[1],"lists":[],' +
      '"strings":[{"path":["log"],"length":100,"chunks":[0,9,50,60],"end":111}],"objects":[]}';
    expect(decodeIndex(new TextEncoder().encode(earlier))?.strings).toEqual([layout]);
  });
});
