// Redis through ioredis against a real, throwaway redis-server (S9, S8.3).
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createResultHandleStore, ResultHandlesPlugin, type NamespacedStorage } from "mcp-result-handles";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.js";
import { testStorage } from "./contract.js";
import { expectNoSecrets, foldMarkedAnswers } from "./secrets.js";

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.dispose();
});

/** The NamespacedStorage under a store: what `createResultHandleStore` opens, reached through its storage. */
async function openRedis(namespace: string): Promise<NamespacedStorage> {
  const { openRedisStorage } = await import("../../src/storage/redis.js");
  return openRedisStorage({ url: redis.url }, namespace, 3000);
}

testStorage({ name: "redis", open: openRedis, persistent: true });

describe("redis store through the public API", () => {
  it("createResultHandleStore opens redis from { url } and from { host, port }", async () => {
    for (const redisConfig of [{ url: redis.url }, { host: "127.0.0.1", port: redis.port }]) {
      const store = await createResultHandleStore({ storage: { type: "redis", redis: redisConfig }, namespace: "api", ttlSeconds: 30 });
      const handle = store.newHandle();
      await store.save(handle, { via: redisConfig }, { caller: "c" });
      expect(await store.read(handle, { caller: "c" })).toEqual({ value: { via: redisConfig } });
      await store.onShutdown();
    }
  });
});

describe("S8.3 S9.3 what Redis holds after folds", () => {
  it("no key or value names a handle, session, caller or the answer, and every key expires within ttlSeconds", async () => {
    const raw = new Redis(redis.url);
    try {
      await raw.flushall();
      const ttlSeconds = 120;
      const plugin = ResultHandlesPlugin.init({ thresholdBytes: 1024, ttlSeconds, namespace: "s83", storage: { type: "redis", redis: { url: redis.url } } });
      const secrets = await foldMarkedAnswers(plugin, 4);
      await plugin.onShutdown();

      const keys = await raw.keys("*");
      expect(keys.length).toBeGreaterThanOrEqual(4); // one record per answer, or more when answers are stored in pieces (S8.5)
      const blobs = [];
      for (const key of keys) {
        expect(key).toMatch(/^s83:[0-9a-f]{64}$/);
        const value = await raw.getBuffer(key);
        blobs.push({ where: `key ${key}`, bytes: new TextEncoder().encode(key) }, { where: `value of ${key}`, bytes: new Uint8Array(value!) });
        const pttl = await raw.pttl(key);
        expect(pttl).toBeGreaterThan(0); // -1 would mean no expiry at all
        expect(pttl).toBeLessThanOrEqual(ttlSeconds * 1000);
      }
      expectNoSecrets(blobs, secrets);
    } finally {
      raw.disconnect();
    }
  });
});
