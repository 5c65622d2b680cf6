// S9.5: plugin.onShutdown() closes every store the plugin opened, also one opened while it waits.
import { describe, expect, it } from "vitest";
import { ResultHandlesPluginCore, type Runtime } from "mcp-result-handles";
import { StorageDouble } from "../helpers/storage-double.js";

/** A plugin whose storages open after `openMs`, each recorded with whether it was closed. */
function slowOpeningPlugin(openMs: number, failFirst = 0) {
  const opened: { closed: boolean }[] = [];
  let attempts = 0;
  const runtime: Runtime = {
    kind: "node",
    env: () => undefined,
    openStorage: async () => {
      const attempt = ++attempts;
      await new Promise((resolve) => setTimeout(resolve, openMs));
      if (attempt <= failFirst) throw new Error(`storage down (open #${attempt})`);
      const record = { closed: false };
      opened.push(record);
      return new StorageDouble({ close: async () => void (record.closed = true) });
    },
  };
  class SlowPlugin extends ResultHandlesPluginCore {
    protected static override runtime = runtime;
  }
  return { plugin: SlowPlugin.init({ storage: { type: "memory" } }), opened };
}

describe("S9.5 onShutdown", () => {
  it("closes the store it finds opening, and a store a call in flight opens while it waits", async () => {
    const { plugin, opened } = slowOpeningPlugin(30);
    const first = plugin.store();
    const shutdown = plugin.onShutdown();
    // A tool call arriving during shutdown opens the store again.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = plugin.store();
    await shutdown;
    await Promise.all([first, second]);
    expect(opened).toHaveLength(2);
    expect(opened.map((store) => store.closed)).toEqual([true, true]);
  });

  it("closes an opened store once; a later use opens a new one", async () => {
    const { plugin, opened } = slowOpeningPlugin(1);
    await plugin.store();
    await plugin.onShutdown();
    await plugin.onShutdown();
    expect(opened.map((store) => store.closed)).toEqual([true]);
    await plugin.store();
    expect(opened.map((store) => store.closed)).toEqual([true, false]);
    await plugin.onShutdown();
    expect(opened.map((store) => store.closed)).toEqual([true, true]);
  });

  it("an open that fails after onShutdown let go of it sets no pause: the next use opens at once", async () => {
    const { plugin, opened } = slowOpeningPlugin(30, 1);
    const first = plugin.store();
    first.catch(() => {});
    await plugin.onShutdown();
    await expect(first).rejects.toThrow("open #1");
    // Without the attempt check, that late failure would refuse calls for a second with its stale error.
    await expect(plugin.store()).resolves.toBeDefined();
    expect(opened).toHaveLength(1);
    await plugin.onShutdown();
    expect(opened.map((store) => store.closed)).toEqual([true]);
  });

  it("a failing open that onShutdown let go of does not drop a newer open, which shutdown then closes", async () => {
    const { plugin, opened } = slowOpeningPlugin(30, 1);
    const first = plugin.store();
    first.catch(() => {});
    const shutdown = plugin.onShutdown();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = plugin.store(); // a call arriving during shutdown
    await shutdown;
    await expect(second).resolves.toBeDefined();
    await plugin.onShutdown();
    expect(opened.map((store) => store.closed)).toEqual([true]);
  });
});
