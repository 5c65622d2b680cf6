/**
 * Counting a query's nodes in a list's batches on another thread (S14.6): what a batch worker runs. A
 * filter over a 10 MB list costs about one `JSON.parse` of it, on one thread; with the batches counted on
 * the machine's other cores, the calling thread only fetches and decrypts. A worker answers how many
 * nodes each batch gives and how many steps it took, never the nodes: the calling thread then reads the
 * few batches that hold the page itself (over-batches.ts), so the answer is exactly the one-thread answer.
 *
 * A job carries one piece's plaintext (moved, not copied, to the worker) and the byte ranges of the
 * batches that end in it; a batch begun in earlier pieces brings their bytes along (`head`). Keys never
 * leave the calling thread: a worker sees plaintext of the pieces it is handed, nothing else.
 */
import { compileJsonPath, QueryBudget } from "../jsonpath/jsonpath.js";
import { admits, descendantsPlanAt, itemPlanOf, type ItemPlan } from "../over-lists/item-plan.js";
import { decodeUtf8 } from "../../util/size.js";
import { MemberWatch, type WatchPlan, type WatchState } from "../refusals/member-watch.js";

export interface CountJob {
  /** The JSONPath query (compiled once per worker, kept for the next jobs of the same query). */
  readonly query: string;
  /** For descendants by name read list by list: the list's steps (the item plan of `query`'s descendants at that list). */
  readonly at?: readonly (string | number)[];
  /** Items of the whole list (a slice's bounds depend on it). */
  readonly length: number;
  readonly bytes: Uint8Array;
  /** Per batch: its first item, and its byte range in `bytes`, three numbers each. */
  readonly ranges: readonly number[];
  /** Whether the bytes of batch `i` are ASCII throughout (decoded faster). */
  readonly ascii: readonly boolean[];
  /** The bytes the first batch began with in earlier pieces, if it did. */
  readonly head?: Uint8Array;
}

/** Per batch of the job: nodes selected and steps taken (jsonpath-steps.ts `tick`), or -1 nodes when it threw. */
export interface CountReply {
  readonly nodes: readonly number[];
  readonly steps: readonly number[];
  /** Which names the query looks up its batches had, and keys where they had not (S18.2). */
  readonly watch?: WatchState;
}

/** A worker's answer to one message: never a throw, which would end the worker (a batch that fails is -1). */
export function replyTo({ id, job }: { id: number; job: CountJob }): { id: number; reply: CountReply } {
  try {
    return { id, reply: countJob(job) };
  } catch {
    const failed = job.ranges.filter((_, i) => i % 3 === 0).map(() => -1);
    return { id, reply: { nodes: failed, steps: failed.map(() => 0) } };
  }
}

let kept: { query: string; at: string; plan: ItemPlan | undefined; watch: WatchPlan } | undefined;

/** What a worker answers for `job`. Whatever a batch throws is told as -1: the calling thread evaluates that batch itself, to throw the coded refusal where it belongs. */
export function countJob(job: CountJob): CountReply {
  const at = job.at ? JSON.stringify(job.at) : "";
  if (kept?.query !== job.query || kept.at !== at) {
    const compiled = compileJsonPath(job.query);
    const plan = itemPlanOf(compiled);
    const descendants = job.at && plan?.descendants;
    kept = { query: job.query, at, plan: job.at ? descendants && descendantsPlanAt(job.at, descendants.segments, descendants.rest) : plan, watch: compiled.watch };
  }
  const plan = kept.plan;
  const watch = kept.watch.watched.length > 0 ? new MemberWatch(kept.watch) : undefined;
  const nodes: number[] = [];
  const steps: number[] = [];
  for (let i = 0; i < job.ranges.length / 3; i++) {
    const [first, from, to] = [job.ranges[3 * i]!, job.ranges[3 * i + 1]!, job.ranges[3 * i + 2]!];
    const body = decodeUtf8(job.bytes.subarray(from, to), job.ascii[i]);
    const text = i === 0 && job.head ? decodeUtf8(job.head, false) + body : body;
    const counted = plan ? countBatch(plan, job.query, job.length, first, text, watch) : { nodes: -1, steps: 0 };
    nodes.push(counted.nodes);
    steps.push(counted.steps);
  }
  return watch ? { nodes, steps, watch: watch.state() } : { nodes, steps };
}

/** Nodes of one batch (its JSON text: items joined by commas), as the calling thread would select them. */
export function countBatch(plan: ItemPlan, query: string, length: number, first: number, text: string, watch?: MemberWatch): { nodes: number; steps: number } {
  if (!admits(plan, text)) return watch?.skipped(text), { nodes: 0, steps: 0 }; // not even parsed there
  const budget = new QueryBudget();
  budget.watch = watch;
  try {
    let nodes = 0;
    for (const _ of plan.select(JSON.parse(`[${text}]`) as unknown[], first, length, budget, query)) nodes++;
    return { nodes, steps: budget.work };
  } catch {
    return { nodes: -1, steps: budget.work };
  }
}
