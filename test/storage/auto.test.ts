// S9.2: what `auto` opens in Node, read from the environment once, at init. (In a page it is memory: see
// test/browser/page-build.test.ts.)
import { afterEach, describe, expect, it } from "vitest";
import { ResultHandlesConfigToken, ResultHandlesPlugin } from "mcp-result-handles";

const NAMES = [
  "REDIS_URL",
  "KV_REST_API_URL",
  "KV_REST_API_TOKEN",
  "UPSTASH_REDIS_REST_URL",
  "UPSTASH_REDIS_REST_TOKEN",
] as const;
const saved = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));
afterEach(() => {
  for (const name of NAMES)
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
});

function autoWith(env: Partial<Record<(typeof NAMES)[number], string>>) {
  for (const name of NAMES) delete process.env[name];
  Object.assign(process.env, env);
  return ResultHandlesPlugin.init({ storage: { type: "auto", timeoutMs: 1234, deadlineMs: 3000 } }).get(
    ResultHandlesConfigToken,
  ).storage;
}

const redis = { REDIS_URL: "redis://127.0.0.1:6390" };
const kv = { KV_REST_API_URL: "http://127.0.0.1:8079", KV_REST_API_TOKEN: "kv-token" };
const upstash = { UPSTASH_REDIS_REST_URL: "http://127.0.0.1:8080", UPSTASH_REDIS_REST_TOKEN: "up-token" };

describe("S9.2 auto in Node", () => {
  it("is Redis when REDIS_URL is set, whatever else is", () => {
    expect(autoWith({ ...redis, ...kv, ...upstash })).toEqual({
      type: "redis",
      redis: { url: redis.REDIS_URL },
      timeoutMs: 1234,
      deadlineMs: 3000,
    });
  });

  it("else Vercel KV when both KV variables are set", () => {
    expect(autoWith({ ...kv, ...upstash })).toEqual({
      type: "vercel-kv",
      vercelKv: { url: kv.KV_REST_API_URL, token: "kv-token" },
      timeoutMs: 1234,
      deadlineMs: 3000,
    });
  });

  it("else Upstash when both of its variables are set", () => {
    expect(autoWith(upstash)).toEqual({
      type: "upstash",
      upstash: { url: upstash.UPSTASH_REDIS_REST_URL, token: "up-token" },
      timeoutMs: 1234,
      deadlineMs: 3000,
    });
  });

  it("else memory, also when only half of a pair is set or a variable is empty", () => {
    const memory = {
      type: "memory",
      memory: { maxEntries: 1000, maxBytes: 256 * 1024 * 1024 },
      timeoutMs: 1234,
      deadlineMs: 3000,
    };
    expect(autoWith({})).toEqual(memory);
    expect(autoWith({ KV_REST_API_URL: kv.KV_REST_API_URL, UPSTASH_REDIS_REST_TOKEN: "t" })).toEqual(memory);
    expect(autoWith({ REDIS_URL: "" })).toEqual(memory);
  });

  it("is decided at init: changing the environment later does not move a plugin's store", async () => {
    for (const name of NAMES) delete process.env[name];
    const plugin = ResultHandlesPlugin.init();
    process.env.REDIS_URL = "redis://127.0.0.1:1";
    expect(plugin.config.storage.type).toBe("memory");
    const store = await plugin.store(); // memory opens; no connection to port 1 is tried
    const handle = store.newHandle();
    await store.save(handle, 1, { session: "s" });
    expect(await store.read(handle, { session: "s" })).toEqual({ value: 1 });
    await plugin.onShutdown();
  });

  it("S9.1 a given block wins over the environment", () => {
    for (const name of NAMES) delete process.env[name];
    Object.assign(process.env, redis, kv, upstash);
    expect(
      ResultHandlesPlugin.init({ storage: { type: "redis", redis: { host: "10.0.0.1", port: 7000 } } }).config.storage,
    ).toMatchObject({ redis: { host: "10.0.0.1", port: 7000 } });
    expect(
      ResultHandlesPlugin.init({ storage: { type: "upstash", upstash: { url: "http://u", token: "x" } } }).config
        .storage,
    ).toMatchObject({ upstash: { url: "http://u", token: "x" } });
  });
});
