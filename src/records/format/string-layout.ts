/**
 * Long strings of an answer, written so their characters are found by range (S16.4): a string (at the
 * root, or reached from it through object keys, as lists are) long enough to span pieces is written in
 * batches of characters, each escaped on its own (`JSON.stringify` of the batch without its quotes), and
 * the index notes where each batch starts, in characters and in bytes. Batches never split a surrogate
 * pair, so the batches' escapes joined are exactly those of the whole string: the text is the same as one
 * `JSON.stringify`, and no batch starts inside an escape.
 */
import { isHighSurrogate, isLowSurrogate } from "../../util/json.js";
import type { PieceWriter, YieldSteps } from "./piece-writer.js";

/** Where one long string's characters lie in the answer's UTF-8 JSON. */
export interface StringLayout {
  /** Keys from the root to the string; empty when the root itself is the string. */
  path: string[];
  /** Its length in UTF-16 units. */
  length: number;
  /** Flat pairs: the first character of each batch, then the byte offset where its text starts. */
  batches: number[];
  /** Byte offset just past the last batch (where the closing `"` is). */
  end: number;
}

/** Whether a string is written in batches: one of at least two batches, as lists need several batches. */
export function isLongString(value: unknown, batchChars: number): value is string {
  return typeof value === "string" && value.length >= 2 * batchChars;
}

/**
 * Writes `text` as a JSON string in batches of about `writer.batchChars` characters (yielding between
 * batches where held); returns its layout.
 */
export function* writeLongString(writer: PieceWriter, text: string, path: string[]): YieldSteps<StringLayout> {
  const batches: number[] = [];
  const size = writer.batchChars;
  writer.write('"');
  const start = writer.total;
  for (let from = 0; from < text.length;) {
    let to = Math.min(text.length, from + size);
    // never split a pair
    if (to < text.length && isHighSurrogate(text.charCodeAt(to - 1)) && isLowSurrogate(text.charCodeAt(to))) to--;
    batches.push(from, writer.total);
    writer.progress = { start, done: from, length: text.length };
    writer.write(JSON.stringify(text.slice(from, to)).slice(1, -1));
    from = to;
    if (writer.held()) yield;
  }
  writer.progress = undefined;
  const end = writer.total;
  writer.write('"');
  return { path, length: text.length, batches, end };
}
