/**
 * Reading the parts of an answer stored in pieces (S8.5): only the pieces a part touches are fetched and
 * decrypted, each checked against what its index expects (a missing, expired or tampered piece makes the
 * whole handle read as not found: MISSING). What is read is kept in the answer's state, which the store may
 * keep in memory for the next query (`RecentAnswers`), counting what it holds (S16.3). `AnswerReader`
 * serves them.
 */
import { piecesOf } from "../format/answer-index.js";
import { charSpan, itemSpan, partJsonBytes, unitStarts } from "../format/layout.js";
import { PiecedString } from "./pieced-string.js";
import { MISSING, parseRead, placeAt, readRanges, type AnswerRead } from "./answer-state.js";
import { readMembers } from "./object-members.js";
import { outsideRanges, readWholeInParts } from "./read-whole.js";
import { listSlotsBytes } from "../heap-size.js";
import { setKnownJsonSize } from "../../util/size.js";

/** Every piece, parsed as one answer (in parts, yielding between them: `readWholeInParts`). */
export async function readWhole(read: AnswerRead): Promise<unknown> {
  const { state } = read;
  const whole = await readWholeInParts(read);
  if (whole === MISSING) return MISSING;
  const { value } = whole;
  state.whole = { value };
  state.lists.clear();
  state.strings.clear();
  state.objects.clear();
  state.root = undefined;
  state.outside = false;
  if (state.counted) state.bytes = state.indexBytes + whole.bytes;
  return value;
}

/**
 * Everything but the items of the indexed lists and the characters of the long strings, which read as
 * empty (or as far as read): a query whose path stays outside them (`$.total` beside `rows`) reads the
 * pieces around them, not those inside, and parses only that. Parts read before or after are placed in
 * the same root.
 */
export async function readOutside(read: AnswerRead): Promise<unknown> {
  const { state } = read;
  if (state.outside) return state.root;
  const index = state.index!;
  const texts = await readRanges(read, outsideRanges(index));
  if (texts === MISSING) return MISSING;
  const skeleton = parseRead(read, texts.join(""));
  let root = skeleton;
  for (const [list, { items }] of state.lists) root = placeAt(root, index.lists[list]!.path, items);
  for (const [text, pieced] of state.strings) root = placeAt(root, index.strings[text]!.path, pieced);
  for (const [object, pieced] of state.objects) root = placeAt(root, index.objects[object]!.path, pieced);
  state.root = root;
  state.outside = true;
  if (state.counted) state.bytes += read.estimate(skeleton);
  return root;
}

/** Items `from` to `to - 1` of one list, in the root as far as read (other items and keys may be missing). */
export async function readItems(read: AnswerRead, list: number, from: number, to: number): Promise<unknown> {
  const { state } = read;
  const index = state.index!;
  const layout = index.lists[list];
  if (!layout) return MISSING;
  let held = state.lists.get(list);
  if (!held) {
    held = { items: new Array<unknown>(layout.length), loaded: new Uint8Array(layout.batches.length / 2) };
    state.lists.set(list, held);
    setKnownJsonSize(held.items, partJsonBytes(layout.batches, layout.end)); // a summary measures it whole (S16.4)
    state.root = placeAt(state.root, layout.path, held.items);
    if (state.counted) state.bytes += listSlotsBytes(layout.length) + held.loaded.byteLength;
  }
  const root = state.root; // a concurrent whole read may reset the state meanwhile
  const span = itemSpan(layout, Math.max(0, from), Math.min(layout.length, to));
  if (span && held.loaded.subarray(span.firstBatch, span.endBatch).includes(0)) {
    const texts = await readRanges(read, piecesOf(index, span.start, span.end));
    if (texts === MISSING) return MISSING;
    const items = parseRead(read, `[${texts.join("")}]`) as unknown[];
    for (let i = 0; i < items.length; i++) held.items[span.firstItem + i] = items[i];
    held.loaded.fill(1, span.firstBatch, span.endBatch);
    // its slots are in held.items
    if (state.counted) state.bytes += read.estimate(items) - listSlotsBytes(items.length);
  }
  return root;
}

/**
 * Characters `from` to `to - 1` of one long string (S16.4): only the batches holding them are read, parsed
 * as one JSON string (batches start outside escapes) and kept in the string's `PiecedString`, which
 * stands in the root at the string's path.
 */
export async function readChars(read: AnswerRead, text: number, from: number, to: number): Promise<unknown> {
  const { state } = read;
  const index = state.index!;
  const layout = index.strings[text];
  if (!layout) return MISSING;
  let pieced = state.strings.get(text);
  if (!pieced) {
    pieced = new PiecedString(layout.length, unitStarts(layout.batches));
    setKnownJsonSize(pieced, partJsonBytes(layout.batches, layout.end)); // a summary measures it whole
    state.strings.set(text, pieced);
    state.root = placeAt(state.root, layout.path, pieced);
    if (state.counted) state.bytes += pieced.heapBytes;
  }
  const root = state.root; // a concurrent whole read may reset the state meanwhile
  const [first, end] = pieced.batchesOf(from, to);
  if (from < to && from < layout.length && !pieced.has(first, end)) {
    const span = charSpan(layout, first, end);
    const texts = await readRanges(read, piecesOf(index, span.start, span.end));
    if (texts === MISSING) return MISSING;
    const chars = parseRead(read, `"${texts.join("")}"`) as string;
    const before = pieced.heapBytes;
    pieced.fill(first, end, chars);
    if (state.counted) state.bytes += pieced.heapBytes - before;
  }
  return root;
}

/**
 * A summary (S16.4): everything outside the lists and long strings, each of which stands in at its
 * whole length and JSON size (known from the index), with its first `bytes` read: enough for a refusal
 * of `$` to name the largest parts and a limit that fits (S14.5) without reading every piece.
 */
export async function readSummary(read: AnswerRead, bytes: number): Promise<unknown> {
  const index = read.state.index!;
  if ((await readOutside(read)) === MISSING) return MISSING;
  for (let list = 0; list < index.lists.length; list++) {
    const { batches } = index.lists[list]!;
    let next = 1; // the first batch starting past `bytes` from the list's start ends what is read
    while (next < batches.length / 2 && batches[2 * next + 1]! - batches[1]! <= bytes) next++;
    const to = next < batches.length / 2 ? batches[2 * next]! + 1 : index.lists[list]!.length;
    if ((await readItems(read, list, 0, to)) === MISSING) return MISSING;
  }
  for (let text = 0; text < index.strings.length; text++) {
    if ((await readChars(read, text, 0, bytes + 2)) === MISSING) return MISSING;
  }
  for (let object = 0; object < index.objects.length; object++) {
    const { batches, length } = index.objects[object]!;
    let next = 1; // as for lists: the first batch starting past `bytes` from the object's start ends what is read
    while (next < batches.length / 2 && batches[2 * next + 1]! - batches[1]! <= bytes) next++;
    if ((await readMembers(read, object, 0, next < batches.length / 2 ? batches[2 * next]! + 1 : length)) === MISSING)
      return MISSING;
  }
  return read.state.root;
}
