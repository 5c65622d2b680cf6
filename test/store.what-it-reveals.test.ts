// S16.5 what the store holds reveals no more than each answer's size class: records padded to buckets, no
// shared exact expiry among an answer's records, the namespace bound into the keys and associated data.
// Against a real redis-server where the storage matters, and the public API throughout.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createResultHandleStore, MemoryStorage, ResultHandleStore } from "mcp-result-handles";
import { DEFAULT_NAMESPACE } from "../src/defaults.js";
import { DEFAULT_STORE_NAMESPACE } from "../src/records/crypto/keys.js";
import { startRedisServer, type RedisServer } from "./helpers/redis-server.js";
import { StorageDouble } from "./helpers/storage-double.js";

const alice = { session: "session-alice", caller: "alice" };
/** A whole record's trailer and tag: GCM tag 16, IV 12, header 18 (format.ts). */
const OVERHEAD = 46;

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
    console.log(`S16.5 whole records for ${[...sizes.values()].flat().length} answer sizes, 1,000–40,000 B:\n  ${table.join("\n  ")}`);
    // 403 answer sizes, 17 record sizes: each record size is a bucket, the next one a quarter larger.
    expect(sizes.size).toBeLessThanOrEqual(18);
    const records = [...sizes.keys()].sort((a, b) => a - b);
    for (const [at, record] of records.entries()) {
      const [smallest, largest] = [sizes.get(record)![0]!, sizes.get(record)!.at(-1)!];
      expect(record - OVERHEAD).toBeGreaterThanOrEqual(largest + 4); // the answer and its length fit
      if (at > 0) expect((record - OVERHEAD) / (records[at - 1]! - OVERHEAD)).toBeCloseTo(1.25, 2);
      expect(smallest).toBeLessThanOrEqual(largest);
    }
    await store.onShutdown();
  });

  it("an answer in pieces: every piece of one size, the index and the last piece padded too, and it reads back", async () => {
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
      seen.push(`${JSON.stringify(value).length} B → index ${main} B + ${pieces.length} pieces, the last ${pieces.at(-1)} B`);
      expect(await store.read(handle, alice)).toEqual({ value });
    }
    console.log(`S16.5 answers in 16 KB pieces:\n  ${seen.join("\n  ")}`);
    await store.onShutdown();
  });
});

describe("S16.5 an answer's records share no exact expiry", () => {
  it("on Redis, the records of one answer get lifetimes drawn on their own, past the TTL by at most 60 s", async () => {
    const ttlSeconds = 120;
    const store = await createResultHandleStore({ storage: { type: "redis", redis: { url: redis.url } }, namespace: "expiry", ttlSeconds });
    const raw = new Redis(redis.url);
    try {
      const value = { rows: Array.from({ length: 40_000 }, (_, i) => ({ i, note: `row ${i} of a large answer` })) }; // about 1.6 MB: 4 pieces and an index
      await store.save(store.newHandle(), value, alice);
      const keys = await raw.keys("expiry:*");
      expect(keys.length).toBeGreaterThanOrEqual(4);
      const pttls = await Promise.all(keys.map((key) => raw.pttl(key)));
      console.log(`S16.5 stored lifetimes of one answer's ${keys.length} records (TTL ${ttlSeconds} s): ${pttls.map((ms) => (ms / 1000).toFixed(3)).join(", ")} s`);
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
    const open = (namespace: string) => createResultHandleStore({ storage: { type: "redis", redis: { url: redis.url } }, namespace, ttlSeconds: 60 });
    const [appA, appB] = await Promise.all([open("appA"), open("appB")]);
    const raw = new Redis(redis.url);
    try {
      for (const value of [{ small: "answer" }, { rows: Array.from({ length: 30_000 }, (_, i) => ({ i, note: `row ${i}` })) }]) {
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

  it("stores of two namespaces over one storage never find each other's answers; a bare store takes the plugin's default namespace", async () => {
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
  });
});
