/**
 * Shortcuts the tests use over the query's own steps: a path parsed and resolved in one call, the value a
 * reference names, the selector of a query's arguments. The package plans a path once and passes the plan on.
 */
import { parsePath, resolveSegments } from "../../src/query/paths/path.js";
import { planValueYielding } from "../../src/query/paths/evaluate.js";
import { answerPlanYielding, type QueryResult } from "../../src/query/query.js";
import { CostMeter } from "../../src/query/cost.js";
import { planPath, selectorFor, type QueryArguments } from "../../src/query/paths/plan.js";
import type { Selector } from "../../src/query/paths/selection.js";

/** Follows `path` (any form of S7.2) through own properties only, as a singular query does. */
export const resolvePath = (root: unknown, path: string) => resolveSegments(root, parsePath(path), path);

/** What `{ "$result": handle, "path": path }` names in `answer` (S15.1), evaluated as a tool call does. */
export const resolveReferenceValue = (answer: unknown, path: string): Promise<unknown> =>
  planValueYielding(answer, planPath(path), new CostMeter());

/** The pieces a store reads for `args` (S8.5). */
export const selectForQuery = (args: QueryArguments, mode: Parameters<typeof selectorFor>[2]): Selector =>
  selectorFor(planPath(args.path), args, mode);

/**
 * What `result_query` answers for `args` over `answer` held whole, as a tool call evaluates it: the path
 * planned, then answered metered and yielding (`answerPlanYielding`; S7.2 to S7.6, S21.1, S21.4).
 */
export async function answerWhole(
  answer: unknown,
  args: QueryArguments,
  sliceLimitBytes: number,
  meter = new CostMeter(),
): Promise<QueryResult> {
  return answerPlanYielding(answer, planPath(args.path), args, sliceLimitBytes, meter);
}
