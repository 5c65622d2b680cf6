/**
 * Reading a pieced answer whole (S8.5), parsed in parts yielding between them (S21.4). One `JSON.parse`
 * of the whole text held the thread for all of it (a million rows, 9 MB: 150–400 ms); the index says where
 * every list's batches, long string's batches and wide object's member batches lie, so the text outside
 * them is parsed alone (they read there as `[]`, `""` and `{}`), each part in windows of about
 * WINDOW_BYTES, and each part put in its place: the same value as one parse of the whole, key order and
 * all (a part replaces its own empty stand-in, so its key keeps its place).
 */
import { piecesOf, type AnswerIndex } from "../format/answer-index.js";
import { byteSpan } from "../format/layout.js";
import { keepKeyList, setOwn, type JsonObject } from "../../util/json.js";
import { shouldYieldSince, yieldToLoop } from "../../util/yield.js";
import { memberEstimate, OBJECT_HEADER_BYTES } from "../heap-size.js";
import { isIndexKey } from "../format/key-order.js";
import { MISSING, parseRead, placeAt, readRanges, type AnswerRead } from "./answer-state.js";

type Range = { piece: number; from: number; to: number };

/** Text parsed at once at most (a window of a list's, a string's or an object's batches): a few ms of `JSON.parse`. */
const WINDOW_BYTES = 256 * 1024;

/** Members set into a wide object between two looks at the clock (`performance.now()` is not free). */
const MEMBERS_PER_LOOK = 1024;

/** One part of the answer as windows, each a run of its units (batches or batches) read as one text. */
interface Part {
  kind: "list" | "string" | "object";
  path: readonly string[];
  length: number;
  /** Per window: its first unit's index in the part (item, character or member) and how many ranges its text is. */
  windows: { first: number; ranges: number }[];
}

/** Byte ranges of everything outside the indexed parts, where each part stands as empty (`[]`, `""`, `{}`). */
export function outsideRanges(index: AnswerIndex): Range[] {
  const total = index.pieces.reduce((sum, length) => sum + length, 0);
  const skipped = [
    ...index.lists
      .filter((list) => list.batches.length > 0)
      .map((list) => ({ start: list.batches[1]!, end: list.end })), // an empty list: nothing to leave out
    ...index.strings
      .filter((text) => text.batches.length > 0)
      .map((text) => ({ start: text.batches[1]!, end: text.end })),
    ...index.objects
      .filter((object) => object.batches.length > 0)
      .map((object) => ({ start: object.batches[1]!, end: object.end })), // reads as {}
  ].sort((a, b) => a.start - b.start);
  const kept: { start: number; end: number }[] = [];
  let at = 0;
  for (const { start, end } of skipped) {
    kept.push({ start: at, end: start });
    at = end;
  }
  kept.push({ start: at, end: total });
  return kept.flatMap(({ start, end }) => (end > start ? piecesOf(index, start, end) : []));
}

/**
 * Every piece, parsed as one answer in parts, yielding between parts, and what it holds in
 * memory when the read is counted (S16.3: estimated part by part, as the walk of the whole was one hold
 * too); MISSING when a piece is.
 */
export async function readWholeInParts(read: AnswerRead): Promise<{ value: unknown; bytes: number } | typeof MISSING> {
  const index = read.state.index!;
  const outside = outsideRanges(index);
  const ranges: Range[] = [...outside];
  const parts: Part[] = [];
  const windowsOf = (
    kind: Part["kind"],
    path: readonly string[],
    length: number,
    pairs: readonly number[],
    end: number,
    separator: number,
  ) => {
    const part: Part = { kind, path, length, windows: [] };
    const count = pairs.length / 2;
    for (let first = 0; first < count;) {
      let past = first + 1;
      while (past < count && pairs[2 * past + 1]! - pairs[2 * first + 1]! < WINDOW_BYTES) past++;
      const span = byteSpan(pairs, end, first, past, separator);
      const pieces = piecesOf(index, span.start, span.end);
      ranges.push(...pieces);
      part.windows.push({ first: pairs[2 * first]!, ranges: pieces.length });
      first = past;
    }
    parts.push(part);
  };
  for (const list of index.lists)
    if (list.batches.length > 0) windowsOf("list", list.path, list.length, list.batches, list.end, 1);
  for (const text of index.strings)
    if (text.batches.length > 0) windowsOf("string", text.path, text.length, text.batches, text.end, 0);
  for (const object of index.objects)
    if (object.batches.length > 0) windowsOf("object", object.path, object.length, object.batches, object.end, 1);

  const texts = await readRanges(read, ranges); // each piece opened once
  if (texts === MISSING) return MISSING;
  let root = parseRead(read, texts.slice(0, outside.length).join(""));
  texts.fill("", 0, outside.length);
  const counted = read.state.counted;
  let bytes = counted ? read.estimate(root) : 0;
  let at = outside.length;
  let since = performance.now();
  for (const part of parts) {
    // its slots as `readItems` makes them, as the estimate counts them
    const list: unknown[] = part.kind === "list" ? new Array<unknown>(part.length) : [];
    const strings: string[] = [];
    const object: JsonObject = {};
    // its key list, kept for the queries (S26.1)
    const keys: string[] | undefined = part.kind === "object" ? [] : undefined;
    let indexed = false;
    for (const window of part.windows) {
      if (shouldYieldSince(since)) {
        await yieldToLoop();
        since = performance.now();
      }
      const text = texts.slice(at, at + window.ranges).join("");
      texts.fill("", at, at + window.ranges); // not held across the turns once parsed
      at += window.ranges;
      const parsed = parseRead(
        read,
        part.kind === "list" ? `[${text}]` : part.kind === "string" ? `"${text}"` : `{${text}}`,
      );
      // nothing more is walked once past what the cache could keep; a wide object's members are estimated as they
      // are set (below)
      if (counted && part.kind !== "object") bytes += read.estimate(parsed, bytes);
      if (part.kind === "list") (parsed as unknown[]).forEach((item, i) => (list[window.first + i] = item));
      else if (part.kind === "string") strings.push(parsed as string);
      else {
        const members = parsed as JsonObject;
        const names = Object.keys(members);
        // Array-index keys come first in `names`, as in any object's keys: the first tells whether the window has one.
        if (names.length > 0 && isIndexKey(names[0]!)) indexed = true;
        if (counted) bytes += OBJECT_HEADER_BYTES;
        const estimate = (value: object) => read.estimate(value, bytes);
        for (let i = 0; i < names.length; i++) {
          // S26.1: a million members set into one object took 2 s under load, one window's up to 380 ms (the
          // object grows as a dictionary): the setting yields too, every MEMBERS_PER_LOOK members past the hold
          if (i % MEMBERS_PER_LOOK === MEMBERS_PER_LOOK - 1 && shouldYieldSince(since)) {
            await yieldToLoop();
            since = performance.now();
          }
          const key = names[i]!;
          const value = members[key];
          setOwn(object, key, value);
          keys!.push(key);
          if (counted) bytes += memberEstimate(value, estimate);
        }
      }
    }
    // Array-index keys ("7") come first in an object whatever their place in the text: then no list is kept.
    if (keys && keys.length === part.length && !indexed) keepKeyList(object, keys);
    root = placeAt(root, part.path, part.kind === "list" ? list : part.kind === "string" ? strings.join("") : object);
  }
  return { value: root, bytes };
}
