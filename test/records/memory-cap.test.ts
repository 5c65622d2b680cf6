// S16.3 memory stays bounded by configuration: the cache of parsed answers counts what they hold in memory
// against one memory cap for the process, and an answer's index is a small fraction of the answer.
import v8 from "node:v8";
import vm from "node:vm";
import { McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryStorage, ResultHandleStore } from "mcp-result-handles";
import { DEFAULT_RECENT_ANSWERS_BYTES } from "../../src/defaults.js";
import { linkInMemory } from "../helpers/in-memory.js";
import { pluginOver, StorageDouble } from "../helpers/storage-double.js";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;
const MiB = 1024 * 1024;
const alice = { session: "session-alice", caller: "alice" };

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe("S16.3 the parsed-answer cache counts memory, not JSON length, against one memory cap per process", () => {
  it(
    "four queries of 7.5 MB answers of empty objects, on two plugin instances, keep at most the cap",
    { timeout: 120_000 },
    async () => {
      const storage = new MemoryStorage("cap", { maxBytes: 0 });
      const reports = pluginOver(storage, { thresholdBytes: 4096 }).plugin;
      const orders = pluginOver(storage, { thresholdBytes: 8192 }).plugin;
      const server = new McpServer({ name: "cap", version: "1" });
      reports.install(server, { tools: ["empties_a"] });
      orders.install(server, { tools: ["empties_b"] });
      const empties = () => ({ items: Array.from({ length: 2_500_000 }, () => ({})), total: 2_500_000 });
      for (const name of ["empties_a", "empties_b"]) {
        server.registerTool(name, { description: name, inputSchema: z.object({}) }, async () => ({
          structuredContent: empties(),
          content: [],
        }));
      }
      const client = await linkInMemory(server, "session-cap");
      const handles: string[] = [];
      for (const name of ["empties_a", "empties_b", "empties_a", "empties_b"]) {
        const folded = await client.callTool({ name, arguments: {} });
        handles.push((folded.structuredContent as { handle: string }).handle);
      }
      const before = heapAfterGc(); // the four answers are stored (encrypted) by now
      const times: number[] = [];
      for (const handle of handles) {
        const started = performance.now();
        const answered = await client.callTool({ name: "result_query", arguments: { handle, path: "$.total" } });
        times.push(performance.now() - started);
        expect(answered.structuredContent).toMatchObject({ value: 2_500_000 });
      }
      const after = heapAfterGc();
      console.log(
        `S16.3 four queries of 7.5 MB answers of empty objects (two instances): ` +
          `heap +${((after - before) / MiB).toFixed(1)} MiB after GC, the cap ` +
          `${DEFAULT_RECENT_ANSWERS_BYTES / MiB} MiB; per query ${times.map((t) => t.toFixed(0)).join(", ")} ms`,
      );
      // what the process holds, seen from outside (the heap after GC), within the cap and a margin
      expect(after - before).toBeLessThan(DEFAULT_RECENT_ANSWERS_BYTES + 16 * MiB);
      await client.close();
      await Promise.all([reports.onShutdown(), orders.onShutdown()]);
    },
  );

  it("answers that fit are still served from memory; many stores together stay within the one cap", async () => {
    const stores = Array.from({ length: 10 }, () => new ResultHandleStore(new StorageDouble(), 60));
    // about 2 MB of JSON, some 13 MB parsed
    const value = { rows: Array.from({ length: 60_000 }, (_, i) => ({ i, note: `row ${i}` })) };
    const handles: string[] = [];
    // Weak: what the test holds must not keep an answer the cache let go (the heap is measured after GC).
    const firstReads: WeakRef<object>[] = [];
    const before = heapAfterGc();
    let most = 0;
    for (const store of stores) {
      const handle = store.newHandle();
      handles.push(handle);
      await store.save(handle, value, alice);
      const first = (await store.readShared(handle, alice))!.value as object;
      firstReads.push(new WeakRef(first));
      expect((await store.readShared(handle, alice))!.value).toBe(first); // kept: not parsed again
      most = Math.max(most, heapAfterGc() - before);
    }
    // What is kept, seen from outside: the answers read again, newest first, that come back as the same object.
    // A miss parses its answer and evicts the oldest kept, which are older than it: the hits before it are all.
    let kept = 0;
    for (let at = 9; at >= 0; at--) {
      if ((await stores[at]!.readShared(handles[at]!, alice))!.value !== firstReads[at]!.deref()) break;
      kept++;
    }
    console.log(
      `S16.3 ten stores of one process reading 2 MB answers whole: the last ${kept} kept, ` +
        `the heap at most +${(most / MiB).toFixed(1)} MiB after GC (the cap ${DEFAULT_RECENT_ANSWERS_BYTES / MiB} MiB)`,
    );
    expect(kept).toBeGreaterThanOrEqual(2); // answers that fit are kept
    expect(kept).toBeLessThan(10); // the least recently used went, whichever store held it
    expect(most).toBeLessThan(DEFAULT_RECENT_ANSWERS_BYTES + 16 * MiB); // within the one cap, and a margin
    expect((await stores[0]!.readShared(handles[0]!, alice))!.value).not.toBe(firstReads[0]!.deref());
    await Promise.all(stores.map((store) => store.onShutdown()));
  });
});

describe("S16.3 an answer's index is a small fraction of the answer", () => {
  it(
    "1,048,576 empty lists (1024 × 1024 under object keys): no list " +
      "is indexed, the index is a few KB, queries answer",
    async () => {
      const inner = () => Object.fromEntries(Array.from({ length: 1024 }, (_, j) => [`list${j}`, []]));
      const value = Object.fromEntries(Array.from({ length: 1024 }, (_, i) => [`group${i}`, inner()]));
      const answerBytes = Buffer.byteLength(JSON.stringify(value));
      const spy = new StorageDouble();
      const store = new ResultHandleStore(spy, 60);
      const handle = store.newHandle();
      await store.save(handle, value, alice);
      const index = spy.sets[0]!.value.byteLength;
      console.log(
        `S16.3 1,048,576 empty lists, ${(answerBytes / 1e6).toFixed(1)} MB of JSON: index record ${index} bytes ` +
          `(${((100 * index) / answerBytes).toFixed(3)}% of the answer), ${spy.sets.length - 1} pieces`,
      );
      expect(index).toBeLessThan(answerBytes / 100);
      expect(await store.read(handle, alice)).toEqual({ value });
      await store.onShutdown();
    },
    60_000,
  ); // 5 s alone; several times that beside other files on a loaded machine

  it("large lists are still indexed, and a slice reads only their pieces", async () => {
    const value = {
      small: [1, 2, 3],
      rows: Array.from({ length: 40_000 }, (_, i) => ({ i, note: `row ${i} of a long list` })),
    };
    const spy = new StorageDouble();
    const store = new ResultHandleStore(spy, 60);
    const handle = store.newHandle();
    await store.save(handle, value, alice);
    const pieces = spy.sets.length - 1;
    spy.gets.length = 0;
    const found = await (await store.open(handle, alice, { shared: true }))!.items(0, 39_990, 40_000);
    expect((found as { rows: unknown[] }).rows.slice(39_990)).toEqual(value.rows.slice(39_990));
    expect(spy.gets.length).toBeLessThan(pieces); // the index and the last piece or two, not all of them
  });
});
