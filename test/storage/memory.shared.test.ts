// Memory storage, in Node and again inside Chromium (browser project): the contract, and S9.3's default caps.
import { describe, expect, it } from "vitest";
import { MemoryStorage, ResultHandlesConfigToken, ResultHandlesPlugin } from "mcp-result-handles";
import { testStorage } from "./contract.js";

testStorage({ name: "memory", open: async (namespace) => new MemoryStorage(namespace) });

describe("S9.3 memory caps", () => {
  const inPage = typeof window === "object";

  it(`defaults to 1000 answers and ${inPage ? "64" : "256"} MiB in ${inPage ? "a page" : "Node"}`, () => {
    const { storage } = ResultHandlesPlugin.init({ storage: { type: "memory" } }).get(ResultHandlesConfigToken);
    expect(storage).toEqual({ type: "memory", memory: { maxEntries: 1000, maxBytes: (inPage ? 64 : 256) * 1024 * 1024 }, timeoutMs: 3000, deadlineMs: 3000 });
  });

  it("keeps what is given, and 0 means no limit for either cap", () => {
    const { storage } = ResultHandlesPlugin.init({ storage: { type: "memory", memory: { maxEntries: 0, maxBytes: 0 } } }).config;
    expect(storage).toMatchObject({ memory: { maxEntries: 0, maxBytes: 0 } });
  });

  it("a plugin's memory store drops the oldest answers past its byte cap, and sends an answer larger than the cap whole", async () => {
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
  });
});
