// S14.6 batch workers in both runtimes: worker_threads in Node, a module Web Worker in Chromium (the file
// found by `new URL("./batch-worker.js", import.meta.url)`, as the page's bundler serves it). A filter over
// an answer in pieces is counted there and answers as over the whole value; the pool is still usable after.
import { describe, expect, it, vi } from "vitest";
import { MemoryStorage, ResultHandleStore, ResultQueryTool, type Owner } from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { browserBatchWorkers } from "../../../src/runtimes/browser/batch-workers.js";
import { nodeBatchWorkers } from "../../../src/runtimes/node/batch-workers.js";
import { WorkerPool } from "../../../src/query/workers/pool.js";
import { parseQueryArguments } from "../../../src/query/query.js";
import { answerWhole } from "../../helpers/query-shortcuts.js";

const owner: Owner = { session: "shared-workers" };
const inPage = typeof window !== "undefined";

describe(`S14.6 batch workers in ${inPage ? "a page" : "Node"}`, () => {
  it("count a filter's batches, and the page read here is the one-thread page", async () => {
    const settings = { minBytes: 0, threads: 2, idleMs: 60_000 }; // stopped at the end: never for idleness mid-test
    const workers = (inPage ? browserBatchWorkers(settings) : nodeBatchWorkers(settings))!;
    expect(workers).toBeInstanceOf(WorkerPool);
    expect(await workers.warm()).toBe(true); // the worker's file found and loaded
    const rows = Array.from({ length: 3000 }, (_, i) => ({
      id: i,
      amount: (i * 7919) % 1000,
      text: `row ${i} ${"é".repeat(i % 5)}`,
    }));
    const store = new ResultHandleStore(new MemoryStorage("workers"), 60, { pieceBytes: 16 * 1024 });
    const config = { sliceLimitBytes: 100_000, preview: { chars: 500 } } as ResultHandlesConfig;
    const tool = new ResultQueryTool(() => [{ config, store: async () => store, workers }]);
    const count = vi.spyOn(workers, "count");
    try {
      for (const args of [
        { path: "$.rows[?@.amount > 500].id", offset: 700, limit: 30 },
        { path: "$.rows[?search(@.text, 'é{4}')]", limit: 2 },
        { path: "$.rows[*].id", offset: 2990 },
      ]) {
        const handle = store.newHandle();
        await store.save(handle, { rows }, owner);
        const jobs = count.mock.calls.length;
        expect(await tool.query({ handle, ...args }, owner), JSON.stringify(args)).toEqual(
          await answerWhole({ rows }, parseQueryArguments({ handle, ...args }), 100_000),
        );
        expect(count.mock.calls.length).toBeGreaterThan(jobs);
      }
      // answered by a worker, not failed over
      for (const job of count.mock.results) await expect(job.value).resolves.toHaveProperty("nodes");
      expect(workers.usable).toBe(true);
    } finally {
      workers.stop();
      await store.onShutdown();
    }
  });
});
