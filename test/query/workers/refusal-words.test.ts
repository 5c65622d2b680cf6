// S26.1 S21.1 S21.4 a batch job's refusal says what was measured: a job whose worker stayed silent too long names
// the time it ran and the silence allowed, never a count of nodes it did not reach ("The query would visit more
// than N nodes", N far below the work done, was read for an aggregate by id over $.rows[*] under load); a job
// stopped when it spent its share names that share and what it spent. Real worker threads over a real store; the
// figures in the words are held to what the test measures from the outside (the call's time, the answer's items).
import { afterAll, describe, expect, it } from "vitest";
import { MemoryStorage, ResultHandleStore, ResultQueryError, ResultQueryTool, type Owner } from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { nodeBatchWorkers } from "../../../src/runtimes/node/batch-workers.js";
import type { WorkerPool } from "../../../src/query/workers/pool.js";
import { BATCH_JOB_UNITS, COST_WEIGHTS } from "../../../src/defaults.js";

const owner: Owner = { session: "s-refusal-words", caller: "reader" };
const config = { sliceLimitBytes: 16_384, preview: { chars: 500 } } as ResultHandlesConfig;
const PIECE_BYTES = 64 * 1024;
const pools: WorkerPool[] = [];
afterAll(() => pools.forEach((pool) => pool.stop()));

async function setup(answer: unknown, silentMs: number) {
  const pool = nodeBatchWorkers({ minBytes: 0, threads: 1, idleMs: 60_000, retryMs: 60_000, silentMs })!;
  pools.push(pool);
  expect(await pool.warm()).toBe(true);
  const store = new ResultHandleStore(new MemoryStorage("refusal-words"), 60, { pieceBytes: PIECE_BYTES });
  const tool = new ResultQueryTool(() => [{ config, store: async () => store, workers: pool }]);
  const handle = store.newHandle();
  await store.save(handle, answer, owner);
  return { tool, handle };
}

async function refusal(run: () => Promise<unknown>): Promise<{ message: string; ms: number }> {
  const at = performance.now();
  const error = await run().then(
    () => undefined,
    (error: unknown) => error,
  );
  const ms = performance.now() - at;
  expect(error).toBeInstanceOf(ResultQueryError);
  expect((error as ResultQueryError).code).toBe("INVALID_INPUT");
  return { message: (error as Error).message, ms };
}

describe("S26.1 a batch job's refusal says what was measured", () => {
  it("a worker silent too long: the time its job ran, the silence allowed, the piece, no nodes unvisited", async () => {
    const items = 60_000;
    const { tool, handle } = await setup(
      { rows: Array.from({ length: items }, (_, id) => ({ id, owner: `o${id}` })) },
      0,
    );
    const { message, ms } = await refusal(() =>
      tool.query({ handle, path: "$.rows[*]", aggregate: { by: "id" } }, owner),
    );
    console.log(`overrun: ${message} (${Math.round(ms)} ms)`);
    const words = message.match(
      /^A batch worker counting one piece of the list \((\d+) bytes\) for this query was stopped after (\d+) ms: it had said nothing for 0 ms, as long as a worker may .* The call had visited (\d+) nodes of this answer by then .*Call again in a moment, or .+\.$/,
    );
    expect(words, message).not.toBeNull();
    const [bytes, ranMs, visited] = words!.slice(1).map(Number) as [number, number, number];
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(2 * PIECE_BYTES); // a piece, and the head of a batch begun before it
    expect(ranMs).toBeLessThanOrEqual(Math.ceil(ms)); // it ran within the call
    expect(visited).toBeLessThan(items);
    expect(message).not.toMatch(/would visit more than/);
  });

  it("a job that spent its share: that share, what it spent and on what", async () => {
    // 2,000 characters a text, and a pattern of a few thousand instructions: each run is charged before it starts
    // (S21.1), a few hundred million units a piece, past the share of one job long before the call's own limit
    const text = "ab".repeat(1000);
    const { tool, handle } = await setup({ rows: Array.from({ length: 400 }, (_, id) => ({ id, text })) }, 60_000);
    const pattern = "(a|b){0,500}c";
    const { message } = await refusal(() =>
      tool.query({ handle, path: `$.rows[?match(@.text, '${pattern}')]`, aggregate: { count: true } }, owner),
    );
    console.log(`share: ${message}`);
    const words = message.match(
      /^One piece of the list \((\d+) bytes, counted on a batch worker\) would cost more than the (\d+) units one such job may spend \(one short hold of a thread\): it had spent (\d+), most of it (\d+) characters × regex program instructions of match\(\) and search\(\), when it was stopped \(the call may spend (\d+) in all, costLimit\): use a simpler pattern/,
    );
    expect(words, message).not.toBeNull();
    const [, share, spent, regex] = words!.slice(1).map(Number) as [number, number, number, number];
    expect(share).toBe(BATCH_JOB_UNITS);
    expect(spent).toBeGreaterThan(share);
    // most of what it spent was regex work (COST_WEIGHTS.regex units a character × instruction)
    expect(regex * COST_WEIGHTS.regex).toBeLessThanOrEqual(spent);
    expect(regex * COST_WEIGHTS.regex).toBeGreaterThan(spent / 2);
    expect(message).not.toMatch(/would visit more than/);
  });

  it("over a wide object's member batches, the words say a piece of the object, not of a list", async () => {
    // S26.1: a wide object's filter or wildcard is counted on the workers too; its refusals said "of the list"
    const text = "ab".repeat(1000);
    const w = Object.fromEntries(Array.from({ length: 1100 }, (_, id) => [`m${id}`, { id, text }]));
    const overrun = await setup({ w }, 0);
    const silent = await refusal(() =>
      overrun.tool.query({ handle: overrun.handle, path: "$.w[*]", aggregate: { by: "id" } }, owner),
    );
    expect(silent.message).toMatch(/^A batch worker counting one piece of the object \(\d+ bytes\) for this query /);
    const spending = await setup({ w }, 60_000);
    const share = await refusal(() =>
      spending.tool.query(
        { handle: spending.handle, path: "$.w[?match(@.text, '(a|b){0,500}c')]", aggregate: { count: true } },
        owner,
      ),
    );
    expect(share.message).toMatch(/^One piece of the object \(\d+ bytes, counted on a batch worker\) would cost /);
    for (const { message } of [silent, share]) expect(message).not.toMatch(/of the list/);
    // S14.5: the call it names is under this answer's own object, never an example path it has not ($.rows)
    expect(silent.message).toMatch(
      /Call again in a moment, or narrow it: filter a deeper path under \$\.w, so that each member it tests is smaller/,
    );
    for (const { message } of [silent, share]) expect(message).not.toMatch(/\$\.rows/);
  });
});
