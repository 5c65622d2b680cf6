// Memory storage, in Node and again inside Chromium (browser project): the contract, and S9.3's default caps.
import { describe, expect, it } from "vitest";
import { MemoryStorage, ResultHandlesConfigToken, ResultHandlesPlugin } from "mcp-result-handles";
import { testStorage } from "./contract.js";

testStorage({ name: "memory", open: async (namespace) => new MemoryStorage(namespace) });

describe("S9.3 memory caps", () => {
  const inPage = typeof window === "object";

  it(`defaults to 1000 answers and ${inPage ? "64" : "256"} MiB in ${inPage ? "a page" : "Node"}`, () => {
    const { storage } = ResultHandlesPlugin.init({ storage: { type: "memory" } }).get(ResultHandlesConfigToken);
    expect(storage).toEqual({
      type: "memory",
      memory: { maxEntries: 1000, maxBytes: (inPage ? 64 : 256) * 1024 * 1024 },
      timeoutMs: 3000,
      deadlineMs: 1500, // S26.3: storage.deadlineMs, whatever timeoutMs is below it
    });
  });

  it("keeps what is given, and 0 means no limit for either cap", () => {
    const { storage } = ResultHandlesPlugin.init({
      storage: { type: "memory", memory: { maxEntries: 0, maxBytes: 0 } },
    }).config;
    expect(storage).toMatchObject({ memory: { maxEntries: 0, maxBytes: 0 } });
  });

  it(
    "a plugin's memory store drops the oldest answers past its byte " +
      "cap, and sends an answer larger than the cap whole",
    async () => {
      const plugin = ResultHandlesPlugin.init({ storage: { type: "memory", memory: { maxBytes: 64 * 1024 } } });
      const store = await plugin.store();
      const owner = { session: "s" };
      const handles: string[] = [];
      for (let i = 0; i < 8; i++) {
        const handle = store.newHandle();
        handles.push(handle);
        await store.save(handle, "x".repeat(10_000), owner);
      }
      expect(await store.read(handles[0]!, owner)).toBeUndefined();
      expect(await store.read(handles[7]!, owner)).toEqual({ value: "x".repeat(10_000) });
      await expect(store.save(store.newHandle(), "y".repeat(70 * 1024), owner)).rejects.toThrow(/maxBytes/);
      await plugin.onShutdown();
    },
  );
});

describe("S26.5 memory shares its room fairly among owners", () => {
  const bytes = (n: number) => new Uint8Array(n);
  /** Keeps answer `key` of `n` bytes for `owner`; whether it was kept. */
  const keep = (storage: MemoryStorage, owner: string, key: string, n = 1000) =>
    storage.setTogether([{ key, value: bytes(n) }], 60, owner).then(
      () => true,
      (error: { code?: string }) => (expect(error.code).toBe("STORE_FULL"), false),
    );
  const held = async (storage: MemoryStorage, keys: string[]) => {
    const found: string[] = [];
    for (const key of keys) if (await storage.get(key)) found.push(key);
    return found;
  };

  it(
    "many owners of one answer each fill it: the first keep theirs, " +
      "the newcomers are refused, nobody's answer goes",
    async () => {
      const storage = new MemoryStorage("fair", { maxEntries: 0, maxBytes: 10_000 });
      expect(await keep(storage, "alice", "alice-1")).toBe(true);
      const kept: boolean[] = [];
      for (let i = 0; i < 50; i++) kept.push(await keep(storage, `session-${i}`, `s-${i}`));
      // An oracle of its own: ten answers of 1000 bytes fit; alice's came first, then nine sessions'.
      expect(kept.filter(Boolean)).toHaveLength(9);
      expect(kept.slice(0, 9).every(Boolean)).toBe(true);
      expect(await held(storage, ["alice-1"])).toEqual(["alice-1"]);
      expect(storage.storedBytes).toBeLessThanOrEqual(10_000);
      await storage.close();
    },
  );

  it("an owner over its share loses its own oldest answers first, to itself and to others", async () => {
    const storage = new MemoryStorage("fair", { maxEntries: 0, maxBytes: 10_000 });
    for (let i = 0; i < 9; i++) expect(await keep(storage, "bob", `bob-${i}`)).toBe(true);
    expect(await keep(storage, "alice", "alice-1")).toBe(true); // full: bob 9000, alice 1000
    expect(await keep(storage, "carol", "carol-1")).toBe(true); // bob holds the most: his oldest goes
    expect(await held(storage, ["bob-0", "bob-1", "alice-1", "carol-1"])).toEqual(["bob-1", "alice-1", "carol-1"]);
    expect(await keep(storage, "bob", "bob-9")).toBe(true); // bob still holds the most: his own oldest goes
    expect(await held(storage, ["bob-1", "bob-2", "bob-9", "alice-1", "carol-1"])).toEqual([
      "bob-2",
      "bob-9",
      "alice-1",
      "carol-1",
    ]);
    // alice (4000 then) under bob (8000): bob's oldest go
    expect(await keep(storage, "alice", "alice-2", 3000)).toBe(true);
    expect(await held(storage, ["alice-1", "alice-2", "carol-1"])).toEqual(["alice-1", "alice-2", "carol-1"]);
    expect(storage.storedBytes).toBeLessThanOrEqual(10_000);
    await storage.close();
  });

  it("counts answers as well as bytes: past maxEntries the owner with the most answers gives one up", async () => {
    const storage = new MemoryStorage("fair", { maxEntries: 4, maxBytes: 0 });
    for (let i = 0; i < 3; i++) expect(await keep(storage, "bob", `bob-${i}`, 10)).toBe(true);
    expect(await keep(storage, "alice", "alice-1", 5000)).toBe(true);
    expect(await keep(storage, "carol", "carol-1", 10)).toBe(true);
    expect(await held(storage, ["bob-0", "bob-1", "bob-2", "alice-1", "carol-1"])).toEqual([
      "bob-1",
      "bob-2",
      "alice-1",
      "carol-1",
    ]);
    expect(storage.answerCount).toBe(4);
    await storage.close();
  });

  it("answers given without an owner count as one owner's: the oldest goes, as before", async () => {
    const storage = new MemoryStorage("fair", { maxEntries: 3, maxBytes: 0 });
    for (let i = 0; i < 5; i++) await storage.set(`k-${i}`, bytes(10), 60);
    expect(await held(storage, ["k-0", "k-1", "k-2", "k-3", "k-4"])).toEqual(["k-2", "k-3", "k-4"]);
    await storage.close();
  });

  it(
    "through the plugin: folds of many owners never push out an earlier " +
      "owner's answer, and the store tells owners apart only by a tag",
    async () => {
      const plugin = ResultHandlesPlugin.init({ storage: { type: "memory", memory: { maxBytes: 256 * 1024 } } });
      const store = await plugin.store();
      const alice = { caller: "alice" };
      const hers = store.newHandle();
      await store.save(hers, "a".repeat(40_000), alice);
      let refused = 0;
      for (let i = 0; i < 40; i++) {
        await store
          .save(store.newHandle(), "s".repeat(40_000), { session: `session-${i}` })
          .catch((error: { code?: string }) => {
            expect(error.code).toBe("STORE_FULL");
            refused++;
          });
      }
      expect(refused).toBeGreaterThan(30); // 40 KB answers, 256 KB of room: a handful fit
      expect(await store.read(hers, alice)).toEqual({ value: "a".repeat(40_000) });
      await plugin.onShutdown();
    },
  );
});

describe("S26.5 only the limit that is passed counts", () => {
  it(
    "past maxEntries, an owner of one large answer holds no more than each of many owners of one " + "small answer",
    async () => {
      const storage = new MemoryStorage("fair-entries", { maxEntries: 5, maxBytes: 100_000 });
      await storage.setTogether([{ key: "alice-big", value: new Uint8Array(90_000) }], 60, "alice");
      const kept: string[] = [];
      for (let i = 0; i < 8; i++) {
        await storage.setTogether([{ key: `s-${i}`, value: new Uint8Array(10) }], 60, `session-${i}`).then(
          () => kept.push(`s-${i}`),
          () => {},
        );
      }
      // alice holds 90% of the bytes, but the bytes are within their limit: only answers count, one each.
      expect(await storage.get("alice-big")).toBeDefined();
      expect(kept).toEqual(["s-0", "s-1", "s-2", "s-3"]);
      expect(storage.answerCount).toBe(5);
      await storage.close();
    },
  );
});
