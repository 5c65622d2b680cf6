// S9.5: plugin.onShutdown() closes every store the plugin opened, also one opened while it waits.
import { describe, expect, it } from "vitest";
import { ResultHandlesPluginCore, type Runtime } from "mcp-result-handles";
import { StorageDouble } from "./helpers/storage-double.js";

/** A plugin whose storages open after `openMs`, each recorded with whether it was closed. */
function slowOpeningPlugin(openMs: number) {
  const opened: { closed: boolean }[] = [];
  const runtime: Runtime = {
    kind: "node",
    env: () => undefined,
    openStorage: async () => {
      await new Promise((resolve) => setTimeout(resolve, openMs));
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
});
