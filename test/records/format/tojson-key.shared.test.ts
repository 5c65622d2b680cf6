// S16.7 items with their own toJSON(key) get the key JSON.stringify would pass them: their index in the
// list, as a string, not their position in the store's serialising batch. Runs in Node and in Chromium.
import { describe, expect, it } from "vitest";
import { foldToolResult, MemoryStorage, ResultHandleStore, ResultQueryTool } from "mcp-result-handles";
import { pluginOver, StorageDouble } from "../../helpers/storage-double.js";

const alice = { session: "session-alice", caller: "alice" };

/** An item that serialises as the key it is given, as JSON.stringify documents for `toJSON(key)`. */
class Row {
  constructor(readonly i: number) {}
  toJSON(key: string) {
    return `row-key:${key}`;
  }
}

describe("S16.7 an item's own toJSON(key) gets its index in the list", () => {
  it("folded and read back with result_query: item 2000 of 3000 says row-key:2000", async () => {
    const { plugin } = pluginOver(new StorageDouble(), { storage: { type: "memory" } });
    const answer = { rows: Array.from({ length: 3000 }, (_, i) => new Row(i)), total: 3000 };
    const folded = await foldToolResult(plugin, {
      toolName: "rows",
      result: { structuredContent: answer },
      owner: alice,
    });
    const handle = (folded.structuredContent as { handle: string }).handle;
    expect(handle).toBeTypeOf("string");
    const tool = new ResultQueryTool(() => [plugin]);
    const one = await tool.handler({ handle, path: "$.rows[2000]" }, alice);
    expect(one.structuredContent).toMatchObject({ value: "row-key:2000" });
    const tail = await tool.handler({ handle, path: "$.rows", offset: 2995, limit: 5 }, alice);
    expect((tail.structuredContent as { value: unknown }).value).toEqual(
      [2995, 2996, 2997, 2998, 2999].map((i) => `row-key:${i}`),
    );
    await plugin.onShutdown();
  });

  it(
    "the stored answer is JSON.stringify's text, for items with " +
      "toJSON among plain ones, at the root and under keys",
    async () => {
      const storage = new MemoryStorage("tojson");
      const store = new ResultHandleStore(storage, 60, { pieceBytes: 4096 });
      const odd = (i: number) =>
        i % 7 === 0 ? new Row(i) : i % 11 === 0 ? { toJSON: () => undefined } : { i, note: `plain ${i}` };
      const answers = [
        Array.from({ length: 5000 }, (_, i) => odd(i)),
        { data: { search: { nodes: Array.from({ length: 5000 }, (_, i) => odd(i)) } } },
        { when: Array.from({ length: 3000 }, (_, i) => new Date(Date.UTC(2026, 0, 1) + i * 1000)) },
      ];
      for (const value of answers) {
        const handle = store.newHandle();
        await store.save(handle, value, alice);
        expect(await store.read(handle, alice)).toEqual({ value: JSON.parse(JSON.stringify(value)) });
      }
      await store.onShutdown();
    },
  );
});
