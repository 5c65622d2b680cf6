// Redis through ioredis against a real, throwaway redis-server (S9, S8.3).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createResultHandleStore, type NamespacedStorage } from "mcp-result-handles";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.js";
import { testStorage } from "./contract.js";

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
