/**
 * Sealing an answer's pieces while the fold is still serialising the rest (S21.7), on a second thread
 * (`SealThread`), so a large answer costs its serialisation and little more.
 *
 * Every piece's associated data binds its index and the answer's piece count (S8.5), and the count is
 * known only once the serialisation ends. So the count is settled before: when the first piece is
 * closed inside a value written part by part (a list in batches, a long string in batches, a wide object in
 * member batches), the writer guesses the whole answer's bytes from that value's bytes per item
 * (`PieceWriter.expectedBytes`), and the count bound is what that guess, with a margin
 * (SEAL_AHEAD_MARGIN), would need. Every piece from then on is handed to the thread under that count. When
 * the serialisation ends within it, the index records the count the pieces bind (`AnswerIndex.count`,
 * more than the pieces written) and is sealed last, as always; a store reader sees the same records. When
 * it does not (the guess was short: a second large list, say), nothing sealed ahead is used and the fold
 * seals every piece once the serialisation ends, as it does without a thread.
 *
 * The thread gets the answer's AES key, the handle's bytes (to derive each piece's storage key as
 * `AnswerKeys.pieceKey` does: HKDF on this thread cost as much as the rest of a hand-over) and each
 * piece's IV and associated data around that key, made here; it reads the piece's plaintext in place (a
 * SharedArrayBuffer the serialiser wrote it to) and hands back its storage key, ciphertext and tag. Pieces
 * are padded (`padPiece`) before they are handed over, so none changes after.
 */
import { SEAL_AHEAD_MARGIN, SEAL_AHEAD_MAX_COUNT } from "../defaults.js";
import { HKDF_SALT, IV_BYTES, randomBytes } from "./crypto/backend.js";
import type { AnswerKeys } from "./crypto/keys.js";
import { isShared, type SealedPiece, type SealThread } from "./crypto/seal-thread.js";
import { checkedTag, padPiece, pieceAssociatedDataAround, pieceHeader } from "./format/format.js";
import type { Piece } from "./format/piece-writer.js";
import type { SerializedAnswer } from "./format/serialize.js";
import { wantsIndex, withIndex, type SealedAnswer } from "./seal-answer.js";

/** A sealed piece whose tag fits the index's slots (`checkedTag`). */
function checkedPiece(piece: SealedPiece): SealedPiece {
  checkedTag(piece);
  return piece;
}

/** The piece count a guess of `expectedBytes` settles on: what the guess with its margin would need, and one more. */
function countAhead(expectedBytes: number, pieceBytes: number): number {
  return Math.ceil((expectedBytes * SEAL_AHEAD_MARGIN) / pieceBytes) + 1;
}

export class SealAhead {
  private keys: AnswerKeys | undefined;
  private count = 0;
  private nonce: Uint8Array | undefined;
  private ivs: Uint8Array = new Uint8Array(0);
  private expiresAt = 0;
  private readonly seen: Piece[] = [];
  /** Bytes of the pieces seen. */
  private written = 0;
  private readonly jobs: Promise<SealedPiece>[] = [];
  private readonly ikm: Uint8Array;
  /** Why sealing ahead stopped (nothing it did is used then), or undefined while it may still be used. */
  private stopped: string | undefined;

  constructor(
    /** The handle the answer will be saved under: the fold uses this one. */
    readonly handle: string,
    private readonly thread: SealThread,
    /** The answer's keys on the calling thread (`AnswerKeys.deriveNow`), or undefined where they cannot be made so. */
    private readonly deriveKeys: () => AnswerKeys | undefined,
    private readonly ttlMs: number,
    private readonly pieceBytes: number,
    /**
     * Nothing is sealed ahead before this many bytes are written (the fold's threshold: smaller answers are not saved).
     */
    private readonly minBytes = 0,
  ) {
    this.ikm = new TextEncoder().encode(handle); // what HKDF derives the answer's keys from (`AnswerKeys`)
  }

  /** The serialiser closed piece `index` (a `PieceListener`). */
  readonly piece = (piece: Piece, index: number, expectedBytes: number | undefined): void => {
    if (this.stopped) return;
    this.seen.push(piece);
    if (index !== this.seen.length - 1) return this.stop("pieces out of order");
    this.written += piece.bytes.byteLength;
    if (!this.keys) {
      if (expectedBytes === undefined || this.written <= this.minBytes) return; // not yet: the pieces so far wait
      if (!this.start(expectedBytes)) return;
      this.seen.forEach((each, at) => this.hand(each, at));
      return;
    }
    this.hand(piece, index);
  };

  private start(expectedBytes: number): boolean {
    // The thread starts on the first answer that needs it; that answer is sealed on the calling thread.
    if (!this.thread.available()) {
      this.stop("the seal thread is not loaded yet");
      return false;
    }
    const count = countAhead(expectedBytes, this.pieceBytes);
    if (count > SEAL_AHEAD_MAX_COUNT) {
      this.stop("a guess past the most pieces sealed ahead");
      return false;
    }
    const keys = this.deriveKeys();
    if (!keys) {
      this.stop("no keys on this thread");
      return false;
    }
    this.keys = keys;
    this.count = count;
    this.nonce = randomBytes(16);
    this.ivs = randomBytes(this.count * IV_BYTES); // one draw for every piece there may be
    // from here, not from after the fold's policy: a few ms of a TTL of minutes
    this.expiresAt = Date.now() + this.ttlMs;
    return true;
  }

  private hand(piece: Piece, index: number): void {
    const keys = this.keys!;
    if (index >= this.count) return this.stop("more pieces than the count settled on");
    if (piece.bytes.byteLength > this.pieceBytes) return this.stop("a piece longer than the pieces are padded to");
    const plaintext = padPiece(piece.bytes, piece.room, this.pieceBytes);
    if (!isShared(plaintext)) return this.stop("a piece the thread cannot read in place");
    const info = keys.pieceInfoNow(index);
    if (info === undefined) return this.stop("no piece key on this thread");
    const { head, tail } = pieceAssociatedDataAround(
      keys,
      pieceHeader(this.expiresAt, index, this.count, piece.ascii),
      this.nonce!,
    );
    const iv = this.ivs.slice(index * IV_BYTES, (index + 1) * IV_BYTES);
    // The thread derives the piece's storage key too: HKDF on this thread cost as much as the rest of a hand-over.
    const sealed = this.thread
      .seal({ key: keys.aesKey as Uint8Array, iv, ikm: this.ikm, salt: HKDF_SALT, info, head, tail, plaintext })
      .then(checkedPiece);
    sealed.catch(() => {}); // a failed job means sealing on the calling thread: `finish` finds out
    this.jobs.push(sealed);
  }

  private stop(why: string): void {
    this.stopped ??= why;
  }

  /** Resolves once the thread has let go of every piece it was handed (their buffers may then be reused). */
  settled(): Promise<unknown> {
    return Promise.allSettled(this.jobs);
  }

  /**
   * The answer's records when every piece of `answer` was sealed ahead under one count; else undefined, and
   * the caller seals it as usual (the thread is done with the pieces either way when this settles).
   */
  async finish(answer: SerializedAnswer): Promise<SealedAnswer | undefined> {
    const outcomes = await Promise.allSettled(this.jobs);
    const keys = this.keys;
    if (this.stopped || !keys || this.jobs.length !== answer.pieces.length || !wantsIndex(answer)) return undefined;
    if (answer.pieces.some((piece, at) => piece !== this.seen[at])) return undefined;
    const sealedPieces: { key: string; ciphertext: Uint8Array; tag: Uint8Array }[] = [];
    for (const outcome of outcomes) {
      if (outcome.status === "rejected") return undefined;
      const { storageKey, ciphertext, tag } = outcome.value;
      sealedPieces.push({ key: storageKey, ciphertext, tag });
    }
    const ivs = this.ivs.slice(0, this.jobs.length * IV_BYTES);
    return withIndex(
      keys,
      answer,
      { expiresAt: this.expiresAt, nonce: this.nonce!, pad: this.pieceBytes, ivs, count: this.count },
      sealedPieces,
    );
  }
}
