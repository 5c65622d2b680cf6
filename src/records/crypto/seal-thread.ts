/**
 * A second thread that encrypts an answer's pieces while the calling thread is still serialising the rest
 * (S21.7, `SealAhead`). Only runtimes with threads and `node:crypto` have one (`nodeSealThread`); elsewhere
 * every piece is sealed once the serialisation ends, as before.
 */
import type { Sealed } from "./backend.js";

export interface SealThread {
  /** Whether it can take jobs now; when it is not running, this starts it (a fold meanwhile seals on its own thread). */
  available(): boolean;
  /**
   * AES-256-GCM of `plaintext` under `key` (raw bytes) on the other thread, the same bytes `node:crypto`
   * writes on this one. `plaintext` must lie in a SharedArrayBuffer (`sharesPieces`): the thread reads it
   * in place, so it must not change until this settles. Rejects when the thread fails or stops: the caller
   * then seals on its own thread.
   */
  encrypt(key: Uint8Array, iv: Uint8Array, ad: Uint8Array, plaintext: Uint8Array): Promise<Sealed>;
}

/** Whether `bytes` lie in memory another thread can read in place (the only pieces a seal thread takes). */
export function isShared(bytes: Uint8Array): boolean {
  return typeof SharedArrayBuffer === "function" && bytes.buffer instanceof SharedArrayBuffer;
}
