/**
 * About how many bytes of JSON a selection of an answer holds, from its index alone (S21.2, S21.3): what
 * a `$result` reference will resolve to, known before anything but the index is read. A list's and a wide
 * object's JSON size and a long string's length are in the index; a window of a list counts its share of
 * the list. Parts outside the lists, long strings and wide objects are not counted (they are small: an
 * answer's index leaves out what is not worth reading in parts).
 */
import type { ListSummary, ObjectSummary, StringSummary } from "../../records/format/answer-index.js";
import type { Selection } from "./selection.js";
import { partJsonBytes } from "../../records/format/layout.js";

type Laid = {
  readonly length: number;
  readonly batches?: readonly number[];
  readonly end?: number;
};

const bytesOf = (part: Laid | undefined): number => {
  const pairs = part?.batches;
  return pairs && part!.end !== undefined ? partJsonBytes(pairs, part!.end) : (part?.length ?? 0);
};

export function selectionBytes(
  selection: Selection,
  lists: readonly ListSummary[],
  strings: readonly StringSummary[] = [],
  objects: readonly ObjectSummary[] = [],
): number {
  const all = () => [...lists, ...strings, ...objects].reduce((sum, part) => sum + bytesOf(part as Laid), 0);
  if (selection === "none" || selection === "outside") return 0;
  if (selection === "all" || "summary" in selection) return all();
  if ("stream" in selection)
    return selection.stream === "all"
      ? all()
      : selection.stream === "object"
        ? bytesOf(objects[selection.object] as Laid)
        : bytesOf(lists[selection.stream] as Laid);
  if ("list" in selection) {
    const list = lists[selection.list] as Laid | undefined;
    const length = list?.length ?? 0;
    const taken = Math.max(0, Math.min(selection.to, length) - Math.max(0, selection.from));
    return length === 0 ? 0 : Math.ceil((bytesOf(list) * taken) / length);
  }
  if ("string" in selection) return Math.max(0, selection.to - selection.from);
  return bytesOf(objects[selection.object] as Laid);
}
