// S4.7 S9.1: a store that fails to open is not tried again on every call. The failure is remembered for
// storage.timeoutMs (at least 1 s): calls in that window send their answer whole at once, with one warning.
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  foldToolResult,
  ResultHandlesPluginCore,
  StorageClientMissingError,
  type Runtime,
  type ToolResult,
} from "mcp-result-handles";
import { nodeRuntime } from "../../src/runtimes/node/runtime.js";

const owner = { session: "session-open-retry", caller: "alice" };
const big: ToolResult = {
  content: [],
  structuredContent: { rows: Array.from({ length: 1000 }, (_, i) => ({ id: i, title: `row ${i} of the report` })) },
};

/** A plugin over `openStorage`, counting its opens (to observe) and collecting its warnings. */
function pluginOpening(openStorage: Runtime["openStorage"], storage: Record<string, unknown>) {
  const opens: number[] = [];
  const runtime: Runtime = {
    ...nodeRuntime,
    openStorage: (config, namespace) => (opens.push(Date.now()), openStorage(config, namespace)),
  };
  class Plugin extends ResultHandlesPluginCore {
    protected static override runtime = runtime;
  }
  const plugin = Plugin.init({ storage } as never);
  const warnings: string[] = [];
  plugin.logger = { warn: (message) => void warnings.push(message) };
  const fold = () => foldToolResult(plugin, { toolName: "report", result: big, owner });
  return { plugin, opens, warnings, fold };
}

afterEach(() => vi.useRealTimers());

describe("S4.7 S9.1 a failed store open is remembered for a while", () => {
  it(
    "Redis unreachable (a real client, a closed loopback port): one open per window, one warning " + "per window",
    async () => {
      const { plugin, opens, warnings, fold } = pluginOpening(nodeRuntime.openStorage, {
        type: "redis",
        redis: { url: "redis://127.0.0.1:1" },
        timeoutMs: 300,
      });
      const first = await Promise.all([fold(), fold()]); // concurrent calls share one attempt
      expect(first.every((result) => result === big)).toBe(true);
      expect(opens).toHaveLength(1);

      const started = performance.now();
      for (let i = 0; i < 5; i++) expect(await fold()).toBe(big);
      expect(performance.now() - started).toBeLessThan(250); // no call waited for the storage
      expect(opens).toHaveLength(1);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/could not open the store for tool "report"/);
      await expect(plugin.store()).rejects.toThrow();

      await new Promise((resolve) => setTimeout(resolve, 1050)); // the window: max(1 s, timeoutMs 300)
      expect(await fold()).toBe(big);
      expect(opens).toHaveLength(2);
      expect(opens[1]! - opens[0]!).toBeGreaterThanOrEqual(1000);
      expect(warnings).toHaveLength(2);
      await plugin.onShutdown();
    },
  );

  it("the window is timeoutMs when that is longer than 1 s; an open that then succeeds is kept", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(0);
    let fail = true;
    const { plugin, opens, warnings, fold } = pluginOpening(
      async (config, namespace) =>
        fail
          ? Promise.reject(new Error("connection refused"))
          : nodeRuntime.openStorage({ ...config, type: "memory" } as never, namespace),
      { type: "memory", timeoutMs: 2500 },
    );
    expect(await fold()).toBe(big);
    fail = false;
    vi.setSystemTime(2499);
    expect(await fold()).toBe(big);
    expect(opens).toHaveLength(1);
    vi.setSystemTime(2500);
    expect(await fold()).not.toBe(big); // opened, folded
    expect(await fold()).not.toBe(big);
    expect(opens).toHaveLength(2);
    expect(warnings).toHaveLength(1);
    await plugin.onShutdown();
  });

  it(
    "S9.5 a missing client package warns once per plugin instance, " +
      "though the open is tried again after each window",
    async () => {
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(0);
      const missing = () => Promise.reject(new StorageClientMissingError("ioredis", "redis"));
      const one = pluginOpening(missing, { type: "memory" });
      const other = pluginOpening(missing, { type: "memory" });
      for (let window = 0; window < 3; window++) {
        vi.setSystemTime(window * 5000);
        for (let i = 0; i < 3; i++) expect(await one.fold()).toBe(big);
      }
      expect(await other.fold()).toBe(big);
      expect(one.opens).toHaveLength(3);
      expect(one.warnings).toHaveLength(1);
      expect(one.warnings[0]).toContain("npm install ioredis");
      expect(other.warnings).toHaveLength(1);
    },
  );
});
