/**
 * The encrypted index of an answer stored in pieces (S8.5): how long each piece is, and where the items
 * of its large lists lie, so a query reads only the pieces its slice touches. It lives in the answer's
 * main record; the storage sees it only encrypted.
 */
import type { ListLayout } from "./serialize.js";
import type { StringLayout } from "./string-layout.js";
import type { ObjectLayout } from "./object-layout.js";
import { IV_BYTES, TAG_BYTES } from "../crypto/backend.js";
import { toJsonBytes } from "../../util/size.js";
import { decodeUtf8 } from "../../util/utf8.js";

export interface AnswerIndex {
  /** Random per save; bound into every piece's associated data, so pieces of two saves never mix. */
  nonce: Uint8Array;
  /** Byte length of each piece, in order (before padding). */
  pieces: number[];
  /**
   * The piece count every piece's associated data binds (S8.5), when it is not `pieces.length`: a fold
   * that seals pieces while it still serialises (S21.7, `SealAhead`) binds a count it settled on before
   * the last piece was written, at least as many as it then wrote. This index, sealed last, says which.
   */
  count?: number;
  /** The piece size the pieces are padded to (`paddedPieceLength`). */
  pad: number;
  /** Each piece's IV (12 bytes each, in order): a piece record is bare ciphertext (`sealPiece`). */
  ivs: Uint8Array;
  /** Each piece's GCM tag (16 bytes each, in order). */
  tags: Uint8Array;
  /** Per piece, 1 when its plaintext is pure ASCII (decoded as latin1), else 0. */
  ascii: number[];
  lists: ListLayout[];
  /** Long strings found by range (S16.4); an index written before them has none. */
  strings: StringLayout[];
  /** Wide objects by member batches (S16.4); an index written before them has none. */
  objects: ObjectLayout[];
}

/** What a query planner may know of the lists before anything else is read (`AnswerReader.lists`). */
export interface ListSummary {
  /** Keys from the root to the list; empty when the root is the list. */
  readonly path: readonly string[];
  readonly length: number;
}

/** What a query planner may know of the long strings: where, and their length in characters. */
export interface StringSummary {
  readonly path: readonly string[];
  readonly length: number;
}

/** What a query planner may know of the wide objects: where, and their key count (S16.4). */
export interface ObjectSummary {
  readonly path: readonly string[];
  readonly length: number;
}

export function encodeIndex(index: AnswerIndex): Uint8Array {
  const { nonce, pieces, pad, ivs, tags, ascii, lists, strings, objects, count } = index;
  const counted = count !== undefined && count !== pieces.length ? { count } : {};
  return toJsonBytes({
    nonce: Array.from(nonce),
    pieces,
    ...counted,
    pad,
    ivs: Array.from(ivs),
    tags: Array.from(tags),
    ascii,
    lists,
    strings: strings.map(({ path, length, batches, end }) => ({ path, length, chunks: batches, end })),
    objects,
  });
}

/**
 * A long string's layout as the stored index spells it: its batches under the key `chunks`, the index's
 * format from before "batch" named both a list's and a string's unit, kept so answers stored earlier still read.
 */
type StoredStringLayout = Omit<StringLayout, "batches"> & { chunks: number[] };

/** The index, or undefined when the plaintext is not one (it decrypted, so this means a bug or a foreign writer). */
export function decodeIndex(plaintext: Uint8Array): AnswerIndex | undefined {
  try {
    const raw = JSON.parse(decodeUtf8(plaintext)) as {
      nonce: number[];
      pieces: number[];
      count?: number;
      pad: number;
      ivs: number[];
      tags: number[];
      ascii: number[];
      lists: ListLayout[];
      strings?: StoredStringLayout[];
      objects?: ObjectLayout[];
    };
    const { nonce, pieces, count, pad, ivs, tags, ascii, lists, strings = [], objects = [] } = raw;
    if (![nonce, pieces, ivs, tags, ascii, lists, strings, objects].every(Array.isArray) || !Number.isSafeInteger(pad))
      return undefined;
    if (
      ivs.length !== pieces.length * IV_BYTES ||
      tags.length !== pieces.length * TAG_BYTES ||
      ascii.length !== pieces.length
    )
      return undefined;
    if (count !== undefined && !(Number.isSafeInteger(count) && count > pieces.length)) return undefined;
    const counted = count !== undefined ? { count } : {};
    return {
      nonce: Uint8Array.from(nonce),
      pieces,
      ...counted,
      pad,
      ivs: Uint8Array.from(ivs),
      tags: Uint8Array.from(tags),
      ascii,
      lists,
      strings: strings.map(({ path, length, chunks, end }) => ({ path, length, batches: chunks, end })),
      objects,
    };
  } catch {
    return undefined;
  }
}

/**
 * The piece count every piece's associated data binds (S8.5): `count` where the fold sealed ahead, else the pieces
 * there are.
 */
export function boundCount(index: Pick<AnswerIndex, "pieces" | "count">): number {
  return index.count ?? index.pieces.length;
}

/** The IV and tag piece `piece` was sealed with. */
export function pieceSeal(
  index: Pick<AnswerIndex, "ivs" | "tags">,
  piece: number,
): { iv: Uint8Array; tag: Uint8Array } {
  return { iv: slot(index.ivs, piece, IV_BYTES), tag: slot(index.tags, piece, TAG_BYTES) };
}

/** Slot `at` of a run of `size`-byte slots (the index keeps each piece's IV and tag so). */
export function slot(bytes: Uint8Array, at: number, size: number): Uint8Array {
  return bytes.subarray(at * size, (at + 1) * size);
}

/** The pieces a byte range touches, with the range's part in each. */
export function piecesOf(
  index: AnswerIndex,
  start: number,
  end: number,
): { piece: number; from: number; to: number }[] {
  const out: { piece: number; from: number; to: number }[] = [];
  let offset = 0;
  for (let piece = 0; piece < index.pieces.length && offset < end; piece++) {
    const length = index.pieces[piece]!;
    if (offset + length > start)
      out.push({ piece, from: Math.max(0, start - offset), to: Math.min(length, end - offset) });
    offset += length;
  }
  return out;
}
