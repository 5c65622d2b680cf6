/**
 * Long strings of an answer, written so their characters are found by range (S16.4): a string (at the
 * root, or reached from it through object keys, as lists are) long enough to span pieces is written in
 * chunks of characters, each escaped on its own (`JSON.stringify` of the chunk without its quotes), and
 * the index notes where each chunk starts, in characters and in bytes. Chunks never split a surrogate
 * pair, so the chunks' escapes joined are exactly those of the whole string: the text is the same as one
 * `JSON.stringify`, and no chunk starts inside an escape.
 */
import { isHighSurrogate, isLowSurrogate } from "../../util/json.js";
import type { PieceWriter, YieldSteps } from "./piece-writer.js";

/** Where one long string's characters lie in the answer's UTF-8 JSON. */
export interface StringLayout {
  /** Keys from the root to the string; empty when the root itself is the string. */
  path: string[];
  /** Its length in UTF-16 units. */
  length: number;
  /** Flat pairs: the first character of each chunk, then the byte offset where its text starts. */
  chunks: number[];
  /** Byte offset just past the last chunk (where the closing `"` is). */
  end: number;
}

/** Whether a string is written in chunks: one of at least two chunks, as lists need several batches. */
export function isLongString(value: unknown, chunkChars: number): value is string {
  return typeof value === "string" && value.length >= 2 * chunkChars;
}

/**
 * Writes `text` as a JSON string in chunks of about `writer.batchChars` characters (yielding between
 * chunks where held); returns its layout.
 */
export function* writeLongString(writer: PieceWriter, text: string, path: string[]): YieldSteps<StringLayout> {
  const chunks: number[] = [];
  const size = writer.batchChars;
  writer.write('"');
  const start = writer.total;
  for (let from = 0; from < text.length;) {
    let to = Math.min(text.length, from + size);
    // never split a pair
    if (to < text.length && isHighSurrogate(text.charCodeAt(to - 1)) && isLowSurrogate(text.charCodeAt(to))) to--;
    chunks.push(from, writer.total);
    writer.progress = { start, done: from, length: text.length };
    writer.write(JSON.stringify(text.slice(from, to)).slice(1, -1));
    from = to;
    if (writer.held()) yield;
  }
  writer.progress = undefined;
  const end = writer.total;
  writer.write('"');
  return { path, length: text.length, chunks, end };
}
