// A real redis-server and the loopback Upstash REST bridge to it, for the Upstash and shutdown tests.
import { afterAll, beforeAll } from "vitest";
import { startRedisServer, type RedisServer } from "./redis-server.js";
import { startUpstashBridge, type UpstashBridge } from "./upstash-bridge.js";

/** Starts both before the calling file's tests and stops them after; read them from the result inside a test. */
export function useRedisWithUpstashBridge(): { readonly redis: RedisServer; readonly bridge: UpstashBridge } {
  const servers = {} as { redis: RedisServer; bridge: UpstashBridge };
  beforeAll(async () => {
    servers.redis = await startRedisServer();
    servers.bridge = await startUpstashBridge(servers.redis.url);
  });
  afterAll(async () => {
    await servers.bridge?.close();
    await servers.redis?.dispose();
  });
  return servers;
}
