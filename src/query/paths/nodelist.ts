/**
 * A nodelist answer (S14.2): the nodes a non-singular JSONPath query selects, in the RFC's order, paged by
 * `offset`/`limit`/`page` (default 20), `fields` applied to each object node, the size rule of S7.6 on
 * the page's values. Only the page is kept: the rest of the nodes are counted for `total` and dropped.
 *
 * `path` in the result is the query as given (no single canonical path names a nodelist), cut like a
 * quoted argument (S7.10) so a long query is not echoed whole; each node's canonical path is in `paths`.
 */
import { DEFAULT_LIMITS } from "../../defaults.js";
import { sliceAllowances } from "../../config.js";
import { cutForMessage } from "../../util/quote-argument.js";
import { jsonSizeUpTo } from "../../util/size.js";
import { YIELDED, type CostMeter, type JsonPathNode, type Yielded } from "../jsonpath/jsonpath.js";
import { fieldPicker } from "./page.js";
import { checkFieldsFound } from "../refusals/refusals.js";
import { MemberWatch, type WatchPlan } from "../refusals/member-watch.js";
import { formatPath } from "./path.js";
import { sliceWindow, type QueryArguments } from "./plan.js";

/** A nodelist page (S14.2), or how many nodes fit when the page would pass the size limit (S7.6). */
export type NodelistPage =
  | {
      fits: true;
      result: {
        path: string;
        value: unknown[];
        paths: string[];
        total: number;
        offset: number;
        nextOffset?: number;
        note?: string;
      };
    }
  | { fits: false; fit: number; bytes: number; offset: number };

export function nodelistPage(
  nodes: (watch: MemberWatch | undefined) => Iterable<JsonPathNode | Yielded>,
  query: string,
  args: QueryArguments,
  sliceLimitBytes: number,
  watch?: WatchPlan,
): NodelistPage {
  const pager = new NodelistPager(query, args, sliceLimitBytes, watch);
  for (const node of nodes(pager.watch)) if (node !== YIELDED && !pager.add(node)) break;
  return pager.page();
}

/**
 * `nodelistPage` for a call that must not hold the thread (S21.4): between two nodes, and where the
 * evaluation yields inside one segment (`YIELDED`: a filter's items, a wildcard's nodes, a descendant
 * walk), once `meter` says the thread was held long enough, other calls are let in (the evaluation
 * resumes with its own meter).
 */
export async function nodelistPageYielding(
  nodes: (watch: MemberWatch | undefined) => Iterable<JsonPathNode | Yielded>,
  query: string,
  args: QueryArguments,
  sliceLimitBytes: number,
  meter: CostMeter,
  watch?: WatchPlan,
): Promise<NodelistPage> {
  const pager = new NodelistPager(query, args, sliceLimitBytes, watch);
  if (meter.shouldYield()) await meter.yieldToLoop(); // after the read, before the evaluation: two holds, not one
  for (const node of nodes(pager.watch)) {
    if (node !== YIELDED && !pager.add(node)) break;
    if (meter.shouldYield()) await meter.yieldToLoop();
  }
  return pager.page();
}

/** A nodelist page built node by node, for nodes that come in parts (a list read in batches, S14.6). */
export class NodelistPager {
  private readonly offset: number;
  private readonly limit: number;
  private readonly pick: ReturnType<typeof fieldPicker>;
  private readonly path: string;
  private readonly value: unknown[] = [];
  private readonly read: unknown[] = []; // the page's nodes before fields: a field naming no key of any says so (S14.5)
  private readonly paths: string[] = [];
  private bytes = 2; // []
  private total = 0;
  private refused = false;
  /** The names the query looks up, as the evaluation finds them (S18.2): an empty answer says which no node had. */
  readonly watch?: MemberWatch;
  /** Up to this, a node is measured exactly (S26.1). */
  private readonly exactBytes: number;

  constructor(
    query: string,
    private readonly args: QueryArguments,
    private readonly sliceLimitBytes: number,
    watch?: WatchPlan,
  ) {
    ({ offset: this.offset, limit: this.limit } = sliceWindow(args, DEFAULT_LIMITS.nodes));
    this.exactBytes = sliceAllowances(sliceLimitBytes).exactBytes;
    this.pick = fieldPicker(args.fields);
    this.path = cutForMessage(query);
    if (watch && watch.watched.length > 0) this.watch = new MemberWatch(watch);
  }

  /** Counts a node, keeping it when on the page; false when the page is over the size limit (stop: it is refused). */
  add(node: JsonPathNode): boolean {
    const { offset, limit, pick, value } = this;
    if (this.total >= offset && this.total - offset < limit) {
      const kept = pick ? pick(node.value) : node.value;
      // never a huge node measured whole (S26.1)
      this.bytes +=
        jsonSizeUpTo(kept, Math.max(this.sliceLimitBytes - this.bytes, this.exactBytes)) + (value.length > 0 ? 1 : 0);
      // Stop at the first node past the limit (S16.1): a union naming one large node 2000 times costs one.
      if (this.bytes > this.sliceLimitBytes) return !(this.refused = true);
      if (pick) this.read.push(node.value);
      value.push(kept);
      this.paths.push(formatPath(node.location()));
    }
    this.total++;
    return true;
  }

  /** Nodes counted so far. */
  get counted(): number {
    return this.total;
  }

  /** Whether nodes `from` to `from + count - 1` (in the order counted) hold any of the page's. */
  onPage(from: number, count: number): boolean {
    return count > 0 && from < this.offset + this.limit && from + count > this.offset;
  }

  /** Counts nodes known to lie off the page (counted on another thread, `takeCounts`). */
  skip(count: number): void {
    if (this.onPage(this.total, count) && !this.refused) {
      throw new Error("unreachable: nodes of the page were counted without being read");
    }
    this.total += count;
  }

  page(): NodelistPage {
    const { offset, value, total, path } = this;
    if (this.pick) checkFieldsFound(this.read, value, this.args.fields!, { path, offset });
    if (this.refused) return { fits: false, fit: value.length, bytes: this.bytes, offset };
    const result: Extract<NodelistPage, { fits: true }>["result"] = {
      path,
      value,
      paths: this.paths,
      total,
      offset: Math.min(offset, total),
    };
    if (offset + value.length < total) result.nextOffset = offset + value.length;
    // S25.3: a first page of a longer nodelist says how to count without reading (the model read 20 rows for one
    // number).
    const note =
      total === 0
        ? this.watch?.note()
        : result.nextOffset !== undefined && offset === 0 && this.args.limit === undefined
          ? countNote(total)
          : undefined;
    if (note) result.note = note;
    return { fits: true, result };
  }
}

/** S25.3: what a first page of a longer nodelist says. */
function countNote(total: number): string {
  return `total is the count of all ${total} nodes: a call with limit 1 answers it without reading them`;
}
