import type { JsonPathNode } from "../jsonpath/jsonpath.js";
import type { MemberWatch } from "../refusals/member-watch.js";
import type { Aggregation } from "../aggregate/aggregation.js";

/**
 * What takes a query's nodes as its lists are read: a nodelist's page (`NodelistPager`), or an aggregate
 * (`Aggregation`, S24), which the batch workers build a state of besides their counts.
 */
export interface NodeSink {
  /** Takes a node; false when the answer is known (a page refused as too large): stop reading. */
  add(node: JsonPathNode): boolean;
  /** Nodes taken so far. */
  readonly counted: number;
  /** Whether nodes `from` to `from + count - 1` (in the order counted) must be read here. */
  onPage(from: number, count: number): boolean;
  /** Takes nodes counted on a batch worker (an aggregate takes them with its part instead, `mergePart`). */
  skip(count: number): void;
  readonly watch?: MemberWatch;
  /** For an aggregate: a fresh part of it, which the batch workers' states of one list are merged into (S24.3). */
  part?(): Aggregation;
  /** For an aggregate: takes a list's part whole, once its jobs answered and their cost is charged. */
  mergePart?(part: Aggregation): Promise<void>;
}
