// S24.3 S8 an aggregate's jobs on real batch worker threads carry what a filter's do and its spec (the
// members asked for), never a key, a handle or an owner; and a worker that fails costs the aggregate
// nothing but time: the same answer, counted on the calling thread.
import { afterAll, describe, expect, it, vi } from "vitest";
import { MemoryStorage, type Owner } from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { nodeBatchWorkers } from "../../../src/runtimes/node/batch-workers.js";
import type { WorkerPool, WorkerPort } from "../../../src/query/workers/pool.js";
import { closeTo, oracleAggregate, randomAnswer } from "../../helpers/aggregate-oracle.js";
import { countedQueries } from "../../helpers/store-queries.js";

const owner: Owner = { session: "s-aggregate-jobs", caller: "reader" };
const config = { sliceLimitBytes: 16_384, preview: { chars: 500 } } as ResultHandlesConfig;
const pools: WorkerPool[] = [];
afterAll(() => pools.forEach((pool) => pool.stop()));

/**
 * A pool of one real worker as the Node runtime starts it, loaded, and the messages posted to it (a spy that
 * passes them on); `broken` ends the worker at its first job instead, as a worker that crashes.
 */
async function watchedPool(broken = false): Promise<{ pool: WorkerPool; posted: () => unknown[] }> {
  const pool = nodeBatchWorkers({ minBytes: 0, threads: 1, idleMs: 60_000, retryMs: 60_000 })!;
  pools.push(pool);
  expect(await pool.warm()).toBe(true);
  const port = (pool as unknown as { workers: { port: WorkerPort }[] }).workers[0]!.port;
  const post = vi.spyOn(port, "post");
  if (broken) post.mockImplementation(() => port.terminate()); // exits: the pool fails its jobs, counted here
  return { pool, posted: () => post.mock.calls.map(([message]) => message) };
}

describe("S24.3 an aggregate's batch jobs", () => {
  it("carry the piece's plaintext, the query, the ranges and the spec: no key, handle or owner", async () => {
    const { pool, posted } = await watchedPool();
    const setup = countedQueries(new MemoryStorage("aggregate-jobs"), { config, owner, workers: pool });
    const answer = randomAnswer(8, 2000);
    const handle = await setup.fold(answer);
    const spec = { by: "@.customer.country", avg: "amount" };
    const result = await setup.tool.query({ handle, path: "$.rows[?@.status == 'open']", aggregate: spec }, owner);
    // sums in another grouping: to 1e-9
    expect(closeTo(result.groups, oracleAggregate(answer, "$.rows[?@.status == 'open']", spec).groups)).toBeUndefined();
    expect(posted().length).toBeGreaterThan(3);
    for (const message of posted() as { id: number; job: Record<string, unknown> }[]) {
      expect(Object.keys(message).sort()).toEqual(["id", "job"]);
      expect(
        Object.keys(message.job).every((key) =>
          ["aggregate", "ascii", "at", "bytes", "head", "length", "query", "ranges"].includes(key),
        ),
      ).toBe(true);
      expect(message.job.aggregate).toEqual(spec);
      expect(JSON.stringify({ ...message.job, bytes: undefined, head: undefined })).not.toContain(handle);
    }
    await setup.store.onShutdown();
  });

  it("a worker that fails: the same groups, counted on the calling thread", async () => {
    const { pool, posted } = await watchedPool(true);
    const setup = countedQueries(new MemoryStorage("aggregate-jobs-broken"), { config, owner, workers: pool });
    const answer = randomAnswer(9, 2000);
    const handle = await setup.fold(answer);
    const spec = { by: "owner", sum: "priority" };
    const result = await setup.tool.query({ handle, path: "$.rows[*]", aggregate: spec }, owner);
    expect(posted().length).toBeGreaterThan(0); // a job was handed over, and failed
    expect(result).toMatchObject({ total: 2000 });
    const expected = oracleAggregate(answer, "$.rows[*]", spec);
    expect(result.groups).toEqual(expected.groups);
    await setup.store.onShutdown();
  });
});
