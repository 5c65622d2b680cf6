/**
 * Sealing a serialised answer into records (S8.3, S8.5, S16.5): one whole record, or an index and its
 * pieces, each piece with a fresh random IV, the index holding every piece's IV and tag.
 */
import { INDEXED_BYTES } from "../defaults.js";
import { encodeIndex, slot, type AnswerIndex } from "./format/answer-index.js";
import { IV_BYTES, TAG_BYTES, randomBytes } from "./crypto/backend.js";
import type { AnswerKeys } from "./crypto/keys.js";
import { padPiece, pieceHeader, sealPiece, sealRecord } from "./format/format.js";
import type { SerializedAnswer } from "./format/serialize.js";

/** Encrypted records and the derived keys they go under, main record first: all a storage ever sees. */
export interface SealedAnswer {
  readonly records: readonly { readonly key: string; readonly value: Uint8Array }[];
  /** An opaque tag of the answer's owner, for a storage in this process that shares its room among owners (S26.5). */
  readonly owner?: string;
}

/** The records of `answer`, sealed under `keys`, readable until `expiresAt` (ms). */
export async function sealAnswer(keys: AnswerKeys, answer: SerializedAnswer, expiresAt: number): Promise<SealedAnswer> {
  const pieces = answer.pieces;
  if (!wantsIndex(answer)) {
    const piece = pieces[0] ?? { bytes: new Uint8Array(0), ascii: true, room: 0 };
    const header = { kind: "whole", ascii: piece.ascii, expiresAt, pieceIndex: 0, pieceCount: 1 } as const;
    return {
      records: [
        { key: keys.storageKey, value: await sealRecord(keys, keys.storageKey, header, piece.bytes, piece.room) },
      ],
    };
  }
  // Every piece but the last is about `pieceBytes` long (within 3 bytes): all pad to the longest (S16.5).
  const pad = pieces.reduce((longest, piece) => Math.max(longest, piece.bytes.byteLength), answer.pieceBytes);
  // Every piece gets a fresh random IV; its IV and tag are kept in the index, sealed once the pieces are.
  const nonce = randomBytes(16);
  const pieceCount = pieces.length;
  const ivs = randomBytes(pieceCount * IV_BYTES);
  const sealedPieces = await Promise.all(
    pieces.map(async (piece, pieceIndex) => {
      const key = await keys.pieceKey(pieceIndex);
      const header = pieceHeader(expiresAt, pieceIndex, pieceCount, piece.ascii);
      const plaintext = padPiece(piece.bytes, piece.room, pad);
      return { key, ...(await sealPiece(keys, key, header, slot(ivs, pieceIndex, IV_BYTES), plaintext, nonce)) };
    }),
  );
  return withIndex(keys, answer, { expiresAt, nonce, pad, ivs, count: pieceCount }, sealedPieces);
}

/** How an answer's pieces were sealed: what its index records and every piece's header binds. */
interface PieceSealing {
  readonly expiresAt: number;
  /** Random per save, bound into every piece's associated data. */
  readonly nonce: Uint8Array;
  readonly pad: number;
  /** Every piece's IV, 12 bytes each. */
  readonly ivs: Uint8Array;
  /** The piece count every piece's header binds: the pieces there are, or more when sealed ahead (`SealAhead`). */
  readonly count: number;
}

/**
 * The records of a pieced answer: its index (each piece's length, IV and tag, its lists' layout), sealed now, then its
 * pieces.
 */
export async function withIndex(
  keys: AnswerKeys,
  answer: SerializedAnswer,
  sealing: PieceSealing,
  sealedPieces: readonly { key: string; ciphertext: Uint8Array; tag: Uint8Array }[],
): Promise<SealedAnswer> {
  const { pieces } = answer;
  const tags = new Uint8Array(pieces.length * TAG_BYTES);
  sealedPieces.forEach((piece, at) => slot(tags, at, TAG_BYTES).set(piece.tag));
  const index: AnswerIndex = {
    nonce: sealing.nonce,
    pieces: pieces.map((p) => p.bytes.byteLength),
    ...(sealing.count !== pieces.length && { count: sealing.count }),
    pad: sealing.pad,
    ivs: sealing.ivs,
    tags,
    ascii: pieces.map((p) => (p.ascii ? 1 : 0)),
    lists: [...answer.lists],
    strings: [...answer.strings],
    objects: [...answer.objects],
  };
  const indexHeader = {
    kind: "index",
    ascii: false,
    expiresAt: sealing.expiresAt,
    pieceIndex: 0,
    pieceCount: sealing.count,
  } as const;
  const main = {
    key: keys.storageKey,
    value: await sealRecord(keys, keys.storageKey, indexHeader, encodeIndex(index)),
  };
  return { records: [main, ...sealedPieces.map(({ key, ciphertext }) => ({ key, value: ciphertext }))] };
}

/**
 * Whether an index lets a query read less than the whole answer: always with several pieces; in one piece
 * past INDEXED_BYTES when a list spans several batches, since a query of 20 rows from a 100 KB answer then
 * parses one batch, not the whole (first reads 1.4 → 0.8× a parse in Node). Else one record.
 */
export function wantsIndex(answer: SerializedAnswer): boolean {
  if (answer.pieces.length > 1) return true;
  return (
    answer.bytes > INDEXED_BYTES &&
    (answer.lists.some((list) => list.batches.length / 2 > 1) || answer.objects.length > 0)
  ); // pairs per batch; a wide object has several
}
