/**
 * Reading a wide object batch by batch (S14.6, S16.4), as a list's items are (list-stream.ts): a search at
 * or above an object of a million keys reads every member once, but holds a piece or two and one batch of
 * members at a time. A batch's stored text is its members `"key":value` joined by commas (object-layout.ts),
 * so `{` + text + `}` is one batch parsed on its own, its keys in the object's own order (the order they
 * were written in, which `Object.keys` of the whole object lists: array indexes first, and a batch's own
 * array indexes come first in it too). Nothing is added to the cache of parsed answers, and a batch the
 * query rules out from its text is never parsed.
 */
import type { AnswerRead } from "./answer-state.js";
import { BatchPieces, type BatchReading } from "./pieces.js";
import { byteSpan } from "../format/layout.js";

export interface MemberVisit {
  /** Whether a batch, given its JSON text (members joined by commas), needs parsing at all. */
  admit?: (text: string) => boolean;
  /** The members of one batch, as one object in key order; `false` stops the reading (the answer is known). */
  visit: (members: Record<string, unknown>) => boolean | void;
}

/** Reads every member batch of wide object `object`, in key order, and says how the reading ended. */
export async function forEachMemberBatch(read: AnswerRead, object: number, { admit, visit }: MemberVisit): Promise<BatchReading> {
  const layout = read.state.index!.objects[object]!;
  const count = layout.batches.length / 2;
  const pieces = new BatchPieces(read, layout.end);
  for (let batch = 0; batch < count; batch++) {
    const { start, end } = byteSpan(layout.batches, layout.end, batch, batch + 1, 1);
    const text = await pieces.text(start, end);
    if (text === "lost" || text === "unavailable") return text;
    if (admit && !admit(text)) continue;
    if (visit(JSON.parse(`{${text}}`) as Record<string, unknown>) === false) return "read";
  }
  return "read";
}
