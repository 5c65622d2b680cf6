/**
 * What a `{ "$result": handle, "path": … }` reference names (S15.1): the whole answer without a path, the
 * value at a singular path, the list of node values for any other query (S14.1). Nothing is cut or paged.
 * A path that names nothing throws the `RESULT_PATH_NOT_FOUND` of `result_query`, text and all.
 */
import type { Selector } from "../records/answer-index.js";
import { resolveReferenceValue } from "./evaluate.js";
import { planPath, selectorFor } from "./plan.js";

/** The value `path` names in `answer` (the whole answer when `path` is undefined); throws `ResultQueryError`. */
export function referenceValue(answer: unknown, path: string | undefined): unknown {
  if (path === undefined) return answer;
  return resolveReferenceValue(answer, path);
}

/** Which parts of a stored answer the reference needs: everything at its path, not one page of it (S8.5). */
export function referenceSelector(path: string | undefined): Selector {
  return selectorFor(planPath(path ?? "$"), { offset: 0, limit: Number.MAX_SAFE_INTEGER });
}
