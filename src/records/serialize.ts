/**
 * Serialises an answer once, straight into UTF-8 pieces of the crypto backend's piece size (S8.5), and notes where
 * the items of its large lists start, so a query can later read only the pieces its slice touches.
 *
 * Lists (the root list, or lists reached from the root through object keys only, down to three keys,
 * such as `{ rows: [...] }` or `{ data: { search: { nodes: [...] } } }`) are serialised in batches of
 * items (`JSON.stringify` of slices, joined with commas): the same text as one `JSON.stringify`, with
 * the exact byte offset of every batch for free. Anything else is serialised whole. (The one difference:
 * an item's own `toJSON(key)` sees its index within the batch; JSON answers have no `toJSON`.)
 */
import { isHighSurrogate, isPlainObject, setOwn, type JsonObject } from "../util/json.js";
import { decodeUtf8 } from "../util/size.js";
import { hasSpare, isPooledSize, releaseBuffers, takeBuffer } from "./buffer-pool.js";

/**
 * Pieces are cut at the size the crypto backend seals fastest (`CryptoBackend.pieceBytes`: 512 KB with
 * node:crypto, 256 KB with WebCrypto), which the fold and the store pass in; this is the size when none is
 * given. Either way smaller than 1 MB, so a 1 MB answer already splits and its first query decrypts part
 * of it, and a remote store moves at most this much for a slice.
 */
export const DEFAULT_PIECE_BYTES = 256 * 1024;
/** A batch holds about this many UTF-16 units of JSON: the grain of the list index. */
const BATCH_CHARS = 32 * 1024;
/** Longer texts are encoded in chunks of this many UTF-16 units (see `PieceWriter.write`). */
const WRITE_CHARS = 64 * 1024;

export interface Piece {
  readonly bytes: Uint8Array;
  /** Pure ASCII, so it decodes as latin1 (much faster than UTF-8 in Node). */
  readonly ascii: boolean;
  /** Bytes just past `bytes` in its buffer that nothing else uses: the record format pads into them in place (format.ts). */
  readonly room: number;
}

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

const encoder = new TextEncoder();
const FIRST_BUFFER_BYTES = 64 * 1024;

export interface PieceOptions {
  /** Piece size in bytes (the crypto backend's, else `DEFAULT_PIECE_BYTES`); tests make it small to get many pieces from small answers. */
  pieceBytes?: number;
  /** Key lists shared with the fold's preview and shape: a 48k-key object is listed once, not once more here. */
  keyLists?: { of(object: JsonObject): string[] };
  /**
   * A text that may be this JSON (the usual MCP answer repeats structuredContent as text, S4.2): compared
   * as each part is written, so the parts need not be kept for it. Keeping them (10 MB of young strings for
   * a 10 MB answer) cost the scavenger as much as a fifth of a `JSON.stringify`.
   */
  repeatedBy?: string;
}

/**
 * Encodes strings as UTF-8 (`encodeInto`, no intermediate copies) into piece-sized buffers: a full
 * buffer becomes a piece. `encodeInto` never splits a character, so every piece decodes on its own.
 * Piece-sized buffers go back to a few spares once their answer is encrypted (`release`), so the next
 * answer writes into memory already faulted in, where one large buffer per answer would be fresh memory
 * to fault in every time.
 */
class PieceWriter {
  readonly pieces: Piece[] = [];
  readonly batchChars: number;
  /** The piece-sized buffers the pieces lie in, to release once they are encrypted. */
  readonly buffers: Uint8Array[] = [];
  total = 0;
  private buffer: Uint8Array;
  private at = 0;
  private ascii = true;

  /** UTF-16 units written, and whether they equal the same units of `repeatedBy` so far. */
  private chars = 0;
  private same: boolean;

  constructor(
    readonly pieceBytes: number = DEFAULT_PIECE_BYTES,
    private readonly repeatedBy?: string,
  ) {
    this.same = repeatedBy !== undefined;
    this.batchChars = Math.max(1, Math.min(BATCH_CHARS, pieceBytes >> 4));
    // A spare piece-sized buffer costs nothing; else start small, so a small answer stays one small buffer.
    this.buffer = this.newBuffer(hasSpare(pieceBytes) ? pieceBytes : Math.max(4, Math.min(pieceBytes, FIRST_BUFFER_BYTES)));
  }

  /** A buffer of `size`: a spare one when a whole piece is asked for; piece-sized ones are noted to release. */
  private newBuffer(size: number): Uint8Array {
    const buffer = takeBuffer(size);
    if (size === this.pieceBytes && isPooledSize(size)) this.buffers.push(buffer);
    return buffer;
  }

  write(text: string): void {
    if (text.length === 0) return;
    // Equality of a slice, not `startsWith`: V8 compares equal-length strings with memcmp (0.7 ms for
    // 10 MB), where optimised code runs `startsWith` char by char (30 ms for 10 MB once the fold is hot).
    if (this.same && this.repeatedBy!.slice(this.chars, this.chars + text.length) !== text) this.same = false;
    this.chars += text.length;
    if (text.length <= WRITE_CHARS) return this.encode(text);
    // A long text (a deep or wide value serialised whole) goes in chunks: Chromium copies the whole string
    // an `encodeInto` call is given, so giving it the rest of a 10 MB text once per piece copied it 20 times.
    for (let from = 0; from < text.length; ) {
      let to = Math.min(text.length, from + WRITE_CHARS);
      if (to < text.length && isHighSurrogate(text.charCodeAt(to - 1))) to--; // never split a surrogate pair
      this.encode(text.slice(from, to));
      from = to;
    }
  }

  private encode(text: string): void {
    for (let from = 0; ; ) {
      const { read, written } = encoder.encodeInto(from === 0 ? text : text.slice(from), this.buffer.subarray(this.at));
      // JSON.stringify escapes lone surrogates, so more bytes than units means a non-ASCII character.
      if (read !== written) this.ascii = false;
      this.at += written;
      this.total += written;
      from += read;
      if (from >= text.length) return;
      this.makeRoom();
    }
  }

  /** The buffer is full: grow it up to a piece (small answers stay one small buffer), else close it as a piece. */
  private makeRoom(): void {
    const size = this.buffer.byteLength;
    if (size < this.pieceBytes) {
      const bigger = this.newBuffer(Math.max(this.at + 4, Math.min(this.pieceBytes, size * 8)));
      bigger.set(this.buffer.subarray(0, this.at));
      this.buffer = bigger;
      return;
    }
    this.flush();
    this.buffer = this.newBuffer(Math.max(4, this.pieceBytes));
  }

  /** Whether `repeatedBy` is exactly the text written. */
  get repeated(): boolean {
    return this.same && this.chars === this.repeatedBy!.length;
  }

  /** Closes what is written as a piece. */
  flush(): void {
    if (this.at > 0) this.pieces.push({ bytes: this.buffer.subarray(0, this.at), ascii: this.ascii, room: this.buffer.byteLength - this.at });
    this.buffer = this.buffer.subarray(this.at);
    this.at = 0;
    this.ascii = true;
  }
}

/** The answer as UTF-8 JSON pieces with the layout of its lists; the text equals `JSON.stringify(value)`. */
export function serializeAnswer(value: unknown, options: PieceOptions = {}): SerializedAnswer {
  const writer = new PieceWriter(options.pieceBytes, options.repeatedBy);
  const lists: ListLayout[] = [];
  writeValue(writer, value, [], lists, options.keyLists ?? OWN_KEYS);
  writer.flush();
  return fromWriter(writer, lists);
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

function fromWriter(writer: PieceWriter, lists: ListLayout[]): SerializedAnswer {
  let text: string | undefined;
  return {
    bytes: writer.total,
    pieceBytes: writer.pieceBytes,
    pieces: writer.pieces,
    lists,
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
/** An object with more keys is serialised whole: looking for lists in it would cost more than they save. */
const MAX_SCANNED_KEYS = 1024;

/** A value at `path`: a list in item batches, an object member by member (down to LIST_DEPTH), else whole. */
function writeValue(writer: PieceWriter, value: unknown, path: string[], lists: ListLayout[], keyLists: KeyListing): void {
  if (Array.isArray(value) && !hasToJson(value)) {
    writer.write("[");
    const start = writer.total;
    const layout = writeItems(writer, value);
    if (worthIndexing(layout.end - start, path, writer.pieceBytes)) lists.push({ path, ...layout });
    writer.write("]");
  } else if (path.length < LIST_DEPTH && isSerialisedByKeys(value)) {
    writeObject(writer, value, path, lists, keyLists);
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
 * An object: members that are lists (or objects that may hold lists) on their own, the members between
 * them in one `JSON.stringify` per run (an object without lists is one call, whatever its width).
 */
function writeObject(writer: PieceWriter, object: JsonObject, path: string[], lists: ListLayout[], keyLists: KeyListing): void {
  const keys = keyLists.of(object);
  const ownAt: number[] = [];
  if (keys.length <= MAX_SCANNED_KEYS) {
    for (let i = 0; i < keys.length; i++) {
      const member = object[keys[i]!];
      if ((Array.isArray(member) && !hasToJson(member)) || (path.length + 1 < LIST_DEPTH && isSerialisedByKeys(member))) ownAt.push(i);
    }
  }
  if (ownAt.length === 0) return writer.write(JSON.stringify(object));
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
    writeValue(writer, object[key], [...path, key], lists, keyLists);
    first = false;
    from = at + 1;
  }
  writeRun(keys.length);
  writer.write("}");
}

/** Items in batches of about `BATCH_CHARS`; the first batch starts at the writer's current offset. */
function writeItems(writer: PieceWriter, items: readonly unknown[]): Omit<ListLayout, "path"> {
  const batches: number[] = [];
  let count = 16;
  for (let first = 0; first < items.length; ) {
    const last = Math.min(items.length, first + count);
    const json = JSON.stringify(items.slice(first, last));
    if (first > 0) writer.write(",");
    batches.push(first, writer.total);
    writer.write(json.slice(1, -1));
    // Aim the next batch at BATCH_CHARS, growing at most 8-fold at a time.
    count = Math.max(1, Math.min(count * 8, Math.round((count * writer.batchChars) / Math.max(1, json.length))));
    first = last;
  }
  return { length: items.length, batches, end: writer.total };
}
