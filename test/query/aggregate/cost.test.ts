// S24.3 S21.1 an aggregate is charged to the call's cost meter as the same filter is, and never more: what
// its call's meter counted (seen by a spy that only looks) is at most what the filter's counted over the
// same path, on the calling thread and on real worker threads: in all, and on the calling thread nodes,
// expressions and regex work exactly, the bytes read within a few bytes of each handle's own index (its
// expiry's digits differ from one fold to the next); and where the filter is refused for its cost, so is
// the aggregate.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { MemoryStorage, ResultQueryError, type Owner } from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { CostMeter } from "../../../src/query/cost.js";
import { nodeBatchWorkers } from "../../../src/runtimes/node/batch-workers.js";
import { randomAnswer } from "../../helpers/aggregate-oracle.js";
import { countedQueries } from "../../helpers/store-queries.js";

const owner: Owner = { session: "s-aggregate-cost", caller: "reader" };
const workers = nodeBatchWorkers({ minBytes: 0, threads: 2, idleMs: 60_000 })!;
beforeAll(async () => expect(await workers.warm()).toBe(true));
afterAll(() => workers.stop());

/** What the call's meter (the one charged most) counted during `run`, per kind of work. */
async function countsOf(run: () => Promise<unknown>): Promise<CostMeter["counts"] & { spent: number }> {
  const charge = vi.spyOn(CostMeter.prototype, "charge");
  const absorb = vi.spyOn(CostMeter.prototype, "absorb");
  try {
    await run();
    const meters = [...new Set([...charge.mock.contexts, ...absorb.mock.contexts] as CostMeter[])];
    const meter = meters.reduce((most, each) => (each.spent > most.spent ? each : most));
    return { ...meter.counts, spent: meter.spent };
  } finally {
    charge.mockRestore();
    absorb.mockRestore();
  }
}

/** Bytes an index may differ by between two folds of the same answer (the expiry's digits, the handle's record). */
const RECORD_SLACK = 64;

const PATHS = [
  "$.rows[*]",
  "$.rows[?@.status == 'open']",
  "$.rows[?@.priority > 2 && @.owner]",
  "$..customer",
  "$.teams[*].rows[*]",
];

describe("S24.3 an aggregate costs at most what the same filter costs", () => {
  it.each([
    ["the calling thread", false],
    ["the batch workers", true],
  ] as const)("on %s", async (_where, threaded) => {
    const config = { sliceLimitBytes: 16_384, preview: { chars: 500 } } as ResultHandlesConfig;
    const setup = countedQueries(new MemoryStorage("aggregate-cost", { maxBytes: 256 * 1024 * 1024 }), {
      config,
      owner,
      workers: threaded ? workers : undefined,
    });
    const answer = randomAnswer(5, 3000);
    try {
      for (const path of PATHS) {
        const filterHandle = await setup.fold(answer);
        const aggregateHandle = await setup.fold(answer);
        const filter = await countsOf(() => setup.tool.query({ handle: filterHandle, path }, owner));
        const aggregate = await countsOf(() =>
          setup.tool.query({ handle: aggregateHandle, path, aggregate: { by: "owner", avg: "priority" } }, owner),
        );
        expect(filter.nodes, path).toBeGreaterThan(0);
        // In all, within the bytes a record may differ by (decrypted and parsed: 10 units a byte).
        expect(aggregate.spent, path).toBeLessThanOrEqual(filter.spent + RECORD_SLACK * 10);
        if (threaded) continue; // a worker's units come back charged as the kind that cost most there (takeCounts)
        for (const kind of ["nodes", "expressions", "regex"] as const)
          expect(aggregate[kind], `${path} ${kind}`).toBeLessThanOrEqual(filter[kind]);
        for (const kind of ["decrypted", "parsed"] as const)
          expect(aggregate[kind], `${path} ${kind}`).toBeLessThanOrEqual(filter[kind] + RECORD_SLACK);
      }
    } finally {
      await setup.store.onShutdown();
    }
  });

  it("where the filter is refused for its cost, the aggregate is refused too", async () => {
    const config = { sliceLimitBytes: 16_384, preview: { chars: 500 }, costLimit: 2_000_000 } as ResultHandlesConfig;
    const setup = countedQueries(new MemoryStorage("aggregate-cost-limit", { maxBytes: 256 * 1024 * 1024 }), {
      config,
      owner,
    });
    try {
      const handle = await setup.fold(randomAnswer(6, 4000));
      const refused = async (args: Record<string, unknown>) =>
        (await setup.tool.query({ handle, ...args }, owner).catch((error: unknown) => error)) as ResultQueryError;
      const filter = await refused({ path: "$.rows[?@.priority > 2]" });
      const aggregate = await refused({ path: "$.rows[?@.priority > 2]", aggregate: { by: "owner" } });
      expect(filter).toBeInstanceOf(ResultQueryError);
      expect(aggregate).toBeInstanceOf(ResultQueryError);
      expect(aggregate.code).toBe("INVALID_INPUT");
      expect(aggregate.message).toMatch(/cost over 2000000 units, costLimit/);
    } finally {
      await setup.store.onShutdown();
    }
  });
});
