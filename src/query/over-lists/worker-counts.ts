/**
 * A filter's batches counted on batch workers (S14.6, worker-pool.ts): the workers tell, per batch, how
 * many nodes it gives and the steps it took; the calling thread then reads only the batches that hold the
 * page, and takes the others' counts in their place, in order. The answer is the one-thread answer
 * exactly: the same page, `total`, step budget and refusals. A batch that threw in a worker (a comparison
 * too deep, the budget spent) makes the whole query run on the calling thread, where it throws its coded
 * refusal in its place (or does not, on a thread with more stack).
 */
import { MAX_QUERY_STEPS } from "../../defaults.js";
import type { BatchReading, StreamedAnswer } from "../../records/read/batch-source.js";
import { tooManySteps, type QueryBudget } from "../jsonpath/jsonpath.js";
import type { ItemPlan } from "./item-plan.js";
import type { NodelistPager } from "../paths/nodelist.js";
import type { BatchWorkers } from "../workers/pool.js";
import type { WatchState } from "../refusals/member-watch.js";

/** Per batch of the list: nodes and steps; batches outside the window give none. */
export interface BatchCounts {
  readonly nodes: Int32Array;
  readonly steps: Float64Array;
  /** What each job's batches showed of the names the query looks up (S18.2). */
  readonly watches: WatchState[];
}

/**
 * The counts of every batch of `list` in `plan`'s window, from the workers; undefined when the list is too
 * small to be worth it, a worker failed, or a batch threw there (the query then runs on the calling thread alone).
 */
export async function countInWorkers(answer: StreamedAnswer, list: number, plan: ItemPlan, query: { list: string; at?: readonly (string | number)[] }, workers: BatchWorkers | undefined): Promise<BatchCounts | Exclude<BatchReading, "read"> | undefined> {
  const { batches, bytes } = answer.sizeOf(list);
  if (!workers || bytes < workers.minBytes || !workers.available()) return undefined;
  const { length } = answer.lists[list]!;
  const counts: BatchCounts = { nodes: new Int32Array(batches), steps: new Float64Array(batches), watches: [] };
  const jobs: Promise<void>[] = [];
  let failed = false;
  const reading = await answer.forEachPiece(list, plan.window(length), async (piece) => {
    if (failed) return false; // a worker failed: the calling thread reads the list instead, so stop fetching for them
    await workers.ready();
    const job = { query: query.list, at: query.at, length, bytes: piece.bytes, ranges: piece.ranges, ascii: piece.ascii, head: piece.head };
    const wanted = piece.ascii.length;
    jobs.push(
      workers.count(job).then(
        ({ nodes, steps, watch }) => {
          if (watch) counts.watches.push(watch);
          if (nodes?.length !== wanted || steps?.length !== wanted) failed = true; // not the reply asked for
          else for (let i = 0; i < wanted; i++) [counts.nodes[piece.batch + i], counts.steps[piece.batch + i]] = [nodes[i]!, steps[i]!];
        },
        () => void (failed = true),
      ),
    );
  });
  await Promise.all(jobs);
  if (reading !== "read") return reading;
  return failed || counts.nodes.some((nodes) => nodes < 0) ? undefined : counts;
}

/** The batches the calling thread must read: those holding nodes of the page, counted from where `pager` stands. */
export function batchesToRead(counts: BatchCounts, pager: NodelistPager): Set<number> {
  const read = new Set<number>();
  let before = pager.counted;
  for (let batch = 0; batch < counts.nodes.length; batch++) {
    const nodes = counts.nodes[batch]!;
    if (pager.onPage(before, nodes)) read.add(batch);
    before += nodes;
  }
  return read;
}

/** Takes the counts of batches up to (not including) `upTo` that were not read, in order: their nodes for `total`, their steps against the budget. */
export function takeCounts(counts: BatchCounts, from: number, upTo: number, pager: NodelistPager, budget: QueryBudget): void {
  for (let batch = from; batch < upTo; batch++) {
    budget.work += counts.steps[batch]!;
    if (budget.work > MAX_QUERY_STEPS) throw tooManySteps();
    pager.skip(counts.nodes[batch]!);
  }
}
