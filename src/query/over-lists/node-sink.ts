import type { JsonPathNode } from "../jsonpath/jsonpath.js";
import type { MemberWatch } from "../refusals/member-watch.js";
import type { AggregationState } from "../aggregate/aggregation.js";
import type { AggregateSpec } from "../aggregate/spec.js";

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
  /** Takes nodes counted on a batch worker (and, for an aggregate, the state it built of a job's batches). */
  skip(count: number, state?: AggregationState): void;
  readonly watch?: MemberWatch;
  /** The aggregate the workers build a state of, when the sink is one. */
  readonly aggregate?: AggregateSpec;
  /** Sees a worker's state as it comes, before its place in the list is reached; throws the aggregate's refusal. */
  seeGroups?(state: AggregationState): void;
}
