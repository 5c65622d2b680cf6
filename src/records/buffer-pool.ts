/**
 * Spare piece-sized buffers for the serialiser (`PieceWriter`). Fresh memory costs a page fault per 4 KB on
 * first write (in Chromium, a fifth of a 10 MB answer's fold); a buffer handed back once its answer is
 * encrypted does not. At most 12 MB of them are kept, only buffers of `MIN_POOLED_BYTES` or more (the
 * piece sizes of the crypto backends, never the tiny pieces tests ask for). They hold the plaintext of
 * the last answers, so they go (zeroed) once no answer has folded for `SPARE_IDLE_MS`, or at shutdown.
 */
import { allocateBytes } from "../util/utf8.js";
import { isShared } from "./crypto/seal-thread.js";
import { unref } from "../util/unref.js";

const SPARE_TOTAL_BYTES = 12 * 1024 * 1024;
const MIN_POOLED_BYTES = 128 * 1024;
const SPARE_IDLE_MS = 10_000;

const spareBuffers: Uint8Array[] = [];
let spareBytes = 0;
let lastRelease = 0;
let idleTimer: ReturnType<typeof setTimeout> | undefined;

/** Whether `size` is a size the pool keeps (a writer notes such buffers, to release them later). */
export function isPooledSize(size: number): boolean {
  return size >= MIN_POOLED_BYTES;
}

/** Whether a spare of exactly `size` bytes waits. */
export function hasSpare(size: number): boolean {
  return spareBuffers.some((buffer) => buffer.byteLength === size);
}

/** Piece-sized buffers are SharedArrayBuffers from `useSharedPieceBuffers` on. */
let shared = false;

/**
 * From now on piece-sized buffers lie in SharedArrayBuffers, which a seal thread reads in place (S21.7,
 * `nodeSealThread`): no copy to hand a piece over. Only a runtime with such a thread asks for it.
 */
export function useSharedPieceBuffers(): void {
  if (shared) return;
  shared = true;
  dropSpareBuffers(); // made before: they would be taken first, and the thread cannot read them
}

/**
 * A buffer of `size` bytes: a spare one when one of that size waits, else fresh (unzeroed in Node, but shared ones).
 */
export function takeBuffer(size: number): Uint8Array {
  if (isPooledSize(size)) {
    for (let at = spareBuffers.length - 1; at >= 0; at--) {
      if (spareBuffers[at]!.byteLength !== size) continue;
      const [spare] = spareBuffers.splice(at, 1);
      spareBytes -= size;
      return spare!;
    }
    if (shared) return new Uint8Array(new SharedArrayBuffer(size));
  }
  return allocateBytes(size);
}

/** Drops the spares, and with them the plaintext the last answers left in them (at shutdown, or when idle). */
export function dropSpareBuffers(): void {
  // Zeroed first: freed memory may come back uninitialised to other code in the process (Buffer.allocUnsafe).
  for (const buffer of spareBuffers) buffer.fill(0);
  spareBuffers.length = 0;
  spareBytes = 0;
  if (idleTimer !== undefined) clearTimeout(idleTimer);
  idleTimer = undefined;
}

/** Hands buffers back once nothing reads them (their answer is encrypted), up to the pool's total. */
export function releaseBuffers(buffers: readonly Uint8Array[]): void {
  for (const buffer of buffers) {
    if (!isPooledSize(buffer.byteLength) || spareBuffers.includes(buffer) || (shared && !isShared(buffer))) continue;
    if (spareBytes + buffer.byteLength > SPARE_TOTAL_BYTES) break;
    spareBuffers.push(buffer);
    spareBytes += buffer.byteLength;
  }
  if (spareBuffers.length === 0) return;
  lastRelease = Date.now();
  idleTimer ??= dropWhenIdle(SPARE_IDLE_MS);
}

/** One timer for all releases: when it fires early (answers kept coming), it waits out the rest. */
function dropWhenIdle(delay: number): ReturnType<typeof setTimeout> {
  return unref(
    setTimeout(() => {
      const idle = Date.now() - lastRelease;
      if (idle >= SPARE_IDLE_MS) dropSpareBuffers();
      else idleTimer = dropWhenIdle(SPARE_IDLE_MS - idle);
    }, delay),
  );
}
