// S16.5 what the store holds reveals no more than each answer's size class: records padded to buckets, no
// shared exact expiry among an answer's records, the namespace bound into the keys and associated data.
// Against a real redis-server where the storage matters, and the public API throughout.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createResultHandleStore, MemoryStorage, ResultHandleStore } from "mcp-result-handles";
import { DEFAULT_NAMESPACE } from "../../../src/defaults.js";
import { AnswerKeys, DEFAULT_STORE_NAMESPACE } from "../../../src/records/crypto/keys.js";
import { openRecord, sealRecord } from "../../../src/records/format/format.js";
import { startRedisServer, type RedisServer } from "../../helpers/redis-server.js";
import { StorageDouble } from "../../helpers/storage-double.js";

const alice = { session: "session-alice", caller: "alice" };
/** What a whole or index record shows outside its ciphertext: GCM tag 16, IV 12, version 1 (format.ts, version 6). */
const OVERHEAD = 29;
/** What its padded plaintext holds besides the answer: the sealed header 17 and the answer's length 4. */
const SEALED = 21;

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.dispose();
});

/** An answer whose JSON is exactly `bytes` long. */
function answerOf(bytes: number): string {
  return "x".repeat(bytes - 2); // a JSON string: its quotes are the other two bytes
}

describe("S16.5 records are padded to size buckets", () => {
  it("whole records of a run of answer sizes fall into a few sizes, each a bucket (powers of 1.25)", async () => {
    const spy = new StorageDouble();
    const store = new ResultHandleStore(spy, 60);
    const sizes = new Map<number, number[]>();
    for (let bytes = 1000; bytes <= 40_000; bytes += 97) {
      await store.save(store.newHandle(), answerOf(bytes), alice);
      const record = spy.sets.at(-1)!.value.byteLength;
      sizes.set(record, [...(sizes.get(record) ?? []), bytes]);
    }
    const table = [...sizes].map(([record, answers]) => `${answers[0]}–${answers.at(-1)} B → ${record} B`);
    console.log(
      `S16.5 whole records for ${[...sizes.values()].flat().length} ` +
        `answer sizes, 1,000–40,000 B:\n  ${table.join("\n  ")}`,
    );
    // 403 answer sizes, 17 record sizes: each record size is a bucket, the next one a quarter larger.
    expect(sizes.size).toBeLessThanOrEqual(18);
    const records = [...sizes.keys()].sort((a, b) => a - b);
    for (const [at, record] of records.entries()) {
      const [smallest, largest] = [sizes.get(record)![0]!, sizes.get(record)!.at(-1)!];
      expect(record - OVERHEAD).toBeGreaterThanOrEqual(largest + SEALED); // the answer, its header and its length fit
      if (at > 0) expect((record - OVERHEAD) / (records[at - 1]! - OVERHEAD)).toBeCloseTo(1.25, 2);
      expect(smallest).toBeLessThanOrEqual(largest);
    }
    await store.onShutdown();
  });

  it(
    "an answer in pieces: every piece of one size, the index and the last piece padded too, and it " + "reads back",
    async () => {
      const spy = new StorageDouble();
      const store = new ResultHandleStore(spy, 60, { pieceBytes: 16 * 1024 });
      const seen: string[] = [];
      for (const rows of [1500, 1501, 1530, 1600]) {
        spy.sets.length = 0;
        const value = { rows: Array.from({ length: rows }, (_, i) => ({ i, note: `row ${i}` })) };
        const handle = store.newHandle();
        await store.save(handle, value, alice);
        const [main, ...pieces] = spy.sets.map((set) => set.value.byteLength);
        expect(pieces.length).toBeGreaterThan(1);
        expect(new Set(pieces.slice(0, -1))).toEqual(new Set([16 * 1024])); // full pieces: the piece size exactly
        seen.push(
          `${JSON.stringify(value).length} B → index ${main} B + ${pieces.length} pieces, the last ${pieces.at(-1)} B`,
        );
        expect(await store.read(handle, alice)).toEqual({ value });
      }
      console.log(`S16.5 answers in 16 KB pieces:\n  ${seen.join("\n  ")}`);
      await store.onShutdown();
    },
  );
});

/**
 * Byte positions a store reader could tell two groups of records apart by: fixed within each group yet
 * different between them (a plaintext field such as an expiry, a kind or a flag), or holding values one
 * group never shows. Random ciphertext, tag and IV bytes vary within each group of 8 records.
 */
function telltales(a: Uint8Array[], b: Uint8Array[]): number[] {
  const length = a[0]!.byteLength;
  const found: number[] = [];
  for (let at = 0; at < length; at++) {
    const [inA, inB] = [new Set(a.map((r) => r[at])), new Set(b.map((r) => r[at]))];
    const fixedApart = inA.size === 1 && inB.size === 1 && [...inA][0] !== [...inB][0];
    const fixedInOne = (inA.size === 1) !== (inB.size === 1);
    if (fixedApart || fixedInOne) found.push(at);
  }
  return found;
}

/** The positions whose byte is the same in every record: in version 6, the version byte only. */
function fixedPositions(records: Uint8Array[]): number[] {
  const length = records[0]!.byteLength;
  return Array.from({ length }, (_, at) => at).filter((at) => new Set(records.map((r) => r[at])).size === 1);
}

describe("S16.5 a whole or index record shows no expiry, kind or ASCII flag (format version 6)", () => {
  it(
    "on Redis, ASCII and non-ASCII answers of one size class, folded with " +
      "lifetimes an hour apart, differ only in random bytes",
    async () => {
      const url = { storage: { type: "redis", redis: { url: redis.url } }, namespace: "sealed-header" } as const;
      const [short, long] = await Promise.all([
        createResultHandleStore({ ...url, ttlSeconds: 60 }),
        createResultHandleStore({ ...url, ttlSeconds: 3660 }),
      ]);
      const raw = new Redis(redis.url);
      const ascii = answerOf(2000);
      const accented = "é".repeat(999); // 1,998 bytes of UTF-8 in its quotes: 2,000 bytes of JSON, like `ascii`
      try {
        const recordsOf = async (store: ResultHandleStore, value: string) => {
          const records: Uint8Array[] = [];
          for (let i = 0; i < 8; i++) {
            const before = new Set(await raw.keys("sealed-header:*"));
            const handle = store.newHandle();
            await store.save(handle, value, alice);
            expect(await store.read(handle, alice)).toEqual({ value });
            const [key, ...more] = (await raw.keys("sealed-header:*")).filter((k) => !before.has(k));
            expect(more).toEqual([]); // one whole record
            records.push(new Uint8Array((await raw.getBuffer(key!))!));
          }
          return records;
        };
        const a = await recordsOf(short, ascii);
        const b = await recordsOf(long, accented);
        expect(new Set([...a, ...b].map((r) => r.byteLength)).size).toBe(1); // one size class
        const length = a[0]!.byteLength;
        console.log(
          `S16.5 ASCII (TTL 60 s) vs non-ASCII (TTL 3,660 s) whole records of ${length} B: telltale positions ` +
            `${JSON.stringify(telltales(a, b))}, fixed positions ${JSON.stringify(fixedPositions([...a, ...b]))}`,
        );
        expect(telltales(a, b)).toEqual([]);
        expect(fixedPositions([...a, ...b])).toEqual([length - 1]); // the version byte, 6
        expect(a[0]![length - 1]).toBe(6);
      } finally {
        raw.disconnect();
        await Promise.all([short.onShutdown(), long.onShutdown()]);
      }
    },
  );

  it("a whole record and an index record of one size class have the same visible layout", async () => {
    const spy = new StorageDouble();
    const store = new ResultHandleStore(spy, 60, { pieceBytes: 16 * 1024 });
    const pieced = { rows: Array.from({ length: 1500 }, (_, i) => ({ i, note: `row ${i}` })) };
    // The index's own length may vary by a few bytes from save to save, across a bucket edge: keep 8 of one size class.
    const bySize = new Map<number, Uint8Array[]>();
    for (let i = 0; i < 40 && ![...bySize.values()].some((records) => records.length === 8); i++) {
      spy.sets.length = 0;
      await store.save(store.newHandle(), pieced, alice);
      expect(spy.sets.length).toBeGreaterThan(2); // an index and its pieces, the index first
      const index = spy.sets[0]!.value;
      bySize.set(index.byteLength, [...(bySize.get(index.byteLength) ?? []), index]);
    }
    const indexes = [...bySize.values()].find((records) => records.length === 8)!;
    expect(indexes).toBeDefined();
    const length = indexes[0]!.byteLength;
    const whole = answerOf(length - OVERHEAD - SEALED); // fills the index's bucket exactly
    const wholes: Uint8Array[] = [];
    for (let i = 0; i < 8; i++) {
      spy.sets.length = 0;
      const handle = store.newHandle();
      await store.save(handle, whole, alice);
      expect(spy.sets.length).toBe(1);
      expect(await store.read(handle, alice)).toEqual({ value: whole });
      wholes.push(spy.sets[0]!.value);
    }
    expect(new Set([...indexes, ...wholes].map((r) => r.byteLength))).toEqual(new Set([length]));
    console.log(
      `S16.5 index vs whole records of ${length} B: telltale positions ${JSON.stringify(telltales(indexes, wholes))}`,
    );
    expect(telltales(indexes, wholes)).toEqual([]);
    expect(fixedPositions([...indexes, ...wholes])).toEqual([length - 1]);
    await store.onShutdown();
  });
});

describe("S16.5 S8.3 the expiry and kind sealed inside a version 6 record", () => {
  it(
    "end reads at the TTL, refuse a piece sealed as a main record, and a " +
      "record of version 5 or a changed version byte reads as not found",
    async () => {
      const keys = await AnswerKeys.derive(crypto.randomUUID(), alice);
      const expiresAt = Date.now() + 60_000;
      const header = { kind: "index", ascii: false, expiresAt, pieceIndex: 0, pieceCount: 7 } as const;
      const record = await sealRecord(keys, keys.storageKey, header, new TextEncoder().encode("index bytes"));
      expect((await openRecord(keys, keys.storageKey, record, expiresAt - 1))?.header).toEqual(header);
      // the sealed expiry ends reads
      expect(await openRecord(keys, keys.storageKey, record, expiresAt)).toBeUndefined();
      await expect(sealRecord(keys, keys.storageKey, { ...header, kind: "piece" }, new Uint8Array(4))).rejects.toThrow(
        /sealPiece/,
      );
      const v5 = record.slice();
      v5[v5.byteLength - 1] = 5;
      expect(await openRecord(keys, keys.storageKey, v5, Date.now())).toBeUndefined();
      // A version 5 record's shape (a plaintext 18-byte header after the IV, version 5 last) is not found either.
      const trailer = new Uint8Array(18);
      trailer[17] = 5;
      expect(
        await openRecord(keys, keys.storageKey, new Uint8Array([...record.subarray(0, -1), ...trailer]), Date.now()),
      ).toBeUndefined();
    },
  );
});

describe("S16.5 an answer's records share no exact expiry", () => {
  it("on Redis, the records of one answer get lifetimes drawn on their own, past the TTL by at most 60 s", async () => {
    const ttlSeconds = 120;
    const store = await createResultHandleStore({
      storage: { type: "redis", redis: { url: redis.url } },
      namespace: "expiry",
      ttlSeconds,
    });
    const raw = new Redis(redis.url);
    try {
      // about 1.6 MB: 4 pieces and an index
      const value = { rows: Array.from({ length: 40_000 }, (_, i) => ({ i, note: `row ${i} of a large answer` })) };
      await store.save(store.newHandle(), value, alice);
      const keys = await raw.keys("expiry:*");
      expect(keys.length).toBeGreaterThanOrEqual(4);
      const pttls = await Promise.all(keys.map((key) => raw.pttl(key)));
      console.log(
        `S16.5 stored lifetimes of one answer's ${keys.length} records (TTL ` +
          `${ttlSeconds} s): ${pttls.map((ms) => (ms / 1000).toFixed(3)).join(", ")} s`,
      );
      for (const ms of pttls) {
        expect(ms).toBeGreaterThan(ttlSeconds * 1000);
        expect(ms).toBeLessThanOrEqual(ttlSeconds * 1000 + 60_000);
      }
      expect(new Set(pttls.map((ms) => Math.round(ms / 1000))).size).toBeGreaterThan(1);
    } finally {
      raw.disconnect();
      await store.onShutdown();
    }
  });
});

describe("S16.5 the namespace is bound into the keys and the associated data", () => {
  it("records copied from namespace appA to appB on one Redis read as not found there; in appA they read", async () => {
    const open = (namespace: string) =>
      createResultHandleStore({ storage: { type: "redis", redis: { url: redis.url } }, namespace, ttlSeconds: 60 });
    const [appA, appB] = await Promise.all([open("appA"), open("appB")]);
    const raw = new Redis(redis.url);
    try {
      for (const value of [
        { small: "answer" },
        { rows: Array.from({ length: 30_000 }, (_, i) => ({ i, note: `row ${i}` })) },
      ]) {
        const handle = appA.newHandle();
        await appA.save(handle, value, alice);
        for (const key of await raw.keys("appA:*")) {
          await raw.set(`appB:${key.slice("appA:".length)}`, (await raw.getBuffer(key))!, "PX", 60_000);
        }
        expect(await appA.read(handle, alice)).toEqual({ value });
        expect(await appB.read(handle, alice)).toBeUndefined();
        expect(await appB.readShared(handle, alice)).toBeUndefined();
      }
    } finally {
      raw.disconnect();
      await Promise.all([appA.onShutdown(), appB.onShutdown()]);
    }
  });

  it(
    "stores of two namespaces over one storage never find each other's " +
      "answers; a bare store takes the plugin's default namespace",
    async () => {
      const storage = new MemoryStorage("shared");
      const a = new ResultHandleStore(storage, 60, { namespace: "appA" });
      const b = new ResultHandleStore(storage, 60, { namespace: "appB" });
      const handle = a.newHandle();
      await a.save(handle, [1, 2, 3], alice);
      expect(await b.read(handle, alice)).toBeUndefined();
      expect(await a.read(handle, alice)).toEqual({ value: [1, 2, 3] });
      expect(DEFAULT_STORE_NAMESPACE).toBe(DEFAULT_NAMESPACE);
      const bare = new ResultHandleStore(storage, 60);
      const named = new ResultHandleStore(storage, 60, { namespace: DEFAULT_NAMESPACE });
      await bare.save(handle, ["bare"], alice);
      expect(await named.read(handle, alice)).toEqual({ value: ["bare"] });
      await storage.close();
    },
  );
});
