/**
 * A second thread that encrypts an answer's pieces while the calling thread is still serialising the rest
 * (S21.7, `SealAhead`). Only runtimes with threads and `node:crypto` have one (`nodeSealThread`); elsewhere
 * every piece is sealed once the serialisation ends, as before.
 */
import type { Sealed } from "./backend.js";

/** One piece for a seal thread: everything its record needs, the storage key derived there. */
export interface PieceJob {
  /** The answer's AES-256-GCM key (raw bytes). */
  readonly key: Uint8Array;
  readonly iv: Uint8Array;
  /**
   * The piece's storage key is HKDF-SHA256 of `ikm` (the handle), `salt` and `info`, as lower-case hex
   * (`AnswerKeys.pieceKey`).
   */
  readonly ikm: Uint8Array;
  readonly salt: Uint8Array;
  readonly info: Uint8Array;
  /** The associated data is `head`, the storage key's hex as ASCII, then `tail` (`pieceAssociatedDataAround`). */
  readonly head: Uint8Array;
  readonly tail: Uint8Array;
  /** Padded, in a SharedArrayBuffer (`isShared`): read in place, so it must not change until the job settles. */
  readonly plaintext: Uint8Array;
}

/** What a seal thread hands back for a piece: its storage key, ciphertext and tag. */
export interface SealedPiece extends Sealed {
  readonly storageKey: string;
}

export interface SealThread {
  /**
   * Whether it can take jobs now; when it is not running, this starts it (a fold meanwhile seals on its own thread).
   */
  available(): boolean;
  /**
   * Derives the piece's storage key and seals it with AES-256-GCM on the other thread: the same bytes
   * `node:crypto` writes on this one. Rejects when the thread fails or stops: the caller then seals on its
   * own thread.
   */
  seal(job: PieceJob): Promise<SealedPiece>;
}

/** Whether `bytes` lie in memory another thread can read in place (the only pieces a seal thread takes). */
export function isShared(bytes: Uint8Array): boolean {
  return typeof SharedArrayBuffer === "function" && bytes.buffer instanceof SharedArrayBuffer;
}
