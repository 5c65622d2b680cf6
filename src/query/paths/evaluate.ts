/**
 * Evaluating a planned query without paging, for code that works on what a query selects: `search`
 * (S14.4) runs over the nodes, and `$result` references (S15) take the selected value whole.
 */
import { YIELDED, selectNodes, type CostMeter, type JsonPathNode } from "../jsonpath/jsonpath.js";
import { formatPath, resolveSegments } from "./path.js";
import type { QueryPlan } from "./plan.js";

/** One selected node; `path` (canonical, S7.5) is computed when first read. */
interface EvaluatedNode {
  readonly value: unknown;
  readonly path: string;
  /** Keys and indexes from the root (S7.5), made when first read. */
  readonly steps: (string | number)[];
  /** The values of the containers above it, nearest first. */
  ancestors(): Iterable<unknown>;
  /** Its key or index in its parent (undefined for the root). */
  key(): string | number | undefined;
}

export type Evaluation =
  { singular: true; value: unknown; steps: (string | number)[] } | { singular: false; nodes: EvaluatedNode[] };

/**
 * What `plan` selects in `answer`: the one value of a singular query (RESULT_PATH_NOT_FOUND when it
 * names nothing), or every node of any other query in the RFC's order (possibly none). Throws the
 * plan's refusal for a path of no form, and INVALID_INPUT when the query exceeds its meter's limit.
 */
function evaluate(answer: unknown, plan: QueryPlan, meter?: CostMeter): Evaluation {
  if (plan.kind === "refused") throw plan.error;
  if (plan.kind === "singular") return { singular: true, ...resolveSegments(answer, plan.segments, plan.path) };
  const nodes: EvaluatedNode[] = [];
  for (const node of selectNodes(plan.compiled, answer, plan.path, meter))
    if (node !== YIELDED) nodes.push(evaluated(node));
  return { singular: false, nodes };
}

/** `evaluate` for a call that must not hold the thread (S21.4): other calls are let in as the meter says. */
export async function evaluateYielding(answer: unknown, plan: QueryPlan, meter: CostMeter): Promise<Evaluation> {
  if (plan.kind !== "nodelist") return evaluate(answer, plan, meter);
  const nodes: EvaluatedNode[] = [];
  if (meter.shouldYield()) await meter.yieldToLoop(); // after a whole read's parse, before the evaluation
  for (const node of selectNodes(plan.compiled, answer, plan.path, meter)) {
    if (node !== YIELDED) nodes.push(evaluated(node));
    if (meter.shouldYield()) await meter.yieldToLoop();
  }
  return { singular: false, nodes };
}

function evaluated(node: JsonPathNode): EvaluatedNode {
  let path: string | undefined;
  let steps: (string | number)[] | undefined;
  return {
    value: node.value,
    get path() {
      return (path ??= formatPath(this.steps));
    },
    get steps() {
      return (steps ??= node.location()); // as long as the node is deep: made once, and only when read
    },
    ancestors: () => node.ancestors(),
    key: () => node.key(),
  };
}

/**
 * The value a `$result` reference names (S15): the value at a singular path, or the list of node values
 * for any other query; nothing cut, paged or field-filtered. Throws `ResultQueryError` as `result_query`
 * would (RESULT_PATH_NOT_FOUND, INVALID_INPUT). Charged to `meter` (S21.1), yielding as it goes (S21.4).
 */
export async function planValueYielding(answer: unknown, plan: QueryPlan, meter: CostMeter): Promise<unknown> {
  return valueOf(await evaluateYielding(answer, plan, meter));
}

const valueOf = (evaluation: Evaluation): unknown =>
  evaluation.singular ? evaluation.value : evaluation.nodes.map((node) => node.value);
