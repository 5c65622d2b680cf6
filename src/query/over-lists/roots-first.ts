/**
 * Queries from the root inside a filter, read first (S26.1, S21.4, S21.5). `$.a[?count($.b[*]) > 0]`,
 * `$[?@ == $.k5]` and `$.rows[?count($..*) == N].id` read the root, so they read the whole answer and evaluated it
 * in memory (a million-key object or 10 MB of rows: 1.5-4.3 s, the loop held 110-190 ms at a time). But such a
 * query selects the same nodes for every item, and a filter reads only its length, whether it is empty, or the
 * value of its one node (`rootUses`). So each is read first from the same reader, reading only that:
 * - a singular query (`$.k5`, `$.b[3].x`) as a `$result` reference to it is read (only the batches that hold it,
 *   S16.4), giving its value or nothing;
 * - any other as a query of its own streams (an indexed list's or a wide object's batches, descendants by name,
 *   what lies outside the lists), its nodes counted, not kept (`RootCount`), on the batch workers too; an
 *   existence test stops at the first node;
 * - descendants of everything (`$..*`, `$.data..*`): what lies outside the lists walked, and each list and wide
 *   object counted batch by batch where it stands (`countDescendants`).
 * Then the outer query runs with them bound (`bindRoots`): it no longer reads the root, so it streams as any
 * filter does. A query from the root that cannot be read so (or an outer query that would still read the whole
 * answer) leaves the query as it was: read whole, as before. All of it on the call's one meter and store deadline
 * (the reader's), yielding as the reads and walks do.
 */
import type { AnswerReader } from "../../records/read/answer-reader.js";
import { DescendantSegment, namesThenWildcard } from "../json-p3-classes.js";
import {
  bindRoots,
  selectNodes,
  YIELDED,
  type CompiledJsonPath,
  type CostMeter,
  type JsonPathNode,
  type RootSummary,
} from "../jsonpath/jsonpath.js";
import { itemPlanOf } from "../jsonpath/item-plan.js";
import { rootUses, type RootNeed } from "../jsonpath/root-queries.js";
import { planPath, selectorFor, type QueryArguments, type QueryPlan } from "../paths/plan.js";
import { valueAtSegments } from "../paths/path.js";
import { readSelection, selectionOf } from "../paths/selection.js";
import { hasOwn, keyListOf } from "../../util/json.js";
import type { BatchWorkers } from "../workers/pool.js";
import { descendantNodes } from "./descendants-over-lists.js";
import { listNodes } from "./list-nodes.js";
import { memberNodes } from "./member-nodes.js";
import type { NodeSink } from "./node-sink.js";

type NodelistPlan = Extract<QueryPlan, { kind: "nodelist" }>;
type PageMode = { readonly kind: "page"; readonly sliceLimitBytes: number };

/** One query from the root, read: its summary. */
type RootRead = (meter: CostMeter, workers: BatchWorkers | undefined) => Promise<RootSummary>;

/** The reads that bind the queries from the root of one compiled query, by their places in its `roots`. */
type RootReads = { readonly at: readonly number[]; readonly read: RootRead }[];

/**
 * `plan` with its queries from the root read first from `reader` and bound (S26.1), or `plan` as it is when it reads
 * none, when one of them cannot be read in part, or when the bound query would still read the whole answer. Throws
 * what the reads throw (the reader's `ReadFailed`, the meter's refusal).
 */
export async function readRootsFirst(
  reader: AnswerReader,
  plan: QueryPlan,
  args: Pick<QueryArguments, "offset" | "limit" | "page" | "search" | "fields" | "aggregate">,
  mode: PageMode,
  workers: BatchWorkers | undefined,
  meter: CostMeter,
): Promise<QueryPlan> {
  if (plan.kind !== "nodelist" || !plan.compiled.usesRoot || reader.whole || args.search !== undefined) return plan;
  // bound, would it still read the whole answer? Then the roots are read from it, as before
  if (selectionOf(reader, selectorFor(unbound(plan), args, mode)) === "all") return plan;
  const reads = plannedReads(plan.compiled, reader, mode);
  if (!reads) return plan;
  const compiled = await bound(plan.compiled, reads, meter, workers);
  return { ...plan, compiled, items: itemPlanOf(compiled) };
}

/** `plan` as if its queries from the root were bound: only to see what it would read. */
function unbound(plan: NodelistPlan): NodelistPlan {
  const compiled = { ...plan.compiled, usesRoot: false, hoisted: [] };
  return { ...plan, compiled, items: itemPlanOf(compiled) };
}

/** How to read each query from the root of `compiled` (nested ones inside each), or undefined when one cannot be. */
function plannedReads(compiled: CompiledJsonPath, reader: AnswerReader, mode: PageMode): RootReads | undefined {
  const uses = rootUses(compiled);
  if (!uses) return undefined;
  const reads: RootReads = [];
  for (const { query, need, at } of uses) {
    const read = plannedRead(query, need, reader, mode);
    if (!read) return undefined;
    reads.push({ at, read });
  }
  return reads;
}

/** `compiled` bound to what `reads` read, one after another. */
async function bound(
  compiled: CompiledJsonPath,
  reads: RootReads,
  meter: CostMeter,
  workers: BatchWorkers | undefined,
): Promise<CompiledJsonPath> {
  const bindings: (RootSummary | null)[] = compiled.roots.map(() => null);
  for (const { at, read } of reads) {
    if (meter.shouldYield()) await meter.yieldToLoop();
    const summary = await read(meter, workers);
    for (const place of at) bindings[place] = summary;
  }
  return bindRoots(compiled, bindings);
}

/** How to read one query from the root (its text) for `need`, or undefined when only the whole answer would do. */
function plannedRead(query: string, need: RootNeed, reader: AnswerReader, mode: PageMode): RootRead | undefined {
  const plan = planPath(query);
  if (plan.kind === "refused") return undefined;
  if (plan.kind === "singular") {
    if (plan.segments.length === 0) return undefined; // `$` itself: the whole answer
    // read as a `$result` reference to it is read (S15.1, S16.4): the batches that hold it; through a wide object's
    // member, the batches that may hold that member (where a reference reads the object whole)
    let selection = selectionOf(
      reader,
      selectorFor(plan, { offset: 0, limit: Number.MAX_SAFE_INTEGER }, { kind: "reference" }),
    );
    const named = selection === "all" ? selectionOf(reader, selectorFor(plan, {}, mode)) : undefined;
    if (typeof named === "object" && "keys" in named) selection = named;
    if (selection === "all" || (typeof selection === "object" && "stream" in selection)) return undefined;
    return async () => {
      const found = valueAtSegments(await readSelection(reader, selection), plan.segments);
      return found ? { count: 1, value: found.value } : { count: 0 };
    };
  }
  // its own queries from the root first, then it streams as a query of its own
  const nested = plan.compiled.usesRoot ? plannedReads(plan.compiled, reader, mode) : [];
  if (!nested) return undefined;
  const ready = (meter: CostMeter, workers: BatchWorkers | undefined) =>
    nested.length > 0 ? bound(plan.compiled, nested, meter, workers) : Promise.resolve(plan.compiled);
  const selection = selectionOf(reader, selectorFor({ ...unbound(plan), members: undefined }, {}, mode));
  if (selection === "outside")
    // all its nodes are in what lies outside the lists (`selectorFor`)
    return async (meter, workers) => {
      const compiled = await ready(meter, workers);
      const root = await reader.outside();
      const sink = new RootCount(need);
      for (const node of selectNodes(compiled, root, query, meter)) {
        if (node === YIELDED) {
          if (meter.shouldYield()) await meter.yieldToLoop();
        } else if (!sink.add(node)) break;
      }
      return sink.summary();
    };
  if (typeof selection === "object" && "stream" in selection)
    return async (meter, workers) => {
      const compiled = await ready(meter, workers);
      const items = itemPlanOf(compiled)!;
      const sink = new RootCount(need);
      // a count reads every batch: on the batch workers when the list is large; a test or a value stops early
      const counting = need.stopAt === Infinity ? workers : undefined;
      if (selection.stream === "all") {
        await reader.outside();
        await descendantNodes(reader, items, query, sink, meter, counting);
      } else if ("object" in selection)
        await memberNodes(reader, selection.object, items, query, sink, meter, counting);
      else await listNodes(reader, selection.stream, items, { list: query, asked: query }, sink, meter, counting);
      return sink.summary();
    };
  const everything = nested.length === 0 ? descendantsOfAll(plan.compiled, reader, need) : undefined;
  return everything && ((meter) => countDescendants(reader, everything, need, meter));
}

/** A query's nodes counted as they come, the value of the first kept when it is read (`RootNeed`). */
class RootCount implements NodeSink {
  counted = 0;
  private first: unknown;
  constructor(private readonly need: RootNeed) {}
  add(node: JsonPathNode): boolean {
    return this.take(node.value);
  }
  /** Counts one node of `value`; false once `need.stopAt` is reached. */
  take(value: unknown): boolean {
    if (this.counted++ === 0 && this.need.value) this.first = value;
    return this.counted < this.need.stopAt;
  }
  /** The first node is read here when its value is needed; every other is only counted (on the workers too). */
  onPage(from: number, count: number): boolean {
    return this.need.value && from === 0 && count > 0;
  }
  skip(count: number): void {
    this.counted += count;
  }
  summary(): RootSummary {
    const count = Math.min(this.counted, this.need.stopAt);
    return count === 1 && this.need.value ? { count, value: this.first } : { count };
  }
}

/** Where descendants of everything start (`$..*`, `$.data..*`): the names there, and the part standing there. */
interface Everything {
  readonly names: readonly string[];
  readonly part?: { readonly list: number } | { readonly object: number };
}

/**
 * For a query that is names and then `..*` (`..[*]`) alone: where it starts, unless that is inside a wide object (whose
 * members outside it has not read), or its one node's value is read and a long string lies under it (what lies outside
 * holds a long string as "", so `value($.a..*)` of `{ a: { s: <long string> } }` would read "").
 */
function descendantsOfAll(compiled: CompiledJsonPath, reader: AnswerReader, need: RootNeed): Everything | undefined {
  const names = namesThenWildcard(compiled.query.segments, DescendantSegment);
  if (!names) return undefined;
  const same = (path: readonly string[]) => path.length === names.length && path.every((key, i) => key === names[i]);
  const under = (path: readonly string[]) => path.length < names.length && path.every((key, i) => key === names[i]);
  if (reader.objects.some(({ path }) => under(path))) return undefined;
  const below = (path: readonly string[]) => path.length > names.length && names.every((key, i) => key === path[i]);
  if (need.value && reader.strings.some(({ path }) => below(path))) return undefined;
  const list = reader.lists.findIndex(({ path }) => same(path));
  if (list >= 0) return { names, part: { list } };
  const object = reader.objects.findIndex(({ path }) => same(path));
  return object >= 0 ? { names, part: { object } } : { names };
}

/**
 * How many nodes `$<names>..*` selects (up to `need.stopAt`): every value under the start, what lies outside the
 * lists walked, and each list's items and each wide object's members counted batch by batch where they stand, with
 * everything under them; and when it selects one and its value is read (`value($.a..*)`), that value. Each node is
 * charged as the walk of `..*` charges it (S21.1); the batches yield as they are read, the walk outside every
 * YIELD_AFTER_MS (S21.4).
 */
async function countDescendants(
  reader: AnswerReader,
  { names, part }: Everything,
  need: RootNeed,
  meter: CostMeter,
): Promise<RootSummary> {
  // the first node's value is the one node's, when it selects one (a part is never that node)
  const sink = new RootCount(need);
  /** Counts one node, charged; false once `need.stopAt` is reached. */
  const counted = (value: unknown): boolean => {
    meter.charge("nodes");
    return sink.take(value);
  };
  /** Counts `value`'s node and every node under it; false once `need.stopAt` is reached. */
  const node = (value: unknown): boolean => {
    const pending = [value];
    while (pending.length > 0) {
      const item = pending.pop();
      if (!counted(item)) return false;
      if (item === null || typeof item !== "object") continue;
      if (Array.isArray(item)) for (let i = 0; i < item.length; i++) pending.push(item[i]);
      else for (const key of keyListOf(item)) pending.push((item as Record<string, unknown>)[key]);
    }
    return true;
  };
  const batches = async (part: { list: number } | { object: number }): Promise<boolean> => {
    if ("list" in part) {
      for await (const batch of reader.batches(part.list))
        for (const item of batch.items()) if (!node(item)) return false;
    } else
      for await (const batch of reader.memberBatches(part.object)) {
        const members = batch.members();
        for (const key of Object.keys(members)) if (!node(members[key])) return false;
      }
    return true;
  };
  const done = (): RootSummary => sink.summary();
  if (part) {
    await batches(part);
    return done();
  }
  let start: unknown = await reader.outside();
  for (const name of names) {
    if (start === null || typeof start !== "object" || Array.isArray(start) || !hasOwn(start, name)) return done();
    start = (start as Record<string, unknown>)[name];
  }
  // the walk outside the parts: a container's children, each counted; a part where it stands, batch by batch
  const pending: unknown[] = [start];
  let looked = 0;
  while (pending.length > 0) {
    const value = pending.pop();
    if (value === null || typeof value !== "object") continue;
    if (++looked % 1024 === 0 && meter.shouldYield()) await meter.yieldToLoop();
    if (Array.isArray(value)) {
      for (const item of value) if (!node(item)) return done(); // nothing stands inside a list's items
      continue;
    }
    for (const key of keyListOf(value)) {
      const at = reader.partAt(value, key);
      if (!counted((value as Record<string, unknown>)[key])) return done();
      if (at) {
        if (!(await batches(at))) return done();
      } else pending.push((value as Record<string, unknown>)[key]);
    }
  }
  return done();
}
