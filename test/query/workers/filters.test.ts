// S14.6 with batch workers: a filter's batches counted on worker threads (real `worker_threads`) answer
// exactly as on the calling thread, on memory, SQLite and Redis; the calling thread then parses only the
// batches of the page; a worker that fails costs nothing but time; a lost piece or a failing store answers
// the coded refusal; what a worker is handed holds no key; and a process using them exits when done.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ResultQueryTool, type NamespacedStorage, type Owner } from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { nodeBatchWorkers } from "../../../src/runtimes/node/batch-workers.js";
import type { BatchWorkers, WorkerPool, WorkerPort } from "../../../src/query/workers/pool.js";
import {
  answered as answeredBy,
  countedQueries,
  everyStore,
  ordersAnswer,
  referenceAnswer,
} from "../../helpers/store-queries.js";

const owner: Owner = { session: "s-workers", caller: "reader" };
const config = { sliceLimitBytes: 16_384, preview: { chars: 500 } } as ResultHandlesConfig;
const expected = (value: object, args: Record<string, unknown>) => referenceAnswer(value, args, config);
/** The answer, built once for the file (no test changes it), so its references are worked out once for every store. */
let orders: ReturnType<typeof ordersAnswer> | undefined;
const answer = () => (orders ??= ordersAnswer());
afterAll(() => void (orders = undefined)); // the worker keeps this module for its later files (isolate: false)
const answered = (tool: ResultQueryTool, handle: string, args: Record<string, unknown>) =>
  answeredBy(tool, handle, args, owner);
// stopped after all: never for idleness mid-test
const workers = nodeBatchWorkers({ minBytes: 0, threads: 2, idleMs: 60_000 })!;
/** A pool of real worker threads as the Node runtime starts them, with the timings of a test. */
const nodePool = (threads: number, idleMs: number, retryMs?: number) =>
  nodeBatchWorkers({ minBytes: 0, threads, idleMs, retryMs })!;
/** The ports of a pool's running workers (what the runtime handed the pool for each thread). */
const portsOf = (pool: WorkerPool) =>
  (pool as unknown as { workers: { port: WorkerPort }[] }).workers.map((w) => w.port);
/** Starts a pool's workers and ends them at once, before they load: each start fails, as a worker that cannot load. */
const failStarts = (pool: WorkerPool) => {
  expect(pool.available()).toBe(false); // starting, none loaded yet
  for (const port of portsOf(pool)) port.terminate();
};
beforeAll(async () => expect(await workers.warm()).toBe(true)); // loaded before the first query: every query uses them
afterAll(() => workers.stop());

const QUERIES: Record<string, unknown>[] = [
  { path: '$.rows[?@.owner == "user5" && @.amount > 80000]' },
  { path: '$.rows[?@.owner == "user5" && @.amount > 80000]', offset: 7, limit: 3 },
  { path: "$.rows[?@.amount > 50000]", limit: 3 },
  { path: "$.rows[?@.amount > 50000].id", offset: 2990, limit: 20 },
  { path: "$.rows[?@.amount > 50000].id", offset: 99999 },
  { path: "$.rows[?@.amount > 99000].id", page: 2, limit: 5 },
  { path: "$.rows[?@.status == 'pending']", fields: ["nope"] },
  { path: "$.rows[?search(@.note, 'ünï 1[0-9]0')].note" },
  { path: "$.rows[?length(@.tags) > 1].tags[1]", offset: 1490 },
  { path: "$.rows[*]", limit: 1000 }, // too large: refused with how many fit
  { path: "$.rows[*].nested.name", limit: 2, offset: 3000 },
  { path: "$.rows[10:200:7].id" },
  { path: "$.rows..deep..name", offset: 5995 },
];

/** `args` over `handle` (the fold of `value`) answers as over the whole value, and at least one job went to the workers. */
async function onWorkers(
  setup: { tool: ResultQueryTool },
  count: { mock: { calls: unknown[] } },
  handle: string,
  value: object,
  args: Record<string, unknown>,
): Promise<void> {
  const jobs = count.mock.calls.length;
  expect(await answered(setup.tool, handle, args), JSON.stringify(args)).toEqual(await expected(value, args));
  expect(count.mock.calls.length, JSON.stringify(args)).toBeGreaterThan(jobs);
}

const setUp = async (storage: NamespacedStorage, pool: BatchWorkers | undefined) =>
  countedQueries(storage, { config, owner, workers: pool });

describe("S14.6 filters counted on batch workers, on every store", () => {
  const stores = everyStore("batch-workers");
  it.each(stores)(
    "%s: the same answers as over the whole value, counted on the workers",
    async (_name, open) => {
      const value = answer();
      const setup = await setUp(await open(), workers);
      const count = vi.spyOn(workers, "count");
      try {
        for (const args of QUERIES) await onWorkers(setup, count, await setup.fold(value), value, args);
        expect(workers.usable).toBe(true);
      } finally {
        count.mockRestore();
        await setup.store.onShutdown();
      }
    },
    60_000,
  );

  it.each(stores)(
    "%s: a store failing between pieces is unavailable (S9.1), a piece lost reads as not found (S8.5)",
    async (_name, open) => {
      const value = answer();
      const setup = await setUp(await open(), workers);
      try {
        const handle = await setup.fold(value);
        // the index cached
        expect(await answered(setup.tool, handle, { path: "$.rows[0].id" })).toMatchObject({ value: 0 });
        setup.counted.failAfter = setup.counted.gets + 5;
        expect(await answered(setup.tool, handle, { path: "$.rows[?@.amount > 1].id" })).toMatchObject({
          code: "RESULT_STORE_UNAVAILABLE",
        });
        setup.counted.failAfter = undefined;
        expect(await answered(setup.tool, handle, { path: "$.rows[?@.amount > 1].id" })).toEqual(
          await expected(value, { path: "$.rows[?@.amount > 1].id" }),
        );
        // A piece in the middle of the list deleted: found among the keys a filter fetches, in order.
        const watch = vi.spyOn(setup.counted.inner, "get");
        await answered(setup.tool, handle, { path: "$.rows[?@.amount > 2].id" });
        const seen = watch.mock.calls.map(([key]) => key);
        watch.mockRestore();
        await setup.counted.inner.delete(seen[Math.floor(seen.length / 2)]!);
        expect(await answered(setup.tool, handle, { path: "$.rows[?@.amount > 1].id" })).toMatchObject({
          code: "RESULT_HANDLE_NOT_FOUND",
        });
      } finally {
        await setup.store.onShutdown();
      }
    },
    60_000,
  );
});

/** Members of every kind (array-index keys listed first, escapes, non-ASCII, nested values, scalars). */
function wideMembers(count: number): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    const key = i % 97 === 0 ? String(i) : `id-${i.toString(36)}-${i % 13}${i % 50 ? "" : '"ü'}`;
    object[key] =
      i % 5 === 0 ? i : i % 7 === 0 ? `text ${i} "q"` : { n: i % 31, k1: i % 11 ? [1, 2, 3, 4, 5, 6] : [1] };
  }
  return object;
}

const MEMBER_QUERIES: Record<string, unknown>[] = [
  { path: "$[?count(@.k1) > 5]", offset: 9000, limit: 4 },
  { path: "$[?count(@.k1) > 50]" },
  { path: "$[?@ > 15000]", limit: 3 },
  { path: "$[?@ >= 0]", offset: 3995 },
  { path: "$[?match(@, 'text 1.*')]", offset: 2, limit: 3 },
  { path: "$[*].n", offset: 11_990 },
  { path: "$.map[?@.n > 29]", offset: 300, limit: 2 },
  { path: "$.map[?@.k1]" }, // a page too large: the same refusal
];

describe("S26.1 a wide object's member batches counted on batch workers", () => {
  const stores = everyStore("batch-workers-members").filter(([name]) => name !== "sqlite");
  it.each(stores)(
    "%s: the same answers as over the whole value, counted on the workers",
    async (_name, open) => {
      const setup = await setUp(await open(), workers);
      const count = vi.spyOn(workers, "count");
      try {
        for (const value of [wideMembers(20_000), { meta: { kind: "map" }, map: wideMembers(6000) }]) {
          const handle = await setup.fold(value);
          for (const args of MEMBER_QUERIES.filter(({ path }) => String(path).startsWith("$.map") === "map" in value))
            await onWorkers(setup, count, handle, value, args);
        }
        expect(workers.usable).toBe(true);
      } finally {
        count.mockRestore();
        await setup.store.onShutdown();
      }
    },
    60_000,
  );
});

describe("S14.6 what the calling thread does, and what a worker sees", () => {
  const [[, open]] = everyStore("batch-workers-main").slice(0, 1) as [[string, () => Promise<NamespacedStorage>]];

  it("parses only the batches of the page, where on its own it parses every batch", async () => {
    const value = answer();
    const args = { path: "$.rows[?@.amount > 50000]", limit: 3 }; // every batch holds matches: no text rules one out
    const parsedBy = async (pool: BatchWorkers | undefined) => {
      const setup = await setUp(await open(), pool);
      const handle = await setup.fold(value);
      const parse = vi.spyOn(JSON, "parse");
      try {
        expect(await answered(setup.tool, handle, args)).toEqual(await expected(value, args));
        // a batch of rows
        return parse.mock.calls.filter(([text]) => typeof text === "string" && text.startsWith('[{"id":')).length;
      } finally {
        parse.mockRestore();
        await setup.store.onShutdown();
      }
    };
    const alone = await parsedBy(undefined);
    const helped = await parsedBy(workers);
    expect(alone).toBeGreaterThan(30); // about 50 batches of 32 KB
    expect(helped).toBe(1); // the first batch holds the page
  }, 60_000);

  it("a worker that ends before it loads fails nothing: queries run here, and the pool is not used again", async () => {
    const broken = nodePool(2, 1000);
    failStarts(broken);
    const setup = await setUp(await open(), broken);
    try {
      const value = answer();
      const args = { path: "$.rows[?@.amount > 50000].id", offset: 100, limit: 5 };
      expect(await broken.warm()).toBe(false);
      expect(broken.usable).toBe(false);
      expect(await answered(setup.tool, await setup.fold(value), args)).toEqual(await expected(value, args));
      // Not for good: after its pause the pool tries threads again (here a pause of 50 ms, and workers that load).
      const healing = nodePool(1, 60_000, 50);
      failStarts(healing);
      expect(await healing.warm()).toBe(false);
      expect(healing.usable).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(await healing.warm()).toBe(true);
      healing.stop();
      expect(await answered(setup.tool, await setup.fold(value), args)).toEqual(await expected(value, args));

      // One that dies holding jobs: the query it held answers from this thread.
      const dying = nodePool(1, 60_000);
      expect(await dying.warm()).toBe(true);
      const port = portsOf(dying)[0]!;
      // the worker goes away mid-query
      const posted = vi.spyOn(port, "post").mockImplementation(() => port.terminate());
      const counted = vi.spyOn(dying, "count");
      const tool = new ResultQueryTool(() => [{ config, store: async () => setup.store, workers: dying }]);
      expect(await answered(tool, await setup.fold(value), args)).toEqual(await expected(value, args));
      expect(posted).toHaveBeenCalled();
      expect(dying.usable).toBe(false);
      // of about 90 pieces: once one failed, the rest were not fetched for workers
      expect(counted.mock.calls.length).toBeLessThan(10);

      // Workers that stop for idleness before they load: warm() says no worker can take jobs, and they start again when
      // asked.
      const impatient = nodePool(1, 1);
      expect(await impatient.warm()).toBe(false); // stopped after 1 ms idle, before loading (100 ms or more)
      expect(impatient.usable).toBe(true); // not a failure: available() starts them again
      impatient.stop();
    } finally {
      broken.stop();
      await setup.store.onShutdown();
    }
  }, 60_000);

  it(
    "a worker is handed a piece's plaintext, the query (and the list's place " +
      "in it) and byte ranges: no key, no handle, no owner (S8)",
    async () => {
      const watched = nodePool(1, 60_000);
      const setup = await setUp(await open(), watched);
      expect(await watched.warm()).toBe(true);
      const post = vi.spyOn(portsOf(watched)[0]!, "post"); // observes: every message still goes to the worker
      try {
        const value = answer();
        const handle = await setup.fold(value);
        await answered(setup.tool, handle, { path: "$.rows[?@.amount > 50000].id" });
        const posted: unknown[] = post.mock.calls.map(([message]) => message);
        expect(posted.length).toBeGreaterThan(10);
        for (const message of posted as { id: number; job: Record<string, unknown> }[]) {
          expect(Object.keys(message).sort()).toEqual(["id", "job"]);
          expect(Object.keys(message.job).sort()).toEqual(
            expect.arrayContaining(["ascii", "bytes", "length", "query", "ranges"]),
          );
          expect(
            Object.keys(message.job).every((key) =>
              ["ascii", "at", "bytes", "head", "length", "query", "ranges"].includes(key),
            ),
          ).toBe(true);
          expect(JSON.stringify(message.job.query)).not.toContain(handle);
        }
      } finally {
        watched.stop();
        await setup.store.onShutdown();
      }
    },
    60_000,
  );
});

describe("S14.6 a process whose queries used batch workers exits when its work is done", () => {
  it("a script folding a 3 MB answer and filtering it ends on its own, with the answer", async () => {
    const entry = JSON.stringify(new URL("../../../src/runtimes/node/index.ts", import.meta.url).href);
    const script = `
      import { ResultHandlesPlugin, ResultQueryTool, foldToolResult } from ${entry};
      const rows = Array.from({ length: 20000 }, (_, i) =>
        ({ id: i, amount: (i * 7919) % 100000, note: "row " + i + " ".repeat(100) }));
      const plugin = ResultHandlesPlugin.init({ storage: { type: "memory" } });
      const owner = { session: "s", caller: "c" };
      const folded = await foldToolResult(plugin, { toolName: "t", result: { structuredContent: { rows } }, owner });
      const tool = new ResultQueryTool(() => [plugin]);
      await plugin.workers.warm(); // the filter then runs on them
      const handle = folded.structuredContent.handle;
      const result = await tool.query({ handle, path: "$.rows[?@.amount > 50000].id", limit: 2 }, owner);
      console.log(JSON.stringify({ total: result.total, usable: plugin.workers.usable }));
      await plugin.onShutdown();
    `;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      { timeout: 15_000 },
    );
    const printed = JSON.parse(stdout.trim()) as { total: number; usable: boolean };
    expect(printed.total).toBe(
      Array.from({ length: 20000 }, (_, i) => (i * 7919) % 100000).filter((amount) => amount > 50000).length,
    );
    expect(printed.usable).toBe(true);
  }, 30_000);
});
