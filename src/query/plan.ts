/**
 * Which part of a stored answer a `result_query` call needs (S8.5): the store reads only the pieces
 * holding those items. Mirrors how `resolvePath` steps and how `queryValue` windows a list, so the value
 * the store assembles holds everything the query will look at.
 */
import type { ListSummary, Selection, Selector } from "../records/answer-index.js";
import { listIndex, objectKey, parsePath, type PathSegment } from "./path.js";
import { listWindow, type QueryArguments } from "./query.js";

export function selectForQuery(args: QueryArguments): Selector {
  let segments: PathSegment[];
  try {
    segments = parsePath(args.path); // once per query, not once per instance's store
  } catch {
    return () => "none"; // the query refuses the path whatever the answer holds
  }
  return (lists: readonly ListSummary[]): Selection => {
    for (let list = 0; list < lists.length; list++) {
      const { path, length } = lists[list]!;
      if (segments.length < path.length || path.some((key, i) => objectKey(segments[i]!) !== key)) continue;
      const rest = segments.slice(path.length);
      if (rest.length === 0) {
        const { offset, limit } = listWindow(args);
        return { list, from: offset, to: offset + limit };
      }
      const item = listIndex(rest[0]!, length);
      // An index out of range, or a name, names nothing in a list: the query says so from the list's length alone.
      return item === undefined ? { list, from: 0, to: 0 } : { list, from: item, to: item + 1 };
    }
    // A path on the way to a list (`$`, or `data` above `data.rows`) needs the lists; one beside them does not (S16.4).
    const aboveAList = lists.some(({ path }) => segments.length < path.length && segments.every((segment, i) => objectKey(segment) === path[i]));
    return aboveAList || lists.length === 0 ? "all" : "outside";
  };
}
