// Runs in Chromium: the package name resolves to the page build through the `browser` export condition.
import { describe, expect, it } from "vitest";
import {
  BrowserStoreUnavailableError,
  ResultHandlesConfigurationError,
  ResultHandlesPlugin,
  ResultHandleStoreToken,
} from "mcp-result-handles";

describe("S3.2 S9.4 page build refuses server stores at init", () => {
  it.each([
    { type: "redis", redis: { url: "redis://127.0.0.1:6379" } },
    { type: "redis" },
    { type: "sqlite", sqlite: { path: "/tmp/x.sqlite" } },
    { type: "upstash", upstash: { url: "https://127.0.0.1", token: "t" } },
    { type: "vercel-kv" },
  ])("%j throws BrowserStoreUnavailableError naming the page stores", (storage) => {
    let error: unknown;
    try {
      ResultHandlesPlugin.init({ storage: storage as never });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(BrowserStoreUnavailableError);
    expect((error as BrowserStoreUnavailableError).code).toBe("BROWSER_STORE_UNAVAILABLE");
    expect((error as Error).message).toContain('storage: { type: "memory" }');
    expect((error as Error).message).toContain('{ type: "indexeddb" }');
  });

  it("still reports other option problems as configuration errors", () => {
    expect(() => ResultHandlesPlugin.init({ thresholdBytes: 10 })).toThrow(ResultHandlesConfigurationError);
  });

  it("S9.2 auto is memory in a page, with WebCrypto doing the encryption", async () => {
    const plugin = ResultHandlesPlugin.init();
    const store = await plugin.get(ResultHandleStoreToken);
    const handle = store.newHandle();
    await store.save(handle, { page: true }, { session: "tab" });
    expect(await store.read(handle, { session: "tab" })).toEqual({ value: { page: true } });
    expect(typeof window).toBe("object");
    await plugin.onShutdown();
  });
});
