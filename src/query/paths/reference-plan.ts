/**
 * What a `{ "$result": handle, "path": … }` reference names (S15.1): the whole answer without a path, the
 * value at a singular path, the list of node values for any other query (S14.1). Nothing is cut or paged.
 * A path that names nothing throws the `RESULT_PATH_NOT_FOUND` of `result_query`, text and all. The path
 * is planned once: the plan says what the store reads and what is taken from it.
 */
import type { Selector } from "./selection.js";
import type { CostMeter } from "../cost.js";
import { planValueYielding } from "./evaluate.js";
import { planPath, selectorFor } from "./plan.js";

interface ReferencePlan {
  /** Which parts of a stored answer the reference needs: everything at its path, not one page of it (S8.5). */
  readonly select: Selector;
  /**
   * The value it names in `answer`, charged to `meter` (S21.1), yielding as it goes (S21.4); throws
   * `ResultQueryError`.
   */
  value(answer: unknown, meter: CostMeter): Promise<unknown>;
}

export function planReference(path: string | undefined): ReferencePlan {
  const plan = planPath(path ?? "$");
  return {
    select: selectorFor(plan, { offset: 0, limit: Number.MAX_SAFE_INTEGER }, { kind: "reference" }),
    value: async (answer, meter) => (path === undefined ? answer : planValueYielding(answer, plan, meter)),
  };
}
