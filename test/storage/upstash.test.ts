// Upstash and Vercel KV through the real @upstash/redis client, against a loopback REST bridge to a real redis-server.
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { createResultHandleStore, ResultHandlesConfigToken, ResultHandlesPlugin } from "mcp-result-handles";
import type { Runtime } from "../../src/plugin/runtime.js";
import { edgeRuntime } from "../../src/runtimes/edge/runtime.js";
import { nodeRuntime } from "../../src/runtimes/node/runtime.js";
import type { RestCredentials } from "../../src/storage/upstash.js";
import { useRedisWithUpstashBridge } from "../helpers/redis-with-upstash-bridge.js";
import { binaryValue, openDriver, storageKey, testDriver } from "./contract.js";

const servers = useRedisWithUpstashBridge();

/** A build's Upstash driver, found in its catalog as the build finds it when it opens a store. */
const upstashOf = (runtime: Runtime) => runtime.storage!.drivers.find((driver) => driver.type === "upstash")!;
const upstashDriver = upstashOf(nodeRuntime);

testDriver({
  name: "upstash",
  driver: upstashDriver,
  config: () => ({ upstash: { url: servers.bridge.url, token: servers.bridge.token } }),
  persistent: true,
});

// S17.1 the edge build's driver: the client's Cloudflare entry (fetch only) and base64 without Buffer.
testDriver({
  name: "upstash as at the edge (@upstash/redis/cloudflare, web base64)",
  driver: upstashOf(edgeRuntime),
  config: () => ({ upstash: { url: servers.bridge.url, token: servers.bridge.token } }),
  persistent: true,
});

/** Node's upstash driver, opened as the build opens it. */
const openUpstashStorage = (credentials: RestCredentials, namespace: string, timeoutMs: number) =>
  openDriver(upstashDriver, { upstash: credentials }, namespace, timeoutMs);

describe("upstash specifics", () => {
  it("the real client reached the bridge, and values sit in redis as base64 text with a native expiry", async () => {
    const storage = await openUpstashStorage({ url: servers.bridge.url, token: servers.bridge.token }, "raw", 3000);
    const key = storageKey();
    const value = binaryValue(300);
    await storage.set(key, value, 9);
    expect(Object.values(servers.bridge.requests).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    const raw = new Redis(servers.redis.url);
    try {
      expect(await raw.get(`raw:${key}`)).toBe(Buffer.from(value).toString("base64"));
      const pttl = await raw.pttl(`raw:${key}`);
      expect(pttl).toBeGreaterThan(8000);
      expect(pttl).toBeLessThanOrEqual(9000);
    } finally {
      raw.disconnect();
      await storage.close();
    }
  });

  it("a wrong token is a failed call, not a missing value", async () => {
    const storage = await openUpstashStorage({ url: servers.bridge.url, token: "wrong" }, "raw", 3000);
    await expect(storage.get(storageKey())).rejects.toThrow(/Unauthorized/);
  });

  it("a value that looks like a number or JSON comes back as the same bytes", async () => {
    const storage = await openUpstashStorage({ url: servers.bridge.url, token: servers.bridge.token }, "raw", 3000);
    for (const text of ["12345", "1e400", '{"a":1}', "null", "true", "00"]) {
      const key = storageKey();
      const bytes = new TextEncoder().encode(text);
      await storage.set(key, bytes, 60);
      expect(await storage.get(key)).toEqual(bytes);
    }
  });
});

describe("S9.1 S9.2 Vercel KV is the same adapter, configured from KV_REST_API_URL and KV_REST_API_TOKEN", () => {
  const names = [
    "REDIS_URL",
    "KV_REST_API_URL",
    "KV_REST_API_TOKEN",
    "UPSTASH_REDIS_REST_URL",
    "UPSTASH_REDIS_REST_TOKEN",
  ] as const;
  const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));
  afterAll(() => {
    for (const name of names)
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
  });

  it("vercel-kv without a block, and auto, both use the KV variables and store through the bridge", async () => {
    for (const name of names) delete process.env[name];
    process.env.KV_REST_API_URL = servers.bridge.url;
    process.env.KV_REST_API_TOKEN = servers.bridge.token;
    for (const storage of [{ type: "vercel-kv" as const }, { type: "auto" as const }]) {
      const plugin = ResultHandlesPlugin.init({ storage });
      expect(plugin.get(ResultHandlesConfigToken).storage).toEqual({
        type: "vercel-kv",
        vercelKv: { url: servers.bridge.url, token: servers.bridge.token },
        timeoutMs: 3000,
        deadlineMs: 1500, // S26.3: storage.deadlineMs, whatever timeoutMs is below it
      });
      const before = servers.bridge.requests["/pipeline"] ?? 0;
      const store = await plugin.store();
      const handle = store.newHandle();
      await store.save(handle, { kv: storage.type }, { caller: "c" });
      expect(await store.read(handle, { caller: "c" })).toEqual({ value: { kv: storage.type } });
      expect((servers.bridge.requests["/pipeline"] ?? 0) + (servers.bridge.requests["/"] ?? 0)).toBeGreaterThan(before);
      await plugin.onShutdown();
    }
  });

  it("createResultHandleStore opens upstash from its block", async () => {
    const store = await createResultHandleStore({
      storage: { type: "upstash", upstash: { url: servers.bridge.url, token: servers.bridge.token } },
      namespace: "api",
      ttlSeconds: 30,
    });
    const handle = store.newHandle();
    await store.save(handle, [1, 2, 3], { session: "s" });
    expect(await store.read(handle, { session: "s" })).toEqual({ value: [1, 2, 3] });
    await store.onShutdown();
  });
});
