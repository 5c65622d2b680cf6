/**
 * The serialiser's output stage (`serializeAnswerYielding`): UTF-8 straight into piece-sized buffers (S8.5).
 */
import { isHighSurrogate } from "../../util/json.js";
import { hasSpare, isPooledSize, takeBuffer } from "../buffer-pool.js";
import { SERIALISE_HOLD_MS } from "../../defaults.js";
import { loopHeld } from "../../util/yield.js";

/**
 * Pieces are cut at the size the crypto backend seals fastest (`CryptoBackend.pieceBytes`: 512 KB with
 * node:crypto, 256 KB with WebCrypto), which the fold and the store pass in; this is the size when none is
 * given. Either way smaller than 1 MB, so a 1 MB answer already splits and its first query decrypts part
 * of it, and a remote store moves at most this much for a slice.
 */
export const DEFAULT_PIECE_BYTES = 256 * 1024;
/** A batch holds about this many UTF-16 units of JSON: the grain of the list index. */
const BATCH_CHARS = 32 * 1024;
/** Longer texts are encoded this many UTF-16 units at a time (see `PieceWriter.write`). */
const WRITE_CHARS = 64 * 1024;

export interface Piece {
  readonly bytes: Uint8Array;
  /** Pure ASCII, so it decodes as latin1 (much faster than UTF-8 in Node). */
  readonly ascii: boolean;
  /**
   * Bytes just past `bytes` in its buffer that nothing else uses: the record format pads into them in place
   * (`padPiece`).
   */
  readonly room: number;
}

const encoder = new TextEncoder();
const FIRST_BUFFER_BYTES = 64 * 1024;

/**
 * Where the writer is in a value written part by part (a list's items, a long string's characters, a wide
 * object's members): what lets it guess the answer's whole size.
 */
interface Progress {
  /** Byte offset where the value's first part starts. */
  readonly start: number;
  /** Items, characters or members written before the part being written. */
  readonly done: number;
  /** Items, characters or members in all. */
  readonly length: number;
}

/**
 * A serialisation's steps (S21.4): each `yield` is a place where it has held the calling thread
 * SERIALISE_HOLD_MS since it last yielded and may yield (`serializeAnswerYielding`); what it
 * returns is what it wrote's layout.
 */
export type YieldSteps<T = void> = Generator<void, T, void>;

/**
 * Told each piece as it is closed, with the bytes the whole answer may come to (a guess, when the writer can make one).
 */
export type PieceListener = (piece: Piece, index: number, expectedBytes: number | undefined) => void;

/**
 * Encodes strings as UTF-8 (`encodeInto`, no intermediate copies) into piece-sized buffers: a full
 * buffer becomes a piece. `encodeInto` never splits a character, so every piece decodes on its own.
 * Piece-sized buffers go back to a few spares once their answer is encrypted (`release`), so the next
 * answer writes into memory already faulted in, where one large buffer per answer would be fresh memory
 * to fault in every time.
 */
export class PieceWriter {
  readonly pieces: Piece[] = [];
  /** Set by the serialiser while it writes a list, a long string or a wide object part by part. */
  progress: Progress | undefined;
  /** When the serialisation last yield (or began). */
  private since = performance.now();
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
    private readonly onPiece?: PieceListener,
  ) {
    this.same = repeatedBy !== undefined;
    this.batchChars = Math.max(1, Math.min(BATCH_CHARS, pieceBytes >> 4));
    // A spare piece-sized buffer costs nothing; else start small, so a small answer stays one small buffer.
    this.buffer = this.newBuffer(
      hasSpare(pieceBytes) ? pieceBytes : Math.max(4, Math.min(pieceBytes, FIRST_BUFFER_BYTES)),
    );
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
    // A long text (a deep or wide value serialised whole) is encoded WRITE_CHARS units at a time: Chromium
    // copies the whole string an `encodeInto` call is given, so giving it the rest of a 10 MB text once per
    // piece copied it 20 times.
    for (let from = 0; from < text.length;) {
      let to = Math.min(text.length, from + WRITE_CHARS);
      if (to < text.length && isHighSurrogate(text.charCodeAt(to - 1))) to--; // never split a surrogate pair
      this.encode(text.slice(from, to));
      from = to;
    }
  }

  private encode(text: string): void {
    for (let from = 0; ;) {
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

  /**
   * The whole answer's bytes guessed from the value being written part by part: what it came to so far,
   * with the rest of the value at the same bytes per item (character, member). Undefined outside such a
   * value, or before a part of it is done.
   */
  private expectedBytes(): number | undefined {
    const progress = this.progress;
    if (!progress || progress.done === 0) return undefined;
    return progress.start + ((this.total - progress.start) * progress.length) / progress.done;
  }

  /**
   * Whether the serialisation has held the calling thread SERIALISE_HOLD_MS since it last yield (S21.4).
   */
  held(): boolean {
    // or the loop has been held as long by this and other calls since it last came round (twenty folds that
    // came in together held it 160 ms, S26.3)
    return performance.now() - this.since > SERIALISE_HOLD_MS || loopHeld(SERIALISE_HOLD_MS);
  }

  /** The serialisation goes on after it yielded. */
  resumed(): void {
    this.since = performance.now();
  }

  /** Whether `repeatedBy` is exactly the text written. */
  get repeated(): boolean {
    return this.same && this.chars === this.repeatedBy!.length;
  }

  /** Closes what is written as a piece. */
  flush(): void {
    if (this.at > 0) {
      const piece = {
        bytes: this.buffer.subarray(0, this.at),
        ascii: this.ascii,
        room: this.buffer.byteLength - this.at,
      };
      this.pieces.push(piece);
      this.onPiece?.(piece, this.pieces.length - 1, this.expectedBytes());
    }
    this.buffer = this.buffer.subarray(this.at);
    this.at = 0;
    this.ascii = true;
  }
}
