/**
 * A filter's batches counted on batch workers (S14.6, `WorkerPool`): the list's pieces are pulled from the
 * reader and handed to the workers (query → records, then query → workers: nothing calls back), which tell, per
 * batch, how many nodes it gives and the steps it took; the calling thread then reads only the batches that hold
 * the page, and takes the others' counts in their place, in order. The answer is the one-thread answer exactly:
 * the same page, `total`, cost and refusals. A batch that threw in a worker (a comparison too deep, the meter
 * spent) makes the whole query run on the calling thread, where it throws its coded refusal in its place (or
 * does not, on a thread with more stack).
 */
import { ReadFailed, type AnswerReader, type BatchedPart } from "../../records/read/answer-reader.js";
import type { CostMeter } from "../jsonpath/jsonpath.js";
import type { CostKind } from "../cost.js";
import { JobOverrun } from "../workers/pool.js";
import type { ItemPlan } from "../jsonpath/item-plan.js";
import type { NodeSink } from "./node-sink.js";
import type { Aggregation, AggregationState } from "../aggregate/aggregation.js";
import { ResultQueryError } from "../../errors.js";
import { BATCH_JOB_UNITS, ROOT_SUMMARY_JOB_BYTES, WAIT_FOR_WORKERS } from "../../defaults.js";
import { unref } from "../../util/unref.js";
import { jsonSizeUpTo } from "../../util/size.js";
import { formatPath } from "../paths/path.js";
import type { BatchWorkers } from "../workers/pool.js";
import type { WatchState } from "../refusals/member-watch.js";

/** Per batch of the list: nodes and steps; batches outside the window give none. */
interface BatchCounts {
  readonly nodes: Int32Array;
  readonly steps: Float64Array;
  /** Units the workers spent per kind of work: their units are charged as the kind that cost most. */
  readonly by: Partial<Record<CostKind, number>>;
  /** What each job's batches showed of the names the query looks up (S18.2). */
  readonly watches: WatchState[];
}

/**
 * The counts of every batch of a list in `plan`'s window (or of every member batch of a wide object, S26.1), from the
 * workers; undefined when the part is too small to be worth it, a worker failed, or a batch threw there (the query
 * then runs on the calling thread alone). A piece that cannot be read throws the reader's `ReadFailed`, once the jobs
 * handed out have answered.
 */
export async function countInWorkers(
  reader: AnswerReader,
  batched: BatchedPart,
  plan: ItemPlan,
  query: { list: string; at?: readonly (string | number)[] },
  workers: BatchWorkers | undefined,
  meter: CostMeter,
  /**
   * An aggregate's part for this list (`Aggregation.part`, S24.3): each job also answers the state of its batches'
   * nodes, merged into it as the jobs answer, in the list's order and yielding (S21.4); past the aggregate's limits
   * the merge throws its refusal, and the call ends then, no other job sent (S21.5: a million distinct values were
   * all counted and sent back, 60 jobs' states, before the merge refused them after 7-9 s). No state is kept:
   * the calling thread never holds a list's states besides their merge, nor takes them in one piece.
   */
  part?: Aggregation,
): Promise<BatchCounts | undefined> {
  const { batches, bytes } = reader.sizeOf(batched);
  if (!workers || bytes < workers.minBytes) return undefined;
  // A large wide object is worth the workers' start (WAIT_FOR_WORKERS)
  if (!workers.available() && !("object" in batched && bytes >= WAIT_FOR_WORKERS.bytes && (await started(workers))))
    return undefined;
  // S26.1: the values a query's queries from the root were read to go with every job; past a few KB, the list is
  // read here instead
  if (plan.roots && jsonSizeUpTo(plan.roots, ROOT_SUMMARY_JOB_BYTES) > ROOT_SUMMARY_JOB_BYTES) return undefined;
  const members = "object" in batched;
  const { length, path } = members ? reader.objects[batched.object]! : reader.lists[batched.list]!;
  const counts: BatchCounts = {
    nodes: new Int32Array(batches),
    steps: new Float64Array(batches),
    by: {},
    watches: [],
  };
  const jobs: Promise<void>[] = [];
  // the part's merges, one after another in the list's order (a job's state waits for those before it)
  let merged: Promise<void> = Promise.resolve();
  let failed = false;
  // a job spent its share, or its worker stayed silent too long: the call is refused, never run again here (S21.1,
  // S21.4), with the words of what that job measured (S26.1)
  let over = false;
  let overWhy: { share: Partial<Record<CostKind, number>> } | { overrun: JobOverrun } | undefined;
  let overBytes = 0;
  // a job met an aggregate's limit on its own (S24.3): the call is refused with its words, nothing counted again
  let refused: string | undefined;
  let unread: ReadFailed | undefined;
  try {
    for await (const piece of reader.pieces(batched, members ? {} : plan.window(length))) {
      // a worker failed: the calling thread reads the list instead, so stop fetching for them
      if (failed || over || refused !== undefined) break;
      await workers.ready(meter);
      // Each job may spend BATCH_JOB_UNITS (one short hold, S21.4); what it spent is charged here as its counts are
      // taken.
      const job = {
        query: query.list,
        at: query.at,
        length,
        ...(members && { members }),
        bytes: piece.bytes,
        ranges: piece.ranges,
        ascii: piece.ascii,
        head: piece.head,
        ...(part && { aggregate: part.spec }),
        ...(plan.roots && { roots: plan.roots }),
      };
      const wanted = piece.ascii.length;
      const bytes = piece.bytes.byteLength + (piece.head?.byteLength ?? 0);
      let state: AggregationState | undefined;
      const answered = workers.count(job, meter).then(
        (reply) => {
          const { nodes, steps, watch } = reply;
          for (const [kind, units] of Object.entries(reply.by ?? {}))
            counts.by[kind as CostKind] = (counts.by[kind as CostKind] ?? 0) + units;
          if (watch) counts.watches.push(watch);
          if (reply.over) {
            over = true;
            overWhy ??= { share: reply.by ?? {} };
            overBytes ||= bytes;
          } else if (reply.refused !== undefined) refused ??= reply.refused;
          else if (nodes?.length !== wanted || steps?.length !== wanted || (part && !reply.aggregate))
            failed = true; // not the reply asked for
          else {
            for (let i = 0; i < wanted; i++)
              [counts.nodes[piece.batch + i], counts.steps[piece.batch + i]] = [nodes[i]!, steps[i]!];
            state = reply.aggregate;
          }
        },
        (error: unknown) => {
          if (!(error instanceof JobOverrun)) return void (failed = true);
          over = true;
          overWhy ??= { overrun: error };
          overBytes ||= bytes;
        },
      );
      jobs.push(answered);
      if (part)
        merged = merged
          .then(() => answered)
          .then(async () => {
            if (state && !failed && !over && refused === undefined && allCounted(counts, piece.batch, wanted))
              await part.mergeYielding(state);
            state = undefined; // merged or not needed: dropped
          })
          .catch((error: unknown) => {
            if (!(error instanceof ResultQueryError)) throw error;
            refused ??= error.message;
          });
    }
  } catch (error) {
    if (!(error instanceof ReadFailed)) throw error;
    unread = error; // the jobs handed out are awaited first
  }
  await Promise.all(jobs);
  await merged;
  if (refused !== undefined && !over) throw new ResultQueryError("INVALID_INPUT", refused);
  if (over) {
    // so the refusal names what cost most there
    for (const [kind, units] of Object.entries(counts.by)) meter.record(kind as CostKind, units);
    const counted = { kind: members ? "object" : "list", at: formatPath(path) } as const;
    if (overWhy && "overrun" in overWhy)
      throw meter.overrunRefusal(overWhy.overrun.ms, overWhy.overrun.silentMs, overBytes, counted);
    throw meter.shareRefusal(BATCH_JOB_UNITS, overWhy?.share ?? {}, overBytes, counted);
  }
  if (unread) throw unread;
  return failed || counts.nodes.some((nodes) => nodes < 0) ? undefined : counts;
}

/** Whether the workers loaded within WAIT_FOR_WORKERS.ms (false too when they failed to). */
function started(workers: BatchWorkers): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => (timer = unref(setTimeout(() => resolve(false), WAIT_FOR_WORKERS.ms))));
  return Promise.race([workers.warm(), late]).finally(() => clearTimeout(timer));
}

/** Whether the `wanted` batches from `batch` were all counted (none threw: -1). */
function allCounted(counts: BatchCounts, batch: number, wanted: number): boolean {
  for (let i = batch; i < batch + wanted; i++) if (counts.nodes[i]! < 0) return false;
  return true;
}

/** The batches the calling thread must read: those holding nodes of the page, counted from where `pager` stands. */
export function batchesToRead(counts: BatchCounts, pager: NodeSink): Set<number> {
  const read = new Set<number>();
  let before = pager.counted;
  for (let batch = 0; batch < counts.nodes.length; batch++) {
    const nodes = counts.nodes[batch]!;
    if (pager.onPage(before, nodes)) read.add(batch);
    before += nodes;
  }
  return read;
}

/**
 * Takes the counts of batches up to (not including) `upTo` that were not read, in order: their nodes for `total`, the
 * units they cost against the call's meter.
 */
export function takeCounts(counts: BatchCounts, from: number, upTo: number, pager: NodeSink, meter: CostMeter): void {
  const kinds = Object.entries(counts.by) as [CostKind, number][];
  const most = kinds.reduce<[CostKind, number]>((best, each) => (each[1] > best[1] ? each : best), ["nodes", -1])[0];
  for (let batch = from; batch < upTo; batch++) {
    meter.absorb(counts.steps[batch]!, most);
    pager.skip(counts.nodes[batch]!);
  }
}
