// Redis through ioredis against a real, throwaway redis-server (S9, S8.3).
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createResultHandleStore, ResultHandlesPlugin, type NamespacedStorage } from "mcp-result-handles";
import { withTimeout } from "../../src/storage/timeout.js";
import { redisDriver } from "../../src/storage/redis.js";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.js";
import { openDriver, storageKey, testDriver } from "./contract.js";
import { expectNoSecrets, foldMarkedAnswers } from "./secrets.js";

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.dispose();
});

/** The NamespacedStorage a `{ type: "redis" }` store opens. */
function openRedisStorage(timeoutMs: number): Promise<NamespacedStorage> {
  return openDriver(redisDriver, { redis: { url: redis.url } }, "frozen", timeoutMs);
}

testDriver({ name: "redis", driver: redisDriver, config: () => ({ redis: { url: redis.url } }), persistent: true });

describe("redis store through the public API", () => {
  it("createResultHandleStore opens redis from { url } and from { host, port }", async () => {
    for (const redisConfig of [{ url: redis.url }, { host: "127.0.0.1", port: redis.port }]) {
      const store = await createResultHandleStore({
        storage: { type: "redis", redis: redisConfig },
        namespace: "api",
        ttlSeconds: 30,
      });
      const handle = store.newHandle();
      await store.save(handle, { via: redisConfig }, { caller: "c" });
      expect(await store.read(handle, { caller: "c" })).toEqual({ value: { via: redisConfig } });
      await store.onShutdown();
    }
  });
});

describe("S8.3 S9.3 what Redis holds after folds", () => {
  it(
    "no key or value names a handle, session, caller or the answer, and " +
      "every key expires at most 60 s after ttlSeconds (S16.5)",
    async () => {
      const raw = new Redis(redis.url);
      try {
        await raw.flushall();
        const ttlSeconds = 120;
        const plugin = ResultHandlesPlugin.init({
          thresholdBytes: 1024,
          ttlSeconds,
          namespace: "s83",
          storage: { type: "redis", redis: { url: redis.url } },
        });
        const secrets = await foldMarkedAnswers(plugin, 4);
        await plugin.onShutdown();

        const keys = await raw.keys("*");
        // one record per answer, or more when answers are stored in pieces (S8.5)
        expect(keys.length).toBeGreaterThanOrEqual(4);
        const blobs = [];
        for (const key of keys) {
          expect(key).toMatch(/^s83:[0-9a-f]{64}$/);
          const value = await raw.getBuffer(key);
          blobs.push(
            { where: `key ${key}`, bytes: new TextEncoder().encode(key) },
            { where: `value of ${key}`, bytes: new Uint8Array(value!) },
          );
          const pttl = await raw.pttl(key);
          expect(pttl).toBeGreaterThan(0); // -1 would mean no expiry at all
          // S16.5: at most 60 s past the handle's lifetime
          expect(pttl).toBeLessThanOrEqual(ttlSeconds * 1000 + 60_000);
        }
        expectNoSecrets(blobs, secrets);
      } finally {
        raw.disconnect();
      }
    },
  );
});

describe("one connection per Redis, and a frozen server costs one timeout", () => {
  it(
    "S9.5 a store whose Redis is down at first use fails that use, and opens on a " +
      "later one once Redis is up and the pause after a failed open is over",
    async () => {
      await redis.stop();
      const plugin = ResultHandlesPlugin.init({
        storage: { type: "redis", redis: { url: redis.url }, timeoutMs: 500 },
      });
      try {
        await expect(plugin.store()).rejects.toThrow();
        const failedAt = Date.now();
        // The failed open is remembered for max(1 s, timeoutMs): a call meanwhile fails at once, with no new attempt.
        const started = performance.now();
        await expect(plugin.store()).rejects.toThrow();
        // At once, not after another attempt's timeout (500 ms): half of it is the margin on a loaded machine.
        expect(performance.now() - started).toBeLessThan(250);
        await redis.start();
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, failedAt + 1050 - Date.now())));
        const store = await plugin.store();
        const handle = store.newHandle();
        await store.save(handle, "opened", { caller: "c" });
        expect(await store.read(handle, { caller: "c" })).toEqual({ value: "opened" });
      } finally {
        await redis.start(); // a no-op unless the test failed before starting it again
        await plugin.onShutdown();
      }
    },
  );

  const clientCount = async (raw: Redis) => ((await raw.client("LIST")) as string).trim().split("\n").length;

  it("plugin instances on the same Redis share one connection, closed when the last one shuts down", async () => {
    const raw = new Redis(redis.url);
    try {
      const alone = await clientCount(raw);
      const plugins = [1, 2, 3].map(() =>
        ResultHandlesPlugin.init({ storage: { type: "redis", redis: { url: redis.url } } }),
      );
      const stores = await Promise.all(plugins.map((plugin) => plugin.store()));
      expect(await clientCount(raw)).toBe(alone + 1);
      await plugins[0]!.onShutdown();
      const handle = stores[1]!.newHandle();
      await stores[1]!.save(handle, "still open", { caller: "c" });
      expect(await stores[2]!.read(handle, { caller: "c" })).toEqual({ value: "still open" });
      await Promise.all(plugins.slice(1).map((plugin) => plugin.onShutdown()));
      await expect.poll(() => clientCount(raw)).toBe(alone);
    } finally {
      raw.disconnect();
    }
  });

  it(
    "S9.1 once a command waits out the timeout, the next calls fail at once; answers resume with " + "the server",
    async () => {
      // the calls after the first fail at once: they must take far less (half) on a loaded machine
      const timeoutMs = 1000;
      const [a, b] = await Promise.all([openRedisStorage(timeoutMs), openRedisStorage(timeoutMs)]).then((all) =>
        all.map((s) => withTimeout(s, timeoutMs)),
      );
      const key = storageKey();
      await a!.set(key, new Uint8Array([1]), 60);
      redis.pause();
      try {
        let started = performance.now();
        // its timeout, or the lane's look at a silent Redis (REDIS_SILENT_MS, the same 1000 ms here), ends it
        await expect(a!.get(key)).rejects.toThrow(/longer than 1000 ms|has answered nothing for 1\d\d\d ms/);
        expect(performance.now() - started).toBeGreaterThanOrEqual(timeoutMs - 20);
        started = performance.now();
        await expect(b!.get(key)).rejects.toThrow(/not answered/);
        await expect(a!.set(storageKey(), new Uint8Array([2]), 60)).rejects.toThrow(/not answered/);
        expect(performance.now() - started).toBeLessThan(timeoutMs / 2);
      } finally {
        redis.resume();
      }
      await expect
        .poll(() => b!.get(key).catch(() => "failed"), { timeout: 3000, interval: 100 })
        .toEqual(new Uint8Array([1]));
      await Promise.all([a!.close(), b!.close()]);
    },
  );
});
