/**
 * Counting a query's nodes in a list's batches on another thread (S14.6): what a batch worker runs. A
 * filter over a 10 MB list costs about one `JSON.parse` of it, on one thread; with the batches counted on
 * the machine's other cores, the calling thread only fetches and decrypts. A worker answers how many
 * nodes each batch gives and how many steps it took, never the nodes: the calling thread then reads the
 * few batches that hold the page itself (`answerOverBatches`), so the answer is exactly the one-thread answer.
 *
 * A job carries one piece's plaintext (moved, not copied, to the worker) and the byte ranges of the
 * batches that end in it; a batch begun in earlier pieces brings their bytes along (`head`). Keys never
 * leave the calling thread: a worker sees plaintext of the pieces it is handed, nothing else.
 */
import { bindRoots, compileJsonPath, CostMeter, type RootBindings } from "../jsonpath/jsonpath.js";
import { ResultQueryError } from "../../errors.js";
import { BATCH_JOB_UNITS } from "../../defaults.js";
import { admits, descendantsPlanAt, itemPlanOf, type ItemPlan } from "../jsonpath/item-plan.js";
import { decodeUtf8 } from "../../util/utf8.js";
import { MemberWatch, type WatchPlan, type WatchState } from "../refusals/member-watch.js";
import { AggregateLimitError, Aggregation, type AggregationState } from "../aggregate/aggregation.js";
import type { AggregateSpec } from "../aggregate/spec.js";
import type { JsonPathNode } from "../jsonpath/jsonpath.js";

export interface CountJob {
  /** The JSONPath query (compiled once per worker, kept for the next jobs of the same query). */
  readonly query: string;
  /**
   * For descendants by name read list by list: the list's steps (the item plan of `query`'s descendants at that list).
   */
  readonly at?: readonly (string | number)[];
  /** Items of the whole list (a slice's bounds depend on it). */
  readonly length: number;
  /**
   * Whether the batches are a wide object's member batches (`"key":value` joined by commas), selected by the plan's
   * `selectMembers` (S26.1), rather than a list's items.
   */
  readonly members?: boolean;
  readonly bytes: Uint8Array;
  /** Per batch: its first item, and its byte range in `bytes`, three numbers each. */
  readonly ranges: readonly number[];
  /** Whether the bytes of batch `i` are ASCII throughout (decoded faster). */
  readonly ascii: readonly boolean[];
  /** The bytes the first batch began with in earlier pieces, if it did. */
  readonly head?: Uint8Array;
  /** An aggregate (S24.3): the job also builds its figures over the nodes it counts. */
  readonly aggregate?: AggregateSpec;
  /** What the query's queries from the root inside filters were read to first, on the calling thread (S26.1). */
  readonly roots?: RootBindings;
}

/**
 * Per batch of the job: nodes selected and the units of cost spent (`CostMeter`), or -1 nodes when it
 * threw; `over` when the job's share was spent (the batches after it are not counted: the call is refused).
 */
export interface CountReply {
  readonly nodes: readonly number[];
  readonly steps: readonly number[];
  readonly over?: boolean;
  /** Units spent per kind of work in the whole job (what the refusal names as costing most). */
  readonly by?: Readonly<Record<string, number>>;
  /** Which names the query looks up its batches had, and keys where they had not (S18.2). */
  readonly watch?: WatchState;
  /** For an aggregate: its state over all the job's nodes, in order (S24.3). */
  readonly aggregate?: AggregationState;
  /**
   * An aggregate's refusal met in the job alone (more distinct values than AGGREGATE_LIMITS allow): the call is
   * refused with it at once (S24.3, S21.5), not counted again on the calling thread.
   */
  readonly refused?: string;
}

/**
 * A worker's answer to one message: never a throw, which would end the worker (a batch that fails is -1). `alive` is
 * called between two batches: the worker says so to the pool, which stops a worker only once it has been silent too
 * long (`BATCH_WORKER_SILENT_MS`).
 */
export function replyTo(
  { id, job }: { id: number; job: CountJob },
  alive: () => void = () => {},
): { id: number; reply: CountReply } {
  try {
    return { id, reply: countJob(job, alive) };
  } catch {
    const failed = job.ranges.filter((_, i) => i % 3 === 0).map(() => -1);
    return { id, reply: { nodes: failed, steps: failed.map(() => 0) } };
  }
}

let kept: { query: string; at: string; roots: string; plan: ItemPlan | undefined; watch: WatchPlan } | undefined;

/**
 * What a worker answers for `job`. Whatever a batch throws is told as -1: the calling thread evaluates that batch
 * itself, to throw the coded refusal where it belongs.
 */
function countJob(job: CountJob, alive: () => void): CountReply {
  const at = job.at ? JSON.stringify(job.at) + (job.members ? " members" : "") : ""; // the plan kept is the steps
  const roots = job.roots ? JSON.stringify(job.roots) : ""; // a few KB at most (ROOT_SUMMARY_JOB_BYTES)
  if (kept?.query !== job.query || kept.at !== at || kept.roots !== roots) {
    const compiled = job.roots ? bindRoots(compileJsonPath(job.query), job.roots) : compileJsonPath(job.query);
    const plan = itemPlanOf(compiled);
    const descendants = job.at && plan?.descendants;
    kept = {
      query: job.query,
      at,
      roots,
      plan: job.at
        ? descendants && descendantsPlanAt(job.at, descendants.segments, descendants.rest, job.members)
        : plan,
      watch: compiled.watch,
    };
  }
  const plan = kept.plan;
  const watch = kept.watch.watched.length > 0 ? new MemberWatch(kept.watch) : undefined;
  const nodes: number[] = [];
  const steps: number[] = [];
  // one job's share of a call (S21.1, S21.4): past it, it stops and says so
  const meter = new CostMeter(BATCH_JOB_UNITS);
  const aggregation = job.aggregate && new Aggregation(job.aggregate, job.query, undefined, meter);
  const take = aggregation && ((node: JsonPathNode) => aggregation.add(node));
  for (let i = 0; i < job.ranges.length / 3; i++) {
    if (i > 0) alive();
    const [first, from, to] = [job.ranges[3 * i]!, job.ranges[3 * i + 1]!, job.ranges[3 * i + 2]!];
    const body = decodeUtf8(job.bytes.subarray(from, to), job.ascii[i]);
    const text = i === 0 && job.head ? decodeUtf8(job.head, false) + body : body;
    const counted = plan ? countBatch(plan, job, first, text, meter, watch, take) : { nodes: -1, steps: 0 };
    if (counted.over) return { nodes, steps, over: true, by: meter.by }; // its share is spent: stop at once (S21.1)
    if (counted.refused) return { nodes, steps, refused: counted.refused, by: meter.by };
    nodes.push(counted.nodes);
    steps.push(counted.steps);
  }
  const reply: CountReply = {
    nodes,
    steps,
    by: meter.by,
    ...(watch && { watch: watch.state() }),
    ...(aggregation && { aggregate: aggregation.state() }),
  };
  return reply;
}

/**
 * Nodes of one batch (its JSON text: items, or a wide object's members, joined by commas), as the calling thread would
 * select them.
 */
function countBatch(
  plan: ItemPlan,
  { query, length, members }: CountJob,
  first: number,
  text: string,
  meter = new CostMeter(),
  watch?: MemberWatch,
  /** Takes each node (an aggregate's, S24.3), besides counting it. */
  take?: (node: JsonPathNode) => void,
): { nodes: number; steps: number; over?: boolean; refused?: string } {
  if (!admits(plan, text)) return (watch?.skipped(text), { nodes: 0, steps: 0 }); // not even parsed there
  const before = meter.spent;
  meter.watch = watch;
  try {
    let nodes = 0;
    const parsed = JSON.parse(members ? `{${text}}` : `[${text}]`) as unknown;
    if (members && !take && plan.countMembers)
      return { nodes: plan.countMembers(parsed as Record<string, unknown>, meter), steps: meter.spent - before };
    const selected = members
      ? plan.selectMembers!(parsed as Record<string, unknown>, meter, query)
      : plan.select(parsed as unknown[], first, length, meter, query);
    if (take) for (const node of selected) (take(node), nodes++);
    else for (const _ of selected) nodes++;
    return { nodes, steps: meter.spent - before };
  } catch (error) {
    const over = error instanceof ResultQueryError && meter.spent > meter.limit;
    const refused = error instanceof AggregateLimitError ? error.message : undefined;
    return { nodes: -1, steps: meter.spent - before, over, ...(refused !== undefined && { refused }) };
  }
}
