// S8.5 answers stored in pieces with an encrypted index. Runs in Node and again inside Chromium.
import fc from "fast-check";
import { describe, expect, it, vi, type MockInstance } from "vitest";
import {
  MemoryStorage,
  RESULT_HANDLE_META_KEY,
  ResultHandleStore,
  ResultQueryError,
  ResultQueryTool,
  foldToolResult,
  type Owner,
} from "mcp-result-handles";
import type { CryptoBackend } from "../../src/records/crypto/backend.js";
import { webCryptoBackend } from "../../src/records/crypto/webcrypto.js";
import { pluginOver, StorageDouble as SpyStorage } from "../helpers/storage-double.js";
import { parseQueryArguments, type QueryArguments } from "../../src/query/query.js";
import { answerWhole, selectForQuery } from "../helpers/query-shortcuts.js";
import { readSelection, selectionOf } from "../../src/query/paths/selection.js";
import { dropSpareBuffers } from "../../src/records/buffer-pool.js";
import { serializeAnswerYielding } from "../../src/records/format/serialize.js";

const alice: Owner = { session: "session-alice-7d1e", caller: "alice@example.test" };
const MARKER = "MARKER-4f9a-plaintext-should-never-be-stored";

/** 2000 rows of about 120 bytes, in pieces of 16 KB: about 15 pieces. */
const PIECE_BYTES = 16 * 1024;
function rows(count: number) {
  return Array.from({ length: count }, (_, i) => ({
    id: i,
    title: `${MARKER} row ${i} ünïcødé ${"x".repeat(i % 7)}`,
    tags: ["a", i % 3],
  }));
}

async function storedAnswer(value: unknown, pieceBytes = PIECE_BYTES) {
  const spy = new SpyStorage();
  const store = new ResultHandleStore(spy, 60, { pieceBytes });
  const handle = store.newHandle();
  await store.save(handle, value, alice);
  spy.gets.length = 0;
  return { spy, store, handle };
}

/** The result of a query, or its error code: what a client would see. */
async function outcome(run: () => Promise<unknown>): Promise<unknown> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ResultQueryError) return error.code;
    throw error;
  }
}

const lost = Symbol("lost");

async function query(
  store: ResultHandleStore,
  handle: string,
  raw: Omit<QueryArguments, "handle">,
  owner: Owner = alice,
) {
  const args = parseQueryArguments({ handle, ...raw });
  const reader = await store.open(handle, owner, { shared: true });
  const selection = reader && selectionOf(reader, selectForQuery(args, { kind: "reference" }));
  if (!reader || (typeof selection === "object" && "stream" in selection)) return undefined;
  // a piece lost reads as not found (S8.5)
  const value = await readSelection(reader, selection!).catch((error: unknown) => {
    if ((error as { reason?: unknown }).reason === "lost") return lost;
    throw error;
  });
  return value === lost ? undefined : outcome(() => answerWhole(value, args, 1_000_000));
}

function hexForms(secret: string): string[] {
  const utf8 = new TextEncoder().encode(secret);
  return [secret, Array.from(utf8, (b) => b.toString(16).padStart(2, "0")).join(""), secret.replace(/-/g, "")];
}

describe("S8.5 what the storage sees of an answer in pieces", () => {
  it("several records under unrelated 64-hex keys; no handle, owner or plaintext in any key or value", async () => {
    const value = { rows: rows(2000), total: 2000 };
    const { spy, handle } = await storedAnswer(value);
    expect(spy.sets.length).toBeGreaterThan(10);
    const keys = spy.sets.map((s) => s.key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{64}$/);
    // Unlinkable: no key shares a prefix with another (HKDF outputs, not counters or suffixes of one secret).
    expect(new Set(keys.map((k) => k.slice(0, 8))).size).toBe(keys.length);
    const decoder = new TextDecoder("latin1");
    for (const { key, value: record } of spy.sets) {
      const text = decoder.decode(record);
      for (const secret of [handle, alice.session!, alice.caller!, MARKER, "ünïcødé"]) {
        for (const form of hexForms(secret)) {
          expect(key.includes(form)).toBe(false);
          expect(text.includes(form)).toBe(false);
        }
      }
    }
  });

  it("the same handle under another owner derives none of the same keys", async () => {
    const spy = new SpyStorage();
    const store = new ResultHandleStore(spy, 60, { pieceBytes: PIECE_BYTES });
    const handle = store.newHandle();
    await store.save(handle, rows(1000), alice);
    const first = spy.sets.map((s) => s.key);
    await store.save(handle, rows(1000), { session: alice.session });
    const second = spy.sets.slice(first.length).map((s) => s.key);
    expect(second.length).toBe(first.length);
    expect(second.filter((key) => first.includes(key))).toEqual([]);
  });

  it("a query touching one piece reads only the index and that piece", async () => {
    const value = { rows: rows(2000), total: 2000 };
    const { spy, store, handle } = await storedAnswer(value);
    const indexKey = spy.sets[0]!.key;
    const result = await query(store, handle, { path: "$.rows", offset: 1000, limit: 20 });
    expect(result).toEqual({
      path: "$.rows",
      value: value.rows.slice(1000, 1020),
      total: 2000,
      offset: 1000,
      nextOffset: 1020,
    });
    expect(spy.gets[0]).toBe(indexKey);
    expect(spy.gets.length).toBe(2);
    const piece = spy.gets[1]!;
    expect(spy.sets.findIndex((s) => s.key === piece)).toBeGreaterThan(1);

    // A repeated read is served from memory once the index record is seen to be the same.
    spy.gets.length = 0;
    expect(await query(store, handle, { path: "$.rows", offset: 1000, limit: 20 })).toEqual(result);
    expect(spy.gets).toEqual([indexKey]);

    // One item deep in the list, by every path form, reads one piece more at most.
    spy.gets.length = 0;
    for (const path of ["$.rows[1990].title", "rows.1990.title", "/rows/1990/title", "$['rows'][-10].title"]) {
      expect(await query(store, handle, { path })).toEqual({
        path: "$.rows[1990].title",
        value: value.rows[1990]!.title,
        total: value.rows[1990]!.title.length,
        offset: 0,
      });
    }
    expect(spy.gets.filter((key) => key !== indexKey).length).toBe(1);
  });

  it("lists nested under object keys (data.search.nodes) are indexed too", async () => {
    const value = { data: { search: { nodes: rows(2000), count: 2000 } }, cursor: "next" };
    const { spy, store, handle } = await storedAnswer(value);
    expect(await query(store, handle, { path: "/data/search/nodes", offset: 1990, limit: 5 })).toEqual({
      path: "$.data.search.nodes",
      value: value.data.search.nodes.slice(1990, 1995),
      total: 2000,
      offset: 1990,
      nextOffset: 1995,
    });
    expect(spy.gets.length).toBe(2);
    expect(await query(store, handle, { path: "$.data.search.count" })).toEqual({
      path: "$.data.search.count",
      value: 2000,
    });
  });

  it(
    "a path outside the indexed lists reads only the pieces around " +
      "them (S16.4), and answers as from the whole value",
    async () => {
      const value = { rows: rows(2000), total: 2000 };
      const { spy, store, handle } = await storedAnswer(value);
      expect(await query(store, handle, { path: "$.total" })).toEqual({ path: "$.total", value: 2000 });
      expect(spy.gets.length).toBeLessThanOrEqual(3); // the index, the first and the last piece, of about 15
      expect(spy.sets.length).toBeGreaterThan(10);
      expect(await query(store, handle, { path: "$.nothing" })).toBe("RESULT_PATH_NOT_FOUND");
      expect(await query(store, handle, { path: "$.rows[2000]" })).toBe("RESULT_PATH_NOT_FOUND");
    },
  );

  it("a dropped or flipped index or piece: the handle reads as not found", async () => {
    const value = rows(2000);
    const { spy, store, handle } = await storedAnswer(value);
    const records = [...spy.data.entries()];
    expect(records.length).toBeGreaterThan(10);
    for (const [key, record] of records) {
      for (const damage of [
        "drop",
        "empty",
        "cut-short",
        "lengthened",
        "flip-first",
        "flip-last",
        "flip-middle",
      ] as const) {
        if (damage === "drop") spy.data.delete(key);
        else if (damage === "empty") spy.data.set(key, new Uint8Array(0));
        else if (damage === "cut-short") spy.data.set(key, record.slice(0, Math.min(15, record.length - 1)));
        else if (damage === "lengthened") spy.data.set(key, new Uint8Array([...record, ...new Uint8Array(16)]));
        else {
          const tampered = record.slice();
          const at = damage === "flip-first" ? 0 : damage === "flip-last" ? tampered.length - 1 : tampered.length >> 1;
          tampered[at]! ^= 0x01;
          spy.data.set(key, tampered);
        }
        expect(await store.read(handle, alice)).toBeUndefined();
        // A fresh store (nothing in memory) querying the whole list touches every piece.
        const fresh = new ResultHandleStore(spy, 60, { pieceBytes: PIECE_BYTES });
        expect(await query(fresh, handle, { path: "$", limit: 2000 })).toBeUndefined();
        spy.data.set(key, record);
      }
    }
    expect(await store.read(handle, alice)).toEqual({ value });
  });

  it("pieces swapped between keys, or replayed from an earlier save of the same handle, do not open", async () => {
    const { spy, store, handle } = await storedAnswer(rows(2000));
    const [, a, b] = spy.sets;
    spy.data.set(a!.key, b!.value);
    spy.data.set(b!.key, a!.value);
    expect(await store.read(handle, alice)).toBeUndefined();

    const before = new Map(spy.data);
    await store.save(handle, rows(2000).reverse(), alice);
    const replayedKey = spy.sets.at(-1)!.key;
    spy.data.set(replayedKey, before.get(replayedKey)!);
    expect(await store.read(handle, alice)).toBeUndefined();
  });

  it("every record of a pieced answer expires with it", async () => {
    const spy = new SpyStorage();
    const store = new ResultHandleStore(spy, 1, { pieceBytes: PIECE_BYTES });
    const handle = store.newHandle();
    await store.save(handle, rows(1000), alice);
    const now = Date.now;
    try {
      Date.now = () => now() + 1000;
      expect(await store.read(handle, alice)).toBeUndefined();
      expect(await query(store, handle, { path: "$", offset: 3 })).toBeUndefined();
    } finally {
      Date.now = now;
    }
  });
});

describe("S8.5 through the fold and result_query", () => {
  it("a 2 MB tool answer folds into pieces, and result_query of 20 rows reads the index and one piece", async () => {
    const spy = new SpyStorage();
    const { plugin } = pluginOver(spy, { storage: { type: "memory" } });
    const value = { rows: rows(16_000), total: 16_000 };
    for (const result of [
      { structuredContent: value },
      { structuredContent: value, content: [{ type: "text" as const, text: JSON.stringify(value) }] },
    ]) {
      spy.gets.length = 0;
      const folded = await foldToolResult(plugin, { toolName: "tickets", result, owner: alice });
      const handle = (folded.structuredContent as { handle: string }).handle;
      expect((folded._meta![RESULT_HANDLE_META_KEY] as { bytes: number }).bytes).toBe(
        new TextEncoder().encode(JSON.stringify(value)).byteLength,
      );
      const tool = new ResultQueryTool(() => [plugin]);
      spy.gets.length = 0;
      const answer = await tool.query({ handle, path: "$.rows", offset: 15_000, limit: 20 }, alice);
      expect(answer).toEqual({
        path: "$.rows",
        value: value.rows.slice(15_000, 15_020),
        total: 16_000,
        offset: 15_000,
        nextOffset: 15_020,
      });
      expect(spy.gets.length).toBe(2);
      expect(await tool.query({ handle, path: "$.total" }, alice)).toEqual({ path: "$.total", value: 16_000 });
      await expect(tool.query({ handle, path: "$.rows" }, { session: alice.session })).rejects.toThrow(
        /RESULT_HANDLE_NOT_FOUND|No answer/,
      );
    }
    expect(new Set(spy.sets.map((s) => s.key)).size).toBeGreaterThan(6);
    await plugin.onShutdown();
  });
});

describe("S8.5 storing in pieces", () => {
  it(
    "an answer larger than a memory store's maxBytes is refused (S4.7: sent whole), and leaves " + "nothing behind",
    async () => {
      const memory = new MemoryStorage("ns", { maxBytes: 64 * 1024 });
      const store = new ResultHandleStore(memory, 60, { pieceBytes: 8 * 1024 });
      const handle = store.newHandle();
      await expect(store.save(handle, rows(2000), alice)).rejects.toMatchObject({ code: "STORE_FULL" });
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(memory.size).toBe(0);
      expect(await store.read(handle, alice)).toBeUndefined();
      await store.save(handle, rows(100), alice); // a smaller one still fits
      expect(await store.read(handle, alice)).toEqual({ value: rows(100) });
      await memory.close();
    },
  );

  it("storing an answer in pieces reads nothing back (no extra round trip on a remote storage)", async () => {
    const spy = new SpyStorage();
    const store = new ResultHandleStore(spy, 60, { pieceBytes: PIECE_BYTES });
    await store.save(store.newHandle(), rows(2000), alice);
    expect(spy.sets.length).toBeGreaterThan(2);
    expect(spy.gets).toEqual([]);
  });

  it(
    "a memory store behind the timeout wrapper every opened store " + "wears still takes an answer's records together",
    async () => {
      const { withTimeout } = await import("../../src/storage/timeout.js");
      const memory = new MemoryStorage("ns", { maxBytes: 64 * 1024 });
      const store = new ResultHandleStore(withTimeout(memory, 1000), 60, { pieceBytes: 8 * 1024 });
      await expect(store.save(store.newHandle(), rows(2000), alice)).rejects.toMatchObject({ code: "STORE_FULL" });
      await memory.close();
    },
  );

  it("buffers handed on to the next answer once one is encrypted leave every stored answer intact", async () => {
    // Default pieces (512 KB): their buffers are the ones reused. Answers of 2-4 pieces, each its own text.
    const answer = (n: number) => ({
      n,
      rows: rows(6000 + n * 3000).map((row) => ({ ...row, title: `${n} ${row.title}` })),
    });
    const spy = new SpyStorage();
    const store = new ResultHandleStore(spy, 60);
    const handles: string[] = [];
    for (let n = 0; n < 3; n++) {
      handles.push(store.newHandle());
      await store.save(handles[n]!, answer(n), alice); // one after another: each writes into the last one's buffers
    }
    const concurrent = [3, 4, 5].map(() => store.newHandle());
    await Promise.all(concurrent.map((handle, i) => store.save(handle, answer(3 + i), alice)));
    handles.push(...concurrent);
    const { plugin } = pluginOver(spy, { storage: { type: "memory" } });
    const folded = await Promise.all(
      [6, 7].map((n) =>
        foldToolResult(plugin, { toolName: "tickets", result: { structuredContent: answer(n) }, owner: alice }),
      ),
    );
    for (let n = 0; n < 6; n++) expect(await store.read(handles[n]!, alice)).toEqual({ value: answer(n) });
    const foldStore = await plugin.store();
    for (const [i, result] of folded.entries()) {
      const handle = (result.structuredContent as { handle: string }).handle;
      expect(await foldStore.read(handle, alice)).toEqual({ value: answer(6 + i) });
    }
    await plugin.onShutdown();
  });

  // The piece-sized buffers a fold wrote its pieces in, seen where the cipher is handed them (a spy on the crypto
  // backend's encrypt that only observes): their ArrayBuffers, of the pool's sizes (128 KB or more).
  const pieceBuffers = (encrypt: MockInstance<CryptoBackend["encrypt"]>) =>
    new Set(
      encrypt.mock.calls
        .map(([, , , plaintext]) => plaintext.buffer)
        .filter((buffer) => buffer.byteLength >= 128 * 1024),
    );
  const zeroed = (buffers: Set<ArrayBufferLike>) =>
    [...buffers].every((buffer) => new Uint8Array(buffer).every((b) => !b));

  it("answers that never fold, or fold only in part, give their buffers back for the next one", async () => {
    const big = { rows: rows(16_000) }; // several 512 KB pieces
    const { plugin } = pluginOver(new SpyStorage(), {
      storage: { type: "memory" },
      foldPolicy: (_tool, answer) => !(answer as { skip?: boolean }).skip,
    });
    const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
    const encrypt = vi.spyOn(webCryptoBackend, "encrypt");
    try {
      const fold = async () => {
        encrypt.mockClear();
        await foldToolResult(plugin, { toolName: "t", result: { structuredContent: big }, owner: alice });
        await settle();
        return pieceBuffers(encrypt);
      };
      await fold();
      const warm = await fold(); // written in the buffers the first gave back
      expect(warm.size).toBeGreaterThan(1);
      const ways = [
        { structuredContent: { few: rows(3) } }, // under the threshold
        { structuredContent: { ...big, skip: true } }, // foldPolicy says no
        // a text that does not repeat it
        { content: [{ type: "text", text: "something else" }], structuredContent: big },
      ];
      for (let round = 0; round < 3; round++) {
        for (const result of ways) await foldToolResult(plugin, { toolName: "t", result, owner: alice });
        await foldToolResult(plugin, { toolName: "t", result: { structuredContent: big }, owner: {} }); // anonymous
        await settle();
        // a buffer kept by an answer that did not fold would leave the next fold to write in fresh ones
        expect(
          [...(await fold())].filter((buffer) => !warm.has(buffer)),
          `round ${round}`,
        ).toEqual([]);
      }
      expect(zeroed(warm)).toBe(false);
      await plugin.onShutdown();
      expect(zeroed(warm)).toBe(true); // and the plaintext they held goes at shutdown
    } finally {
      encrypt.mockRestore();
    }
  });

  it(
    "the spare buffers, holding the plaintext of the last answers, go once no answer has " + "folded for 10 s",
    async () => {
      dropSpareBuffers(); // no timer left from an earlier test
      vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ["setTimeout", "clearTimeout", "Date"] });
      const encrypt = vi.spyOn(webCryptoBackend, "encrypt");
      try {
        const big = { rows: rows(16_000) };
        const { plugin } = pluginOver(new SpyStorage(), { storage: { type: "memory" } });
        const fold = async () => {
          await foldToolResult(plugin, { toolName: "t", result: { structuredContent: big }, owner: alice });
          await new Promise((resolve) => setTimeout(resolve, 0));
        };
        await fold();
        const spares = pieceBuffers(encrypt);
        expect(spares.size).toBeGreaterThan(1);
        expect(zeroed(spares)).toBe(false);
        await vi.advanceTimersByTimeAsync(9_000);
        await fold(); // answers keep coming: the spares stay
        await vi.advanceTimersByTimeAsync(9_000);
        expect(zeroed(spares)).toBe(false);
        await vi.advanceTimersByTimeAsync(1_500);
        expect(zeroed(spares)).toBe(true);
        await plugin.onShutdown();
      } finally {
        encrypt.mockRestore();
        vi.useRealTimers();
      }
    },
  );

  it("a whole read and slice reads at the same time all answer right", async () => {
    const value = { rows: rows(2000), total: 2000 };
    const { store, handle } = await storedAnswer(value);
    const [whole, slice, item] = await Promise.all([
      query(store, handle, { path: "$.total" }),
      query(store, handle, { path: "$.rows", offset: 500, limit: 3 }),
      query(store, handle, { path: "/rows/1999/id" }),
    ]);
    expect(whole).toEqual({ path: "$.total", value: 2000 });
    expect(slice).toEqual({
      path: "$.rows",
      value: value.rows.slice(500, 503),
      total: 2000,
      offset: 500,
      nextOffset: 503,
    });
    expect(item).toEqual({ path: "$.rows[1999].id", value: 1999 });
  });

  it("a list under the own key __proto__ is indexed and read like any other", async () => {
    const value = JSON.parse(`{"__proto__":${JSON.stringify(rows(2000))},"n":1}`) as Record<string, unknown>;
    const { spy, store, handle } = await storedAnswer(value);
    expect(await query(store, handle, { path: "$['__proto__']", offset: 1500, limit: 2 })).toEqual({
      path: "$.__proto__",
      value: rows(2000).slice(1500, 1502),
      total: 2000,
      offset: 1500,
      nextOffset: 1502,
    });
    expect(spy.gets.length).toBe(2);
    expect(await query(store, handle, { path: "$.constructor" })).toBe("RESULT_PATH_NOT_FOUND");
  });

  it(
    "a storage failing on a piece makes result_query answer " +
      "RESULT_STORE_UNAVAILABLE, not a wrong or partial slice",
    async () => {
      const spy = new SpyStorage();
      const { plugin } = pluginOver(spy, { storage: { type: "memory" } });
      const value = { rows: rows(16_000) };
      const folded = await foldToolResult(plugin, {
        toolName: "t",
        result: { structuredContent: value },
        owner: alice,
      });
      const handle = (folded.structuredContent as { handle: string }).handle;
      const indexKey = spy.sets[0]!.key;
      const get = spy.get.bind(spy);
      spy.get = async (key: string) => (key === indexKey ? get(key) : Promise.reject(new Error("connection reset")));
      const tool = new ResultQueryTool(() => [plugin]);
      const refused = await tool.handler({ handle, path: "$.rows", offset: 9000 }, alice);
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({ error: { code: "RESULT_STORE_UNAVAILABLE" } });
      spy.get = get;
      const answered = await tool.handler({ handle, path: "$.rows", offset: 9000, limit: 2 }, alice);
      expect(answered.structuredContent).toEqual({
        path: "$.rows",
        value: value.rows.slice(9000, 9002),
        total: 16_000,
        offset: 9000,
        nextOffset: 9002,
      });
      await plugin.onShutdown();
    },
  );

  it("an answer in one piece gets an index when a query could read less: over 64 KB with a long list", async () => {
    const recordsOf = async (value: unknown) => {
      const spy = new SpyStorage();
      const store = new ResultHandleStore(spy, 60);
      const handle = store.newHandle();
      await store.save(handle, value, alice);
      expect(await store.read(handle, alice)).toEqual({ value });
      return { spy, store, handle, count: spy.data.size };
    };
    expect((await recordsOf({ rows: rows(150) })).count).toBe(1); // about 20 KB
    expect((await recordsOf({ note: "x".repeat(100_000) })).count).toBe(1); // large, but no list to index
    const listed = await recordsOf({ rows: rows(800) }); // about 100 KB, one piece
    expect(listed.count).toBe(2);
    expect(await query(listed.store, listed.handle, { path: "$.rows", offset: 400, limit: 2 })).toMatchObject({
      value: rows(800).slice(400, 402),
    });
  });

  it("every record gets its own fresh IV, even when the same handle is saved twice", async () => {
    const ivs: string[] = [];
    const spans: { buffer: ArrayBufferLike; start: number; end: number }[] = [];
    const recording: CryptoBackend = {
      ...webCryptoBackend,
      encrypt: (key, iv, ad, plaintext) => {
        expect(iv.byteLength).toBe(12);
        ivs.push(Array.from(iv).join(","));
        spans.push({ buffer: iv.buffer, start: iv.byteOffset, end: iv.byteOffset + iv.byteLength });
        return webCryptoBackend.encrypt(key, iv, ad, plaintext);
      },
    };
    const store = new ResultHandleStore(new SpyStorage(), 60, { crypto: recording, pieceBytes: PIECE_BYTES });
    const handle = store.newHandle();
    await store.save(handle, rows(2000), alice);
    await store.save(handle, rows(2000), alice);
    expect(ivs.length).toBeGreaterThan(20);
    expect(new Set(ivs).size).toBe(ivs.length);
    // Not merely different: no two IVs share a byte of the random draw they were cut from.
    for (const [i, a] of spans.entries()) {
      for (const b of spans.slice(i + 1))
        if (a.buffer === b.buffer) expect(a.end <= b.start || b.end <= a.start).toBe(true);
    }
  });

  it(
    "an answer of more pieces than one call of getRandomValues can give IVs for (5,462 and up) saves " + "and reads",
    async () => {
      const value = { rows: Array.from({ length: 3000 }, (_, i) => ({ i, s: "x".repeat(60) })) }; // about 230 KB
      const spy = new SpyStorage();
      const store = new ResultHandleStore(spy, 60, { pieceBytes: 32 });
      const handle = store.newHandle();
      await store.save(handle, value, alice);
      expect(spy.data.size).toBeGreaterThan(5462);
      expect(await store.read(handle, alice)).toEqual({ value });
    },
  );

  it("derived keys of recent (handle, owner) pairs stay in memory: repeated queries run no HKDF", async () => {
    let derivations = 0;
    const counting: CryptoBackend = {
      ...webCryptoBackend,
      hkdf: async (ikm) => {
        derivations++;
        return webCryptoBackend.hkdf(ikm);
      },
    };
    const store = new ResultHandleStore(new SpyStorage(), 60, { crypto: counting, pieceBytes: PIECE_BYTES });
    const handle = store.newHandle();
    await store.save(handle, rows(2000), alice);
    expect(derivations).toBe(1);
    for (let page = 1; page <= 5; page++) await query(store, handle, { path: "$", page, limit: 10 });
    expect(derivations).toBe(1);
    expect(await store.read(handle, { session: alice.session })).toBeUndefined(); // another owner: its own keys
    expect(derivations).toBe(2);
  });

  it("flags pieces that are pure ASCII (decoded as latin1 in Node), and only those", async () => {
    const ascii = await serializeAnswerYielding(
      { rows: Array.from({ length: 200 }, (_, i) => ({ i, s: "plain" })) },
      { pieceBytes: 256 },
    );
    expect(ascii.pieces.length).toBeGreaterThan(5);
    expect(ascii.pieces.every((piece) => piece.ascii)).toBe(true);
    const mixed = await serializeAnswerYielding(
      { rows: Array.from({ length: 200 }, (_, i) => ({ i, s: i === 150 ? "é" : "plain" })) },
      { pieceBytes: 256 },
    );
    const flagged = mixed.pieces.map((piece) => piece.ascii);
    expect(flagged.filter((a) => !a).length).toBe(1);
    for (const piece of mixed.pieces) expect(piece.ascii).toBe(piece.bytes.every((byte) => byte < 0x80));
  });

  it("values JSON.stringify treats its own way serialise exactly as it does", async () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    const withToJson = Object.assign([1, 2], { toJSON: () => "list" });
    for (const value of [
      new String("boxed"),
      new Date(0),
      new Point(1, 2),
      { at: new Date(0), list: withToJson, skip: undefined, f: () => 1, n: null },
      withToJson,
      [undefined, () => 1, new Number(3), { toJSON: () => ({ a: 1 }) }],
      Object.assign(Object.create(null), { a: [1, 2] }),
      JSON.parse('{"__proto__":[1,2],"b":"é"}') as unknown,
      "text",
      12.5,
      null,
    ]) {
      expect((await serializeAnswerYielding(value, { pieceBytes: 8 })).text).toBe(JSON.stringify(value));
    }
  });
});

describe("S8.5 round trip: any answer reads back equal, through every path", () => {
  const json = fc.jsonValue({ maxDepth: 3 });
  const answer = fc.oneof(
    json,
    fc.array(json, { maxLength: 60 }),
    fc.record({
      rows: fc.array(json, { maxLength: 60 }),
      other: json,
      more: fc.array(fc.string({ unit: "binary" }), { maxLength: 20 }),
    }),
    fc.dictionary(fc.string(), fc.array(json, { maxLength: 10 }), { maxKeys: 5 }),
    fc.record({
      data: fc.record({
        search: fc.record({
          nodes: fc.array(json, { maxLength: 60 }),
          count: json,
          deeper: fc.record({ list: fc.array(json) }),
        }),
        meta: json,
      }),
      rows: fc.array(fc.array(json, { maxLength: 5 }), { maxLength: 30 }),
    }),
  );

  it("serialises to exactly JSON.stringify, in pieces cut at character boundaries", async () => {
    await fc.assert(
      fc.asyncProperty(answer, fc.integer({ min: 8, max: 300 }), async (value, pieceBytes) => {
        const serialized = await serializeAnswerYielding(value, { pieceBytes });
        const text = JSON.stringify(value);
        expect(serialized.text).toBe(text);
        const bytes = new TextEncoder().encode(text);
        expect(serialized.bytes).toBe(bytes.byteLength);
        let at = 0;
        for (const piece of serialized.pieces) {
          expect(new Uint8Array(piece.bytes)).toEqual(bytes.subarray(at, at + piece.bytes.byteLength));
          if (piece.ascii) expect(piece.bytes.every((byte) => byte < 0x80)).toBe(true);
          new TextDecoder("utf-8", { fatal: true }).decode(piece.bytes); // whole characters only
          at += piece.bytes.byteLength;
        }
        expect(at).toBe(bytes.byteLength);
      }),
      { numRuns: 300 },
    );
  });

  it("writes a value over one encoding step (64K units) whole, surrogate pairs intact at each edge", async () => {
    for (const lead of ["", "a", "ab"]) {
      const value = { note: lead + "😀é".repeat(70_000), deep: [[["x".repeat(140_000)]]] };
      const serialized = await serializeAnswerYielding(value, { pieceBytes: 100_000 });
      expect(serialized.text).toBe(JSON.stringify(value));
      expect(serialized.bytes).toBe(new TextEncoder().encode(JSON.stringify(value)).byteLength);
      for (const piece of serialized.pieces) new TextDecoder("utf-8", { fatal: true }).decode(piece.bytes);
    }
  });

  it("tells a text repeating its JSON from any text one character off (the fold's S4.2 repeat check)", async () => {
    await fc.assert(
      fc.asyncProperty(answer, fc.integer({ min: 8, max: 300 }), fc.nat(), async (value, pieceBytes, at) => {
        const text = JSON.stringify(value);
        expect((await serializeAnswerYielding(value, { pieceBytes, repeatedBy: text })).repeated).toBe(true);
        const i = at % text.length;
        const changed = text.slice(0, i) + (text[i] === "0" ? "1" : "0") + text.slice(i + 1);
        expect((await serializeAnswerYielding(value, { pieceBytes, repeatedBy: changed })).repeated).toBe(false);
        expect((await serializeAnswerYielding(value, { pieceBytes, repeatedBy: text + " " })).repeated).toBe(false);
        expect((await serializeAnswerYielding(value, { pieceBytes, repeatedBy: text.slice(0, -1) })).repeated).toBe(
          false,
        );
        expect((await serializeAnswerYielding(value, { pieceBytes })).repeated).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it("read, readShared and every query answer as they would on the original value", async () => {
    const queryArgs = fc.record(
      {
        path: fc.oneof(
          fc.constantFrom(
            "$",
            "$.rows",
            "rows",
            "/rows/0",
            "$.rows[-1]",
            "$.rows[1][0]",
            "$.other",
            "$[0]",
            "$[-1].x",
            "/more/1",
          ),
          fc.constantFrom(
            "$.data",
            "$.data.search",
            "$.data.search.nodes",
            "data.search.nodes.3",
            "/data/search/nodes/0/x",
            "$.data.search.deeper.list",
            "$.data.meta",
          ),
          fc.string(),
        ),
        offset: fc.nat({ max: 70 }),
        limit: fc.integer({ min: 1, max: 70 }),
      },
      { requiredKeys: ["path"] },
    );
    await fc.assert(
      fc.asyncProperty(
        answer,
        fc.integer({ min: 8, max: 400 }),
        fc.array(queryArgs, { minLength: 1, maxLength: 6 }),
        async (value, pieceBytes, queries) => {
          const expected = JSON.parse(JSON.stringify(value)) as unknown;
          const store = new ResultHandleStore(new SpyStorage(), 60, { pieceBytes });
          const handle = store.newHandle();
          await store.save(handle, value, alice);
          expect(await store.read(handle, alice)).toEqual({ value: expected });
          for (const raw of queries) {
            expect(await query(store, handle, raw)).toEqual(
              await outcome(() => answerWhole(expected, parseQueryArguments({ handle, ...raw }), 1_000_000)),
            );
          }
          expect(await store.readShared(handle, alice)).toEqual({ value: expected });
          expect(await store.read(handle, { session: alice.session })).toBeUndefined();
        },
      ),
      { numRuns: 200 },
    );
  });
});
