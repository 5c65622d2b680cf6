// S17.3 custom storage, in Node and again inside Chromium (browser project): `{ type: "custom", storage }`
// checked at init, the S9.0 contract over an object the test builds, and the plugin folding through it.
import { describe, expect, it } from "vitest";
import {
  createResultHandleStore,
  ResultHandlesConfigToken,
  ResultHandlesConfigurationError,
  ResultHandlesPlugin,
  type NamespacedStorage,
} from "mcp-result-handles";
import { customDriver } from "../../src/storage/custom.js";
import { testDriver } from "./contract.js";
import { expectNoSecrets, foldMarkedAnswers } from "./secrets.js";

/** The smallest custom storage a user would write: a Map with expiry, as a Cloudflare KV adapter would be. */
class MapStorage implements NamespacedStorage {
  readonly entries = new Map<string, { value: Uint8Array; expiresAt: number }>();
  closed = 0;
  async get(key: string) {
    const entry = this.entries.get(key);
    return entry && entry.expiresAt > Date.now() ? entry.value : undefined;
  }
  async set(key: string, value: Uint8Array, ttlSeconds: number) {
    this.entries.set(key, { value: value.slice(), expiresAt: Date.now() + ttlSeconds * 1000 });
  }
  async delete(key: string) {
    this.entries.delete(key);
  }
  async close() {
    this.closed++;
  }
}

// One object behind every open: the namespace test then shows the wrapper keeps namespaces apart in it.
const shared = new MapStorage();
testDriver({
  name: "custom (a Map the test builds)",
  driver: customDriver,
  config: { storage: shared },
  persistent: true,
});

function issuesOf(options: unknown) {
  try {
    ResultHandlesPlugin.init(options as never);
  } catch (error) {
    expect(error).toBeInstanceOf(ResultHandlesConfigurationError);
    return (error as ResultHandlesConfigurationError).issues;
  }
  throw new Error("init accepted the options");
}

describe("S17.3 init checks a custom storage", () => {
  it("takes an object with the four functions of S9.0, and shows it as given in the resolved config", () => {
    const storage = new MapStorage();
    expect(
      ResultHandlesPlugin.init({ storage: { type: "custom", storage, timeoutMs: 500 } }).get(ResultHandlesConfigToken)
        .storage,
    ).toEqual({ type: "custom", storage, timeoutMs: 500, deadlineMs: 1500 });
    const plain = {
      get: async () => undefined,
      set: async () => {},
      delete: async () => {},
      close: async () => {},
      setTogether: async () => {},
    };
    expect(ResultHandlesPlugin.init({ storage: { type: "custom", storage: plain } }).config.storage).toMatchObject({
      storage: plain,
    });
  });

  const none = async (): Promise<undefined> => undefined;
  const done = async (): Promise<void> => {};
  it.each<[unknown, RegExp]>([
    [undefined, /got undefined/],
    ["redis://x", /got string/],
    [null, /got null/],
    [{ get: none, set: done }, /delete, close are not a function/],
    [{ get: 1, set: done, delete: done, close: done }, /get is not a function/],
    [
      { get: none, set: done, delete: done, close: done, setTogether: true },
      /setTogether, when given, must be a function/,
    ],
  ])("S3.1 refuses %j at storage.storage", (storage, message) => {
    const issues = issuesOf({ storage: { type: "custom", storage } });
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe("storage.storage");
    expect(issues[0]!.message).toMatch(message);
  });

  it("S3.1 lists a bad custom storage with every other problem, in one error", () => {
    const paths = issuesOf({ ttlSeconds: 0, storage: { type: "custom", storage: {}, extra: 1 } })
      .map((issue) => issue.path)
      .sort();
    expect(paths).toEqual(["storage.extra", "storage.storage", "ttlSeconds"]);
  });
});

describe("S17.3 the plugin folds into a custom storage and reads back through it", () => {
  it("every key carries the namespace, nothing names the answer, and shutdown closes the storage", async () => {
    const storage = new MapStorage();
    const plugin = ResultHandlesPlugin.init({
      thresholdBytes: 1024,
      namespace: "custom-ns",
      storage: { type: "custom", storage },
    });
    const secrets = await foldMarkedAnswers(plugin, 3);
    expect(storage.entries.size).toBeGreaterThanOrEqual(3);
    const blobs = [...storage.entries].flatMap(([key, { value }]) => {
      expect(key).toMatch(/^custom-ns:[0-9a-f]{64}$/);
      return [
        { where: `key ${key}`, bytes: new TextEncoder().encode(key) },
        { where: `value of ${key}`, bytes: value },
      ];
    });
    expectNoSecrets(blobs, secrets);
    await plugin.onShutdown();
    expect(storage.closed).toBe(1);
  });

  it("a large answer goes in as several records, and reads back whole", async () => {
    const storage = new MapStorage();
    const plugin = ResultHandlesPlugin.init({ storage: { type: "custom", storage } });
    const store = await plugin.store();
    const handle = store.newHandle();
    const rows = Array.from({ length: 20_000 }, (_, i) => ({ i, text: `row ${i} `.repeat(8) }));
    await store.save(handle, { rows }, { session: "s" });
    expect(storage.entries.size).toBeGreaterThan(2); // an index and its pieces (S8.5)
    expect(await store.read(handle, { session: "s" })).toEqual({ value: { rows } });
    await plugin.onShutdown();
  });
});

describe("S2 S17.3 createResultHandleStore takes a custom storage too", () => {
  it("saves and reads through it, under its namespace, and refuses a non-conforming one", async () => {
    const storage = new MapStorage();
    const store = await createResultHandleStore({
      storage: { type: "custom", storage },
      namespace: "api",
      ttlSeconds: 30,
    });
    const handle = store.newHandle();
    await store.save(handle, { via: "custom" }, { caller: "c" });
    expect(await store.read(handle, { caller: "c" })).toEqual({ value: { via: "custom" } });
    expect([...storage.entries.keys()].every((key) => key.startsWith("api:"))).toBe(true);
    await store.onShutdown();
    await expect(
      createResultHandleStore({ storage: { type: "custom", storage: {} as never }, namespace: "api", ttlSeconds: 30 }),
    ).rejects.toThrow(/storage\.storage: must have the functions/);
  });
});
