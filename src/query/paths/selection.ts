/**
 * What a query reads of a stored answer (S8.5, S14.6, S16.4): the plan's choice among the reads
 * `AnswerReader` serves, made from the parts the answer's index lists (`selectorFor`), and that read.
 */
import type { AnswerReader } from "../../records/read/answer-reader.js";
import type { ListSummary, ObjectSummary, StringSummary } from "../../records/format/answer-index.js";

/**
 * What a query needs of an answer: all of it; nothing (its path cannot be valid); everything outside the
 * indexed lists' items, long strings' characters and wide objects' members ("outside": its path names none
 * of them, nor a key on the way to one, so the lists may read as empty, the strings as "" and the wide
 * objects as {}; the store then reads only the pieces around them); items of one list; characters of one
 * long string (S16.4: as a `PiecedString`); members of one wide object, by window or by name (S16.4: as a
 * `PiecedObject`); a summary: everything outside, with every list, long string and wide object
 * standing in at its full length and JSON size and with its first `summary` bytes read (what a refused
 * `$` needs, S14.5, S16.4); or a stream (S14.6): one list, one wide object, or everything outside the
 * lists and wide objects and then each of them, pulled batch by batch from the reader as the query walks
 * them (`answerOverBatches`), nothing of them kept. Each is one read `AnswerReader` serves (`readSelection`).
 */
export type Selection =
  | "all"
  | "none"
  | "outside"
  | { list: number; from: number; to: number }
  | { string: number; from: number; to: number }
  | { summary: number }
  // A wide object's members `from` to `to - 1` (S7.4: keys in key order), or its members `keys` (a name step, or
  // `fields`: the batches that may hold them; when it has none of them, also those of its first keys and of keys one
  // edit away, for the refusal, S14.5).
  | { object: number; from: number; to: number }
  | { object: number; keys: string[] }
  | { stream: number | "all" }
  | { stream: "object"; object: number };

/** Which selection a plan makes of an answer's parts. */
export type Selector = (
  lists: readonly ListSummary[],
  strings: readonly StringSummary[],
  objects?: readonly ObjectSummary[],
) => Selection;

/** What `select` asks of the answer `reader` opened: "all" for an answer held whole (it is read as it is). */
export function selectionOf(reader: AnswerReader, select: Selector): Selection {
  return reader.whole ? "all" : select(reader.lists, reader.strings, reader.objects);
}

/**
 * The value `selection` names, read from `reader` (other parts may be missing, S8.5), or undefined for
 * "none". Throws the reader's `ReadFailed` when a piece is lost; a stream is pulled by `answerOverBatches`.
 */
export function readSelection(
  reader: AnswerReader,
  selection: Exclude<Selection, { stream: unknown }>,
): Promise<unknown> {
  if (selection === "none") return Promise.resolve(undefined);
  if (selection === "all") return reader.all();
  if (selection === "outside") return reader.outside();
  if ("summary" in selection) return reader.summary(selection.summary);
  if ("string" in selection) return reader.chars(selection.string, selection.from, selection.to);
  if ("object" in selection)
    return "keys" in selection
      ? reader.named(selection.object, selection.keys)
      : reader.members(selection.object, selection.from, selection.to);
  return reader.items(selection.list, selection.from, selection.to);
}
