/**
 * Serialises an answer once, straight into UTF-8 pieces of the crypto backend's piece size (S8.5), and notes where
 * the items of its large lists start, so a query can later read only the pieces its slice touches.
 *
 * Lists (the root list, or lists reached from the root through object keys only, down to three keys,
 * such as `{ rows: [...] }` or `{ data: { search: { nodes: [...] } } }`) are serialised in batches of
 * items (`JSON.stringify` of slices, joined with commas): the same text as one `JSON.stringify`, with
 * the exact byte offset of every batch for free. Long strings in the same places are serialised in
 * batches of characters the same way (`writeLongString`, S16.4), and objects of more than WIDE_KEYS keys in
 * batches of members (`writeWideObject`, S16.4; their members are written whole). Anything else is serialised whole. An
 * item with its own
 * `toJSON(key)` gets its index in the whole list, as `JSON.stringify` of the answer would pass (S16.7).
 */
import { isPlainObject, setOwn, type JsonObject } from "../../util/json.js";
import { decodeUtf8 } from "../../util/utf8.js";
import { releaseBuffers } from "../buffer-pool.js";
import { PieceWriter, type Piece, type PieceListener, type YieldSteps } from "./piece-writer.js";
import { yieldToLoop } from "../../util/yield.js";
import { isLongString, writeLongString, type StringLayout } from "./string-layout.js";
import { WIDE_KEYS, writeWideObject, type ObjectLayout } from "./object-layout.js";
import { OVERSIZED_BATCHES } from "../../defaults.js";

export { DEFAULT_PIECE_BYTES, type Piece } from "./piece-writer.js";
export type { StringLayout } from "./string-layout.js";
export type { ObjectLayout } from "./object-layout.js";

/** Where one list's items lie in the answer's UTF-8 JSON. */
export interface ListLayout {
  /** Keys from the root to the list; empty when the root itself is the list. */
  path: string[];
  length: number;
  /** Flat pairs: first item of each batch, then the byte offset where that item starts. */
  batches: number[];
  /** Byte offset just past the last item (where the list's `]` is). */
  end: number;
}

export interface SerializedAnswer {
  /** Size as UTF-8 JSON (S4.3). */
  readonly bytes: number;
  /** The size its pieces were cut at: every piece but the last is within 3 bytes of it (characters are never split). */
  readonly pieceBytes: number;
  readonly pieces: readonly Piece[];
  readonly lists: readonly ListLayout[];
  /** Where the characters of its long strings lie (S16.4), in the order written. */
  readonly strings: readonly StringLayout[];
  /** Where the members of its wide objects lie (S16.4), in the order written. */
  readonly objects: readonly ObjectLayout[];
  /** The JSON text, identical to `JSON.stringify(value)`; decoded from the pieces on use (before `release`). */
  readonly text: string;
  /** Whether the `repeatedBy` text given to the serialiser is exactly this JSON text. */
  readonly repeated: boolean;
  /**
   * Hands the pieces' buffers back for the next answer to encode into, once they are encrypted: only the
   * owner of this serialisation calls it, and nothing reads `pieces` after. Fresh memory costs a page
   * fault per 4 KB on first write (in Chromium, 30% of a 100 KB fold); reused memory does not.
   */
  release(): void;
}

export interface PieceOptions {
  /**
   * Piece size in bytes (the crypto backend's, else `DEFAULT_PIECE_BYTES`); tests make it small to get many pieces from
   * small answers.
   */
  pieceBytes?: number;
  /** Key lists shared with the fold's preview and shape: a 48k-key object is listed once, not once more here. */
  keyLists?: { of(object: JsonObject): string[]; counted?(object: JsonObject, members: number): void };
  /**
   * A text that may be this JSON (the usual MCP answer repeats structuredContent as text, S4.2): compared
   * as each part is written, so the parts need not be kept for it. Keeping them (10 MB of young strings for
   * a 10 MB answer) cost the scavenger as much as a fifth of a `JSON.stringify`.
   */
  repeatedBy?: string;
  /** Told each piece as it is closed (a fold that seals pieces while it serialises the rest, S21.7). */
  onPiece?: PieceListener;
}

/**
 * The answer as UTF-8 JSON pieces with the layout of its lists, long strings and wide objects; the text equals
 * `JSON.stringify(value)`. It yields (S21.4) whenever it has held the calling thread SERIALISE_HOLD_MS since it
 * last yielded: between batches of a list, batches of a long string or members of a wide object (what it writes
 * whole, it writes in one go). What the fold and `save` use.
 */
export async function serializeAnswerYielding(value: unknown, options: PieceOptions = {}): Promise<SerializedAnswer> {
  const { writer, steps, layouts } = serialisation(value, options);
  while (!steps.next().done) {
    await yieldToLoop();
    writer.resumed();
  }
  writer.flush();
  return fromWriter(writer, layouts);
}

/** A serialisation to run: its steps end where it may yield (`PieceWriter.held`). */
function serialisation(
  value: unknown,
  options: PieceOptions,
): { writer: PieceWriter; steps: YieldSteps; layouts: Layouts } {
  const writer = new PieceWriter(options.pieceBytes, options.repeatedBy, options.onPiece);
  const layouts: Layouts = { lists: [], strings: [], objects: [] };
  return { writer, steps: writeValue(writer, value, [], layouts, options.keyLists ?? OWN_KEYS), layouts };
}

/** `JSON.stringify` would call its `toJSON` instead of listing it: leave it to `JSON.stringify`. */
function hasToJson(value: object): boolean {
  return typeof (value as { toJSON?: unknown }).toJSON === "function";
}

/** A plain `{}` (not a boxed string, a class instance or the like, which `JSON.stringify` treats its own way). */
function isOrdinaryObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** What the index will hold: the lists and long strings found by range. */
interface Layouts {
  lists: ListLayout[];
  strings: StringLayout[];
  objects: ObjectLayout[];
}

function fromWriter(writer: PieceWriter, { lists, strings, objects }: Layouts): SerializedAnswer {
  let text: string | undefined;
  return {
    bytes: writer.total,
    pieceBytes: writer.pieceBytes,
    pieces: writer.pieces,
    lists,
    strings,
    objects,
    repeated: writer.repeated,
    get text() {
      // Pieces never split a character, so each decodes on its own.
      text ??= writer.pieces.map((piece) => decodeUtf8(piece.bytes, piece.ascii)).join("");
      return text;
    },
    release() {
      releaseBuffers(writer.buffers);
      writer.buffers.length = 0;
    },
  };
}

type KeyListing = NonNullable<PieceOptions["keyLists"]>;
const OWN_KEYS: KeyListing = { of: (object) => Object.keys(object) };

/** Lists are indexed down to this many keys from the root, such as `data.search.nodes`. */
const LIST_DEPTH = 3;

/**
 * A value at `path`: a list in item batches, a long string in batches (S16.4), an object member by member
 * (down to LIST_DEPTH), else whole.
 */
function* writeValue(
  writer: PieceWriter,
  value: unknown,
  path: string[],
  layouts: Layouts,
  keyLists: KeyListing,
): YieldSteps {
  if (Array.isArray(value) && !hasToJson(value)) {
    writer.write("[");
    const start = writer.total;
    const layout = yield* writeItems(writer, value);
    if (worthIndexing(layout.end - start, path, writer.pieceBytes)) layouts.lists.push({ path, ...layout });
    writer.write("]");
  } else if (isLongString(value, writer.batchChars) && worthIndexing(value.length, path, writer.pieceBytes)) {
    layouts.strings.push(yield* writeLongString(writer, value, path));
  } else if (path.length < LIST_DEPTH && isSerialisedByKeys(value)) {
    yield* writeObject(writer, value, path, layouts, keyLists);
  } else {
    writer.write(JSON.stringify(value) ?? "null");
  }
}

/**
 * A list smaller than this (or than a quarter of a piece, where tests cut tiny pieces) is not indexed:
 * its index entry would cost more than reading it with its neighbours saves, and an answer's index stays
 * a small fraction of it (S16.3: 1,048,576 empty lists, 10.4 MB, had a 65.8 MB index).
 */
const MIN_INDEXED_LIST_BYTES = 4096;

/** Whether a list of `bytes` is worth its index entry, which repeats its path: kept at most a 32nd of the list. */
function worthIndexing(bytes: number, path: readonly string[], pieceBytes: number): boolean {
  const pathBytes = path.reduce((sum, key) => sum + key.length + 3, 0);
  return bytes >= Math.min(MIN_INDEXED_LIST_BYTES, pieceBytes >> 2) && bytes >= 32 * pathBytes;
}

function isSerialisedByKeys(value: unknown): value is JsonObject {
  return isPlainObject(value) && isOrdinaryObject(value) && !hasToJson(value);
}

/**
 * An object: a wide one in member batches (S16.4); else members that are lists (or objects that may hold lists) on
 * their own, the members between
 * them in one `JSON.stringify` per run (an object without lists is one call, whatever its width).
 */
function* writeObject(
  writer: PieceWriter,
  object: JsonObject,
  path: string[],
  layouts: Layouts,
  keyLists: KeyListing,
): YieldSteps {
  const keys = keyLists.of(object);
  if (keys.length > WIDE_KEYS) {
    // A wide object: its members in batches, indexed when it spans several (S16.4, as lists: S16.3).
    const layout = yield* writeWideObject(writer, object, keys, path);
    keyLists.counted?.(object, layout.length); // its members JSON writes: the shape's key count (S26.1)
    if (
      layout.batches.length > 2 &&
      worthIndexing(layout.end - (layout.batches[1] ?? layout.end), path, writer.pieceBytes)
    )
      layouts.objects.push(layout);
    return;
  }
  const ownAt: number[] = [];
  for (let i = 0; i < keys.length; i++) {
    const member = object[keys[i]!];
    // An empty list is never indexed (`worthIndexing`): it goes with its neighbours' text (S26.8: 1,048,576 of them
    // folded at 7.6× one JSON.stringify).
    if (
      (Array.isArray(member) && member.length > 0 && !hasToJson(member)) ||
      isLongString(member, writer.batchChars) ||
      (path.length + 1 < LIST_DEPTH && isSerialisedByKeys(member))
    )
      ownAt.push(i);
  }
  if (ownAt.length === 0) return void writer.write(JSON.stringify(object));
  writer.write("{");
  let first = true;
  let from = 0;
  const writeRun = (to: number) => {
    if (to <= from) return;
    const run: JsonObject = {};
    for (let i = from; i < to; i++) {
      const key = keys[i]!;
      setOwn(run, key, object[key]);
    }
    const json = JSON.stringify(run);
    if (json.length > 2) {
      writer.write((first ? "" : ",") + json.slice(1, -1));
      first = false;
    }
  };
  for (const at of ownAt) {
    writeRun(at);
    const key = keys[at]!;
    writer.write((first ? "" : ",") + JSON.stringify(key) + ":");
    yield* writeValue(writer, object[key], [...path, key], layouts, keyLists);
    first = false;
    from = at + 1;
  }
  writeRun(keys.length);
  writer.write("}");
}

/** Items in batches of about `BATCH_CHARS`; the first batch starts at the writer's current offset. */
function* writeItems(writer: PieceWriter, items: readonly unknown[]): YieldSteps<Omit<ListLayout, "path">> {
  const batches: number[] = [];
  const start = writer.total;
  let count = 16;
  for (let first = 0; first < items.length;) {
    const last = Math.min(items.length, first + count);
    const json = batchJson(items, first, last);
    if (last - first > 1 && json.length > OVERSIZED_BATCHES * writer.batchChars) {
      // Items far larger than those before them (or than the first 16 were guessed at): a reader parses a batch in
      // one piece (S21.4: 150 objects of 10,000 keys after 2000 rows made one batch of 17 MB, and reading one of
      // them held the loop 3.6 s), so this range is cut again item by item, near BATCH_CHARS a batch.
      yield* writeItemsOneByOne(writer, items, first, last, { batches, start });
      count = Math.max(1, Math.round(((last - first) * writer.batchChars) / json.length));
      first = last;
      continue;
    }
    if (first > 0) writer.write(",");
    batches.push(first, writer.total);
    writer.progress = { start, done: first, length: items.length };
    writer.write(json.slice(1, -1));
    // Aim the next batch at BATCH_CHARS, growing at most 8-fold at a time.
    count = Math.max(1, Math.min(count * 8, Math.round((count * writer.batchChars) / Math.max(1, json.length))));
    first = last;
    if (writer.held()) yield;
  }
  writer.progress = undefined;
  return { length: items.length, batches, end: writer.total };
}

/** Items `from` to `to - 1` in batches of about BATCH_CHARS each (at least one item), each item serialised alone. */
function* writeItemsOneByOne(
  writer: PieceWriter,
  items: readonly unknown[],
  from: number,
  to: number,
  { batches, start }: { batches: number[]; start: number },
): YieldSteps {
  let parts: string[] = [];
  let chars = 0;
  let first = from;
  for (let at = from; at < to; at++) {
    const json = batchJson(items, at, at + 1).slice(1, -1);
    parts.push(json);
    chars += json.length + 1;
    if (chars < writer.batchChars && at < to - 1) continue;
    if (first > 0) writer.write(",");
    batches.push(first, writer.total);
    writer.write(parts.join(","));
    parts = [];
    chars = 0;
    first = at + 1;
    writer.progress = { start, done: first, length: items.length };
    if (writer.held()) yield;
  }
}

/** Items `first` to `last - 1` as a JSON list: one `JSON.stringify` of the slice, unless an item has a `toJSON`. */
function batchJson(items: readonly unknown[], first: number, last: number): string {
  const slice = items.slice(first, last);
  if (!someItemToJson(slice)) return JSON.stringify(slice);
  // `JSON.stringify(slice)` would pass such an item its index in the slice: it gets its index in the list,
  // through a holder object under that key (so `toJSON`, and what it returns, are treated exactly as there).
  const parts = slice.map((item, at) => {
    if (!hasItemToJson(item)) return JSON.stringify(item) ?? "null";
    const key = String(first + at);
    const held = JSON.stringify({ [key]: item });
    // `{"832":…}`; left out (undefined) is null in a list
    return held.length > 2 ? held.slice(key.length + 4, -1) : "null";
  });
  return `[${parts.join(",")}]`;
}

/**
 * Whether any item has a `toJSON`: a plain loop, five times faster than `some` over 100,000 rows (0.4 against 2 ms).
 */
function someItemToJson(items: readonly unknown[]): boolean {
  for (let at = 0; at < items.length; at++) if (hasItemToJson(items[at])) return true;
  return false;
}

/** What `JSON.stringify` asks for its `toJSON`: an object, or a BigInt (whose prototype one may give a `toJSON`). */
function hasItemToJson(item: unknown): boolean {
  return (
    ((typeof item === "object" && item !== null) || typeof item === "bigint") &&
    typeof (item as { toJSON?: unknown }).toJSON === "function"
  );
}
