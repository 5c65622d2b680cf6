/**
 * Serialises an answer once, straight into UTF-8 pieces of about `PIECE_BYTES` (S8.5), and notes where
 * the items of its large lists start, so a query can later read only the pieces its slice touches.
 *
 * Lists (the root list, or every list directly under a root object, such as `{ rows: [...] }`) are
 * serialised in batches of items (`JSON.stringify` of slices, joined with commas): the same text as one
 * `JSON.stringify`, with the exact byte offset of every batch for free. Anything else is serialised whole.
 */
import { isPlainObject } from "./json.js";

/**
 * About 1 MB as issue 9 asks, on the small side: a 1 MB answer already splits in two, so its first query
 * decrypts half of it, and a remote store moves at most this much for a slice.
 */
export const PIECE_BYTES = 512 * 1024;
/** A batch holds about this many UTF-16 units of JSON: the grain of the list index. */
const BATCH_CHARS = 16 * 1024;

export interface Piece {
  readonly bytes: Uint8Array;
  /** Pure ASCII, so it decodes as latin1 (much faster than UTF-8 in Node). */
  readonly ascii: boolean;
}

/** Where one list's items lie in the answer's UTF-8 JSON. */
export interface ListLayout {
  /** Its key in the root object; absent when the root itself is the list. */
  key?: string;
  length: number;
  /** Flat pairs: first item of each batch, then the byte offset where that item starts. */
  batches: number[];
  /** Byte offset just past the last item (where the list's `]` is). */
  end: number;
}

export interface SerializedAnswer {
  /** Size as UTF-8 JSON (S4.3). */
  readonly bytes: number;
  readonly pieces: readonly Piece[];
  readonly lists: readonly ListLayout[];
  /** The JSON text, identical to `JSON.stringify(value)`; built on first use. */
  readonly text: string;
}

const encoder = new TextEncoder();
type NodeBufferLike = Uint8Array & { write(text: string, offset: number, length: number, encoding: "utf8"): number };
const NodeBuffer = (globalThis as { Buffer?: { allocUnsafe(size: number): NodeBufferLike } }).Buffer;

/** Allocates a piece buffer; Node's pooled, unzeroed memory where it can. */
function allocate(size: number): Uint8Array {
  return NodeBuffer ? NodeBuffer.allocUnsafe(size) : new Uint8Array(size);
}

export interface PieceOptions {
  /** Piece size in bytes (default `PIECE_BYTES`); tests make it small to get many pieces from small answers. */
  pieceBytes?: number;
}

/** Writes strings as UTF-8 into buffers it cuts into pieces at character boundaries. */
class PieceWriter {
  readonly pieces: Piece[] = [];
  readonly batchChars: number;
  readonly chunks: string[] = [];
  total = 0;
  private buffer: Uint8Array = new Uint8Array(0);
  private used = 0; // bytes of `buffer` already in closed pieces
  private at = 0;
  private ascii = true;

  constructor(private readonly pieceBytes: number = PIECE_BYTES) {
    this.batchChars = Math.max(1, Math.min(BATCH_CHARS, pieceBytes >> 4));
  }

  write(text: string): void {
    if (text.length === 0) return;
    this.chunks.push(text);
    const most = text.length * 3;
    if (this.at + most > this.buffer.byteLength) {
      this.flush();
      this.buffer = allocate(Math.max(this.pieceBytes + 6 * this.batchChars, most));
      this.used = this.at = 0;
    }
    const written = encodeInto(text, this.buffer, this.at);
    // JSON.stringify escapes lone surrogates, so more bytes than units means a non-ASCII character.
    if (written !== text.length) this.ascii = false;
    this.at += written;
    this.total += written;
    if (this.at - this.used >= this.pieceBytes) this.flush();
  }

  /** Closes what is written since the last piece, as pieces of at most about `PIECE_BYTES`. */
  flush(): void {
    let start = this.used;
    while (start < this.at) {
      let end = Math.min(this.at, start + this.pieceBytes);
      // Never cut inside a character: back off continuation bytes (10xxxxxx).
      while (end < this.at && end > start && (this.buffer[end]! & 0xc0) === 0x80) end--;
      this.pieces.push({ bytes: this.buffer.subarray(start, end), ascii: this.ascii });
      start = end;
    }
    this.used = this.at;
    this.ascii = true;
  }
}

function encodeInto(text: string, buffer: Uint8Array, at: number): number {
  if (NodeBuffer && typeof (buffer as NodeBufferLike).write === "function") {
    return (buffer as NodeBufferLike).write(text, at, buffer.byteLength - at, "utf8");
  }
  return encoder.encodeInto(text, buffer.subarray(at)).written;
}

/** The answer as UTF-8 JSON pieces with the layout of its lists; the text equals `JSON.stringify(value)`. */
export function serializeAnswer(value: unknown, options: PieceOptions = {}): SerializedAnswer {
  const writer = new PieceWriter(options.pieceBytes);
  const lists: ListLayout[] = [];
  if (Array.isArray(value) && !hasToJson(value)) {
    writer.write("[");
    lists.push(writeItems(writer, value));
    writer.write("]");
  } else if (isPlainObject(value) && isOrdinaryObject(value) && !hasToJson(value)) {
    writer.write("{");
    let first = true;
    for (const key of Object.keys(value)) {
      const member = value[key];
      const name = (first ? "" : ",") + JSON.stringify(key) + ":";
      if (Array.isArray(member) && !hasToJson(member)) {
        writer.write(name + "[");
        lists.push({ key, ...writeItems(writer, member) });
        writer.write("]");
      } else {
        const json = JSON.stringify(member);
        if (json === undefined) continue; // JSON drops undefined, functions and symbols
        writer.write(name + json);
      }
      first = false;
    }
    writer.write("}");
  } else {
    writer.write(JSON.stringify(value) ?? "null");
  }
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

/** Bytes or text already serialised elsewhere: pieces without a list layout (every query reads them all). */
export function serializedFromJson(json: string | Uint8Array, options: PieceOptions = {}): SerializedAnswer {
  const writer = new PieceWriter(options.pieceBytes);
  if (typeof json === "string") writer.write(json);
  else {
    writer.pieces.push(...splitBytes(json, options.pieceBytes ?? PIECE_BYTES));
    writer.total = json.byteLength;
  }
  writer.flush();
  return fromWriter(writer, [], typeof json === "string" ? undefined : json);
}

function fromWriter(writer: PieceWriter, lists: ListLayout[], bytes?: Uint8Array): SerializedAnswer {
  let text: string | undefined;
  const chunks = writer.chunks;
  return {
    bytes: writer.total,
    pieces: writer.pieces,
    lists,
    get text() {
      text ??= bytes ? new TextDecoder().decode(bytes) : chunks.join("");
      return text;
    },
  };
}

function splitBytes(bytes: Uint8Array, pieceBytes: number): Piece[] {
  const pieces: Piece[] = [];
  let start = 0;
  while (start < bytes.byteLength) {
    let end = Math.min(bytes.byteLength, start + pieceBytes);
    while (end < bytes.byteLength && end > start && (bytes[end]! & 0xc0) === 0x80) end--;
    pieces.push({ bytes: bytes.subarray(start, end), ascii: false });
    start = end;
  }
  return pieces;
}

/** Items in batches of about `BATCH_CHARS`; the first batch starts at the writer's current offset. */
function writeItems(writer: PieceWriter, items: readonly unknown[]): ListLayout {
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
