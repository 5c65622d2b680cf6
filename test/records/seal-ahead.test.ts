// S21.7 with S8.5: pieces sealed on Node's seal thread while the answer is still being serialised. Runs in
// Node only (the thread is worker_threads and node:crypto; pages seal every piece once the serialisation ends).
import { afterAll, describe, expect, it, vi } from "vitest";
import { ResultHandleStore } from "mcp-result-handles";
import { ResultHandlesPlugin, foldToolResult } from "../../src/runtimes/node/index.js";
import { nodeSealThread } from "../../src/runtimes/node/seal-thread.js";
import { nodeCryptoBackend } from "../../src/runtimes/node/crypto.js";
import { webCryptoBackend } from "../../src/records/crypto/webcrypto.js";
import { AnswerKeys } from "../../src/records/crypto/keys.js";
import { openRecord } from "../../src/records/format/format.js";
import { decodeIndex } from "../../src/records/format/answer-index.js";
import { serializeAnswerYielding } from "../../src/records/format/serialize.js";
import { SealAhead } from "../../src/records/seal-ahead.js";
import type { SealThread } from "../../src/records/crypto/seal-thread.js";
import { SEAL_AHEAD_MARGIN, SEAL_AHEAD_MAX_COUNT, SEAL_THREAD } from "../../src/defaults.js";
import { StorageDouble } from "../helpers/storage-double.js";

/** S21.7 in plain code: the pieces a guess of `bytes` needs with SEAL_AHEAD_MARGIN, and one more. */
const piecesFor = (bytes: number, pieceBytes: number) => Math.ceil((bytes * SEAL_AHEAD_MARGIN) / pieceBytes) + 1;

const alice = { session: "session-alice-5c2a", caller: "alice@example.test" };
const crypto = nodeCryptoBackend()!;
const thread = nodeSealThread({ ...SEAL_THREAD, idleMs: 120_000 })!;

/** `{ rows }` of about `bytes` of JSON: 512 KB pieces, so a few MB make several. */
function rows(bytes: number, tag = "row"): { rows: { id: number; title: string; note: string }[] } {
  return {
    rows: Array.from({ length: Math.ceil(bytes / 80) }, (_, id) => ({
      id,
      title: `${tag} ${id}`,
      note: "n".repeat(40 + (id % 7)),
    })),
  };
}

/** Resolves once the thread takes jobs (it loads in the background; `available` starts it). */
async function loaded(seal: SealThread): Promise<void> {
  await vi.waitFor(() => expect(seal.available()).toBe(true), { timeout: 10_000, interval: 10 });
}

/** Counts the encryptions run on the calling thread by a backend (an observer: it encrypts for real). */
function countingBackend() {
  const calls = { count: 0 };
  return {
    calls,
    backend: {
      ...crypto,
      encrypt: (...args: Parameters<typeof crypto.encrypt>) => (calls.count++, crypto.encrypt(...args)),
    },
  };
}

/**
 * A store on a fresh storage double, sealing with `sealThread` and a backend that counts what it encrypts on the
 * calling thread.
 */
function countingStore(sealThread: SealThread = thread) {
  const storage = new StorageDouble();
  const { calls, backend } = countingBackend();
  return { storage, calls, store: new ResultHandleStore(storage, 60, { crypto: backend, sealThread }) };
}

/** Folds `value` as a fold does: a sealer from the store, handed every piece as the serialiser closes it. */
async function saveAhead(store: ResultHandleStore, value: unknown) {
  const ahead = store.sealAhead(alice);
  expect(ahead).toBeInstanceOf(SealAhead);
  const json = await serializeAnswerYielding(value, { pieceBytes: store.pieceBytes, onPiece: ahead!.piece });
  const sealed = await store.seal(ahead!.handle, json, alice, ahead);
  json.release();
  await store.put(sealed);
  return { handle: ahead!.handle, pieces: json.pieces.length, records: sealed.records };
}

/** The index of a stored answer, opened as a reader opens it. */
async function indexOf(storage: StorageDouble, handle: string) {
  const keys = await AnswerKeys.derive(handle, alice, crypto, { namespace: "result-handles" });
  const opened = await openRecord(keys, keys.storageKey, storage.data.get(keys.storageKey)!, Date.now());
  return { keys, index: decodeIndex(opened!.plaintext)! };
}

afterAll(async () => {
  await loaded(thread); // an idle thread: nothing held; the process is not kept up by it either way
});

describe("S21.7 pieces sealed while the answer is serialised (S8.5 still holds)", () => {
  it(
    "seals every piece on the thread under a count settled from the " +
      "list's bytes per item, and reads back the same answer",
    async () => {
      await loaded(thread);
      const { storage, calls, store } = countingStore();
      const value = rows(3_000_000);
      const { handle, pieces } = await saveAhead(store, value);
      expect(pieces).toBeGreaterThanOrEqual(5);
      expect(calls.count).toBe(1); // only the index was sealed on this thread
      const { index } = await indexOf(storage, handle);
      expect(index.pieces).toHaveLength(pieces);
      expect(index.count).toBeGreaterThan(pieces); // the count every piece binds, settled before the last was written
      expect(index.count).toBeLessThanOrEqual(piecesFor(JSON.stringify(value).length * 1.1, store.pieceBytes));
      expect(await store.read(handle, alice)).toEqual({ value });
      const fresh = new ResultHandleStore(storage, 60, { crypto }); // a store without a thread reads it too
      expect(await fresh.read(handle, alice)).toEqual({ value });
      expect(await fresh.read(handle, { session: alice.session })).toBeUndefined();
    },
  );

  it(
    "a long string and a wide object are sealed ahead too, from their bytes per character and " + "per member",
    async () => {
      await loaded(thread);
      const wide: Record<string, string> = {};
      for (let i = 0; i < 60_000; i++)
        wide[`key_${String(i).padStart(6, "0")}`] = `value ${i} ${"v".repeat(20 + (i % 11))}`;
      for (const value of ["é€".repeat(700_000), { note: "a".repeat(2_600_000) }, wide]) {
        const { storage, calls, store } = countingStore();
        const { handle, pieces } = await saveAhead(store, value);
        expect(pieces).toBeGreaterThanOrEqual(4);
        expect(calls.count).toBe(1);
        expect((await indexOf(storage, handle)).index.count).toBeGreaterThan(pieces);
        expect(await new ResultHandleStore(storage, 60, { crypto }).read(handle, alice)).toEqual({ value });
      }
    },
  );

  it(
    "a missing piece, a piece from another save of the same handle, or a " +
      "record written at a slot the count leaves empty: S8.5 as before",
    async () => {
      await loaded(thread);
      const storage = new StorageDouble();
      const store = new ResultHandleStore(storage, 60, { crypto, sealThread: thread });
      const value = rows(2_500_000);
      const { handle, records } = await saveAhead(store, value);
      const { keys, index } = await indexOf(storage, handle);
      const pieceKeys = records.slice(1).map((record) => record.key);

      // A record at a slot past the pieces written (inside the bound count) is never read: the answer is unchanged.
      const spare = await keys.pieceKey(index.pieces.length);
      storage.data.set(spare, storage.data.get(pieceKeys[0]!)!);
      expect(await new ResultHandleStore(storage, 60, { crypto }).read(handle, alice)).toEqual({ value });

      // The same piece from a save of the same handle and owner on the calling thread (another nonce, another count)
      // does
      // not open.
      const other = new StorageDouble();
      const plain = new ResultHandleStore(other, 60, { crypto });
      await plain.save(handle, value, alice);
      const swapped = new StorageDouble();
      for (const [key, bytes] of storage.data) swapped.data.set(key, bytes);
      swapped.data.set(pieceKeys[1]!, other.data.get(pieceKeys[1]!)!);
      expect(await new ResultHandleStore(swapped, 60, { crypto }).read(handle, alice)).toBeUndefined();

      storage.data.delete(pieceKeys.at(-1)!);
      expect(await new ResultHandleStore(storage, 60, { crypto }).read(handle, alice)).toBeUndefined();
    },
  );

  it(
    "a guess that falls short (a second, larger list after the first) " +
      "seals on the calling thread once the serialisation ends",
    async () => {
      await loaded(thread);
      const { storage, calls, store } = countingStore();
      const value = { first: rows(700_000, "a").rows, second: rows(3_500_000, "b").rows };
      const { handle, pieces } = await saveAhead(store, value);
      expect(calls.count).toBe(pieces + 1); // every piece and the index, as without a thread
      const { index } = await indexOf(storage, handle);
      expect(index.count).toBeUndefined();
      expect(await store.read(handle, alice)).toEqual({ value });
    },
  );

  it(
    "a guess past SEAL_AHEAD_MAX_COUNT pieces (first items far larger than " +
      "the rest) seals nothing ahead, and costs nothing to make",
    async () => {
      await loaded(thread);
      const { storage, calls, store } = countingStore();
      const big = "b".repeat(40_000);
      // 1.6 MB of 40 items, then 2 M small ones
      const value = { rows: Array.from({ length: 2_000_000 }, (_, at) => (at < 40 ? big : at)) };
      expect(piecesFor((1_600_000 * 2_000_000) / 16, store.pieceBytes)).toBeGreaterThan(SEAL_AHEAD_MAX_COUNT);
      const { handle, pieces } = await saveAhead(store, value);
      expect(calls.count).toBe(pieces + 1);
      expect((await indexOf(storage, handle)).index.count).toBeUndefined();
      expect(await store.read(handle, alice)).toEqual({ value });
    },
  );

  it("a thread that fails a job costs nothing but the time: the answer is sealed on the calling thread", async () => {
    await loaded(thread);
    let jobs = 0;
    const failing: SealThread = {
      available: () => thread.available(),
      seal: (job) => (++jobs === 3 ? Promise.reject(new Error("injected")) : thread.seal(job)),
    };
    const { storage, calls, store } = countingStore(failing);
    const value = rows(2_000_000);
    const { handle, pieces } = await saveAhead(store, value);
    expect(jobs).toBe(pieces);
    expect(calls.count).toBe(pieces + 1);
    expect(await store.read(handle, alice)).toEqual({ value });
  });

  it("a sealer is used only for its own store, handle and owner", async () => {
    await loaded(thread);
    const { storage, calls, store } = countingStore();
    const value = rows(1_500_000);
    const ahead = store.sealAhead(alice)!;
    const json = await serializeAnswerYielding(value, { pieceBytes: store.pieceBytes, onPiece: ahead.piece });
    const bob = { session: "session-bob-1f0e", caller: "bob@example.test" };
    const sealed = await store.seal(ahead.handle, json, bob, ahead); // another owner: sealed for bob, on this thread
    await ahead.settled();
    json.release();
    await store.put(sealed);
    expect(calls.count).toBe(json.pieces.length + 1);
    expect(await store.read(ahead.handle, bob)).toEqual({ value });
    expect(await store.read(ahead.handle, alice)).toBeUndefined();
  });

  it(
    "many folds at once, for several owners, through the plugin: every answer reads back for its " + "owner alone",
    async () => {
      const plugin = ResultHandlesPlugin.init({ thresholdBytes: 16_384, storage: { type: "memory" } });
      const finished = vi.spyOn(SealAhead.prototype, "finish"); // an observer: which folds were sealed ahead
      try {
        const owners = [
          alice,
          { session: "session-bob-2b7c", caller: "bob@example.test" },
          { session: "session-carol-9d4e" },
        ];
        const fold = (value: Record<string, unknown>, owner: (typeof owners)[number]) =>
          foldToolResult(plugin, { toolName: "rows", result: { structuredContent: value }, owner });
        await fold(rows(600_000), alice); // opens the store and starts the thread
        await loaded(thread);
        await vi.waitFor(
          async () => {
            const before = finished.mock.results.length;
            await fold(rows(1_200_000), alice);
            // The runtime's thread has loaded too: that fold was sealed ahead, its index and pieces each under a key of
            // its own.
            const sealed = (await finished.mock.results[before]?.value) as
              { records: { key: string; value: Uint8Array }[] } | undefined;
            expect(sealed?.records.length).toBeGreaterThan(2);
            expect(new Set(sealed!.records.map((record) => record.key)).size).toBe(sealed!.records.length);
            expect(sealed!.records.every((record) => record.value.byteLength > 0)).toBe(true);
          },
          { timeout: 10_000, interval: 50 },
        );
        const answers = Array.from({ length: 12 }, (_, at) => ({
          value: rows(1_000_000 + at * 250_000, `fold ${at}`) as Record<string, unknown>,
          owner: owners[at % owners.length]!,
        }));
        const handles = await Promise.all(
          answers.map(
            async ({ value, owner }) => ((await fold(value, owner)).structuredContent as { handle: string }).handle,
          ),
        );
        const store = await plugin.store();
        for (const [at, { value, owner }] of answers.entries()) {
          expect(await store.read(handles[at]!, owner)).toEqual({ value });
          expect(await store.read(handles[at]!, owners[(at + 1) % owners.length]!)).toBeUndefined();
        }
        const sealedAhead = await Promise.all(finished.mock.results.slice(-12).map((result) => result.value));
        expect(sealedAhead.filter(Boolean).length).toBeGreaterThanOrEqual(6);
      } finally {
        finished.mockRestore();
        await plugin.onShutdown();
      }
    },
  );

  it(
    "stores without node:crypto's HKDF on the calling thread (WebCrypto) make " +
      "no sealer; pieces the serialiser shares still seal there",
    async () => {
      await loaded(thread);
      const store = new ResultHandleStore(new StorageDouble(), 60, {
        crypto: webCryptoBackend,
        sealThread: thread,
        pieceBytes: 512 * 1024,
      });
      expect(store.sealAhead(alice)).toBeUndefined();
      // its pieces lie in SharedArrayBuffers, which WebCrypto refuses: the backend copies them
      const value = rows(1_200_000);
      const handle = store.newHandle();
      await store.save(handle, value, alice);
      expect(await store.read(handle, alice)).toEqual({ value });
    },
  );
});

describe("S21.4 S21.7 the seal thread's life", () => {
  it(
    "stops after a pause without jobs, starts again on the next answer that needs it, and " + "seals the same",
    async () => {
      const short = nodeSealThread({ ...SEAL_THREAD, idleMs: 100 })!;
      await loaded(short);
      const storage = new StorageDouble();
      const store = new ResultHandleStore(storage, 60, { crypto, sealThread: short });
      const first = await saveAhead(store, rows(1_500_000));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const ahead = store.sealAhead(alice)!;
      // asks for the stopped thread: it starts again
      const json = await serializeAnswerYielding(rows(1_500_000), {
        pieceBytes: store.pieceBytes,
        onPiece: ahead.piece,
      });
      await store.put(await store.seal(ahead.handle, json, alice, ahead));
      expect((await indexOf(storage, ahead.handle)).index.count).toBeUndefined(); // that answer sealed on this thread
      await loaded(short);
      const third = await saveAhead(store, rows(1_500_000));
      expect((await indexOf(storage, third.handle)).index.count).toBeGreaterThan(third.pieces);
      const value = rows(1_500_000);
      for (const handle of [first.handle, ahead.handle, third.handle])
        expect(await store.read(handle, alice)).toEqual({ value });
    },
  );

  it(
    "a calling thread held past the deadline is not a thread that failed: " +
      "jobs it handed over still answer, and it stays in use",
    async () => {
      const strict = nodeSealThread({ ...SEAL_THREAD, deadlineMs: 150 })!;
      await loaded(strict);
      const keys = AnswerKeys.deriveNow("0f5e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f", alice, crypto)!;
      const plaintext = new Uint8Array(new SharedArrayBuffer(512 * 1024)).fill(7);
      const job = {
        key: keys.aesKey as Uint8Array,
        iv: new Uint8Array(12),
        ikm: new TextEncoder().encode("0f5e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f"),
        salt: new Uint8Array(8),
        info: keys.pieceInfoNow(0)!,
        head: keys.scope,
        tail: new Uint8Array(34),
        plaintext,
      };
      const sealed = [strict.seal(job), strict.seal(job), strict.seal(job)];
      await new Promise<void>((resolve) =>
        setImmediate(() => {
          const until = performance.now() + 500;
          while (performance.now() < until); // the event loop is held: the watchdog's timer and the replies wait alike
          resolve();
        }),
      );
      const answers = await Promise.all(sealed);
      expect(answers.map((answer) => answer.ciphertext.byteLength)).toEqual([512 * 1024, 512 * 1024, 512 * 1024]);
      expect(strict.available()).toBe(true);
    },
  );
});
