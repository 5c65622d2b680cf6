/**
 * An aggregate over an answer read whole (S24): the nodes the query selects, as a nodelist would walk
 * them (`selectNodes`, charged to the call's meter, yielding between nodes, S21.4), taken
 * by an `Aggregation` instead of a page. Over a list read batch by batch the same `Aggregation` takes the
 * batches' nodes, or the batch workers' states (`answerOverBatches`).
 */
import { ResultQueryError } from "../../errors.js";
import { quoteArgument } from "../../util/quote-argument.js";
import { formatPath, type PathSegment } from "../canonical-path.js";
import { YIELDED, selectNodes, type CostMeter } from "../jsonpath/jsonpath.js";
import type { QueryArguments, QueryPlan } from "../paths/plan.js";
import { Aggregation, type AggregateResult } from "./aggregation.js";
import type { AggregateSpec } from "./spec.js";

export type NodelistPlan = Extract<QueryPlan, { kind: "nodelist" }>;

/**
 * The plan an aggregate runs over, refused before anything is read: a path of no form, or one naming a
 * single value (an aggregate counts the nodes a query selects), whose refusal names the query that works.
 */
export function aggregatePlan(plan: QueryPlan): NodelistPlan {
  if (plan.kind === "refused") throw plan.error;
  if (plan.kind === "nodelist") return plan;
  const at = plan.path.startsWith("$") ? plan.path : formatPath(plan.segments.map(stepOf));
  throw new ResultQueryError(
    "INVALID_INPUT",
    `aggregate counts the nodes a JSONPath query selects, and path ${quoteArgument(plan.path)} names one value: ` +
      `use ${quoteArgument(`${at}[*]`)} for the items of a list there, ` +
      `or a filter such as ${quoteArgument(`${at}[?@.status == 'open']`)}.`,
  );
}

function stepOf(segment: PathSegment): string | number {
  if (segment.kind === "name") return segment.name;
  if (segment.kind === "index") return segment.index;
  return /^(0|[1-9][0-9]*)$/.test(segment.token) ? Number(segment.token) : segment.token;
}

/** An aggregate over `answer` read whole, on this thread without yielding (what tests and a reference compare with). */
export function aggregateWhole(
  answer: unknown,
  plan: NodelistPlan,
  spec: AggregateSpec,
  args: QueryArguments,
  sliceLimitBytes: number,
  meter?: CostMeter,
): AggregateResult {
  const aggregation = new Aggregation(spec, plan.path, plan.compiled.watch, meter);
  return deepRefused(plan.path, () => {
    for (const node of selectNodes(plan.compiled, answer, plan.path, meter, aggregation.watch))
      if (node !== YIELDED) aggregation.add(node);
    return aggregation.result(args, sliceLimitBytes);
  });
}

/**
 * `aggregateWhole` as a tool call runs it: yielding whenever the meter says the thread was held long
 * enough (S21.4).
 */
export async function aggregateWholeYielding(
  answer: unknown,
  plan: NodelistPlan,
  spec: AggregateSpec,
  args: QueryArguments,
  sliceLimitBytes: number,
  meter: CostMeter,
): Promise<AggregateResult> {
  const aggregation = new Aggregation(spec, plan.path, plan.compiled.watch, meter);
  if (meter.shouldYield()) await meter.yieldToLoop();
  try {
    for (const node of selectNodes(plan.compiled, answer, plan.path, meter, aggregation.watch)) {
      if (node !== YIELDED) aggregation.add(node);
      if (meter.shouldYield()) await meter.yieldToLoop();
    }
  } catch (error) {
    throw tooDeepToAggregate(plan.path, error);
  }
  return aggregation.result(args, sliceLimitBytes);
}

function deepRefused<T>(path: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw tooDeepToAggregate(path, error);
  }
}

/** A node nested deeper than the engine's stack: a coded refusal, never a crash (S14.3); anything else as it was. */
export function tooDeepToAggregate(path: string, error: unknown): unknown {
  if (error instanceof RangeError)
    return new ResultQueryError(
      "INVALID_INPUT",
      `Path ${quoteArgument(path)} selects values nested too deeply to aggregate: use a deeper path.`,
    );
  return error;
}
