/**
 * What a `{ "$result": handle, "path": … }` reference names (S15.1), in one place so the query front
 * (today the singular paths of S7.2; with S14.1, JSONPath) changes here only: the whole answer without a
 * path, the value at a singular path, the list of node values for any other query. Nothing is cut or
 * paged. A path that names nothing throws the `RESULT_PATH_NOT_FOUND` of `result_query`, text and all.
 */
import type { Selector } from "../records/answer-index.js";
import { selectForQuery } from "./plan.js";
import { resolvePath } from "./path.js";

/** The value `path` names in `answer` (the whole answer when `path` is undefined); throws `ResultQueryError`. */
export function referenceValue(answer: unknown, path: string | undefined): unknown {
  if (path === undefined) return answer;
  return resolvePath(answer, path).value;
}

/** Which parts of a stored answer the reference needs: everything at its path, not one page of it (S8.5). */
export function referenceSelector(handle: string, path: string | undefined): Selector {
  return selectForQuery({ handle, path: path ?? "$", offset: 0, limit: Number.MAX_SAFE_INTEGER });
}
