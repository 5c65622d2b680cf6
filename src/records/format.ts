/**
 * The record format, in one place (S8.3, S8.5): what a storage holds under each derived key.
 *
 * Record layout (version 5). A whole answer or an index carries its tag, IV and header in a trailer:
 *   ciphertext | GCM tag (16) | IV (12) | expiresAt ms (float64) | piece index (u32) | piece count (u32) | flags (1) | version (1)
 * Padding (S16.5) lies inside the ciphertext, so it is authenticated: a whole or index plaintext is
 *   data | zeros | data length (u32)
 * of a bucket size (`bucketSize`, powers of 1.25), and a piece is zero-padded to its answer's piece size
 * when it is the last, shorter one (its real length is in the index). A storage sees a size class, not a size.
 * A piece is the bare ciphertext: its IV, GCM tag and ASCII flag live in its answer's index, which is
 * always read (and authenticated) first. So a piece is stored exactly as the cipher wrote it, never
 * copied to make room for a tag or trailer (WebCrypto hands back a fresh buffer of exactly ciphertext
 * and tag; `node:crypto` hands back the ciphertext and the tag apart).
 * The associated data binds the storage key and the header (for a piece, rebuilt from the index), so no
 * record can be moved to another key or have its lifetime extended. A piece opens only with the IV and
 * tag its index holds, so a piece from another save of the same handle does not open; the index's random
 * nonce, bound into every piece's associated data too, says the same a second time.
 * The associated data also binds the store's scope (its namespace and instance, S16.5, S16.6), which the
 * keys are derived under too: a record copied into another namespace does not decrypt there.
 * A record of another version (version 4 had no padding nor scope) reads as not found.
 */
import { ResultHandlesError } from "../errors.js";
import { IV_BYTES, TAG_BYTES, randomBytes, type AesKey, type CryptoBackend, type Sealed } from "./crypto/backend.js";

export const FORMAT_VERSION = 5;
const HEADER_BYTES = 18; // expiresAt 8, index 4, count 4, flags 1, version 1
const TRAILER_BYTES = IV_BYTES + HEADER_BYTES;
const encoder = new TextEncoder();

/** What a record holds: the whole answer, the index of a pieced answer, or one of its pieces. */
export type RecordKind = "whole" | "index" | "piece";
const KIND_BITS: Record<RecordKind, number> = { whole: 0, index: 1, piece: 2 };
const KINDS: RecordKind[] = ["whole", "index", "piece"];
const ASCII_FLAG = 4;

export interface RecordHeader {
  kind: RecordKind;
  /** The plaintext is pure ASCII (flagged at seal time), so it may be decoded as latin1. */
  ascii: boolean;
  expiresAt: number;
  pieceIndex: number;
  pieceCount: number;
}

/** What a piece's associated data binds (S8.5): rebuilt from its index when read. */
export function pieceHeader(expiresAt: number, pieceIndex: number, pieceCount: number, ascii: boolean): RecordHeader {
  return { kind: "piece", ascii, expiresAt, pieceIndex, pieceCount };
}

/** What sealing and opening need of an answer's keys (crypto/keys.ts `AnswerKeys`). */
export interface SealingKeys {
  readonly backend: CryptoBackend;
  readonly aesKey: AesKey;
  /** The store's scope (namespace, instance) as bytes, bound into every record's associated data. */
  readonly scope: Uint8Array;
}

/** Smallest record plaintext; from there buckets grow by a quarter each (S16.5: "powers of 1.25"). */
const MIN_BUCKET = 128;
const LENGTH_BYTES = 4;

/** The bucket a plaintext of `length` bytes is padded to: the smallest of 128, 160, 200, 250, 313, … holding it. */
export function bucketSize(length: number): number {
  let size = MIN_BUCKET;
  while (size < length) size = Math.ceil(size * 1.25);
  return size;
}

/** A piece's padded length: the answer's piece size `full`, or the bucket of a shorter last piece if smaller. */
export function paddedPieceLength(length: number, full: number): number {
  return length >= full ? length : Math.min(full, bucketSize(length));
}

/** `bytes` followed by zeros up to `size`: in place when the `room` bytes after it in its buffer are free, else in a copy. */
function padded(bytes: Uint8Array, room: number, size: number): Uint8Array {
  const length = bytes.byteLength;
  const out = size - length <= room ? new Uint8Array(bytes.buffer, bytes.byteOffset, size) : new Uint8Array(size);
  if (out.buffer !== bytes.buffer) out.set(bytes);
  out.fill(0, length);
  return out;
}

/** A piece's plaintext padded to `paddedPieceLength` (in place where its buffer has room: pieces usually do). */
export function padPiece(bytes: Uint8Array, room: number, full: number): Uint8Array {
  return padded(bytes, room, paddedPieceLength(bytes.byteLength, full));
}

/** A whole or index plaintext padded to its bucket, its length last. */
function padRecord(bytes: Uint8Array, room: number): Uint8Array {
  const out = padded(bytes, room, bucketSize(bytes.byteLength + LENGTH_BYTES));
  new DataView(out.buffer, out.byteOffset, out.byteLength).setUint32(out.byteLength - LENGTH_BYTES, bytes.byteLength);
  return out;
}

function unpadRecord(bytes: Uint8Array): Uint8Array | undefined {
  if (bytes.byteLength < LENGTH_BYTES) return undefined;
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(bytes.byteLength - LENGTH_BYTES);
  return length <= bytes.byteLength - LENGTH_BYTES ? bytes.subarray(0, length) : undefined;
}

/** Seals a whole answer or an index; `room` free bytes after `plaintext` in its buffer let it pad in place. */
export async function sealRecord(keys: SealingKeys, storageKey: string, header: RecordHeader, plaintext: Uint8Array, room = 0): Promise<Uint8Array> {
  const headerBytes = encodeHeader(header);
  const iv = randomBytes(IV_BYTES);
  const { ciphertext, tag } = await keys.backend.encrypt(keys.aesKey, iv, associatedData(keys, storageKey, headerBytes), padRecord(plaintext, room));
  const record = new Uint8Array(ciphertext.byteLength + TAG_BYTES + TRAILER_BYTES);
  record.set(ciphertext, 0);
  record.set(tag, ciphertext.byteLength);
  record.set(iv, ciphertext.byteLength + TAG_BYTES);
  record.set(headerBytes, ciphertext.byteLength + TAG_BYTES + IV_BYTES);
  return record;
}

/** The plaintext, or undefined when the record is expired, of another format, or fails to decrypt. */
export async function openRecord(
  keys: SealingKeys,
  storageKey: string,
  record: Uint8Array,
  now: number,
): Promise<{ header: RecordHeader; plaintext: Uint8Array } | undefined> {
  const header = readHeader(record);
  if (!header || !(header.expiresAt > now)) return undefined;
  const at = record.byteLength - TRAILER_BYTES;
  const plaintext = await keys.backend.decrypt(
    keys.aesKey,
    record.subarray(at, at + IV_BYTES),
    associatedData(keys, storageKey, record.subarray(at + IV_BYTES)),
    record.subarray(0, at - TAG_BYTES),
    record.subarray(at - TAG_BYTES, at),
  );
  const data = plaintext && unpadRecord(plaintext);
  return data && { header, plaintext: data };
}

/**
 * A piece of an answer (S8.5): its record is the bare ciphertext; its fresh random IV and its tag go into
 * its answer's index. Pass it padded (`padPiece`); `openPiece` hands back the padded plaintext.
 */
export async function sealPiece(keys: SealingKeys, storageKey: string, header: RecordHeader, iv: Uint8Array, plaintext: Uint8Array, nonce: Uint8Array): Promise<Sealed> {
  const sealed = await keys.backend.encrypt(keys.aesKey, iv, associatedData(keys, storageKey, encodeHeader(header), nonce), plaintext);
  // The index keeps tags in 16-byte slots: a backend that returns another length is a bug, not a record.
  if (sealed.tag.byteLength !== TAG_BYTES) throw new ResultHandlesError("INVALID_USAGE", `a crypto backend returned a ${sealed.tag.byteLength}-byte tag; AES-GCM tags here are ${TAG_BYTES} bytes`);
  return sealed;
}

/** A piece's plaintext, or undefined when it fails to decrypt under the header, IV and tag its index expects. */
export function openPiece(
  keys: SealingKeys,
  storageKey: string,
  header: RecordHeader,
  sealedWith: { iv: Uint8Array; tag: Uint8Array },
  record: Uint8Array,
  nonce: Uint8Array,
): Promise<Uint8Array | undefined> {
  return keys.backend.decrypt(keys.aesKey, sealedWith.iv, associatedData(keys, storageKey, encodeHeader(header), nonce), record, sealedWith.tag);
}

/** The header a record carries, or undefined when it is of another format. It is authenticated only by `openRecord`. */
function readHeader(record: Uint8Array): RecordHeader | undefined {
  if (record.byteLength < TAG_BYTES + TRAILER_BYTES || record[record.byteLength - 1] !== FORMAT_VERSION) return undefined;
  const view = new DataView(record.buffer, record.byteOffset + record.byteLength - HEADER_BYTES, HEADER_BYTES);
  const flags = view.getUint8(16);
  const kind = KINDS[flags & 3];
  if (!kind) return undefined;
  return { kind, ascii: (flags & ASCII_FLAG) !== 0, expiresAt: view.getFloat64(0), pieceIndex: view.getUint32(8), pieceCount: view.getUint32(12) };
}

function encodeHeader(header: RecordHeader): Uint8Array {
  const bytes = new Uint8Array(HEADER_BYTES);
  const view = new DataView(bytes.buffer);
  view.setFloat64(0, header.expiresAt);
  view.setUint32(8, header.pieceIndex);
  view.setUint32(12, header.pieceCount);
  view.setUint8(16, KIND_BITS[header.kind] | (header.ascii ? ASCII_FLAG : 0));
  view.setUint8(17, FORMAT_VERSION);
  return bytes;
}

/** scope (JSON, so self-delimiting) | storage key (64 hex) | header (18) | nonce (16, pieces only). */
function associatedData(keys: SealingKeys, storageKey: string, header: Uint8Array, nonce?: Uint8Array): Uint8Array {
  const scope = keys.scope;
  const key = encoder.encode(storageKey);
  const out = new Uint8Array(scope.byteLength + key.byteLength + header.byteLength + (nonce?.byteLength ?? 0));
  out.set(scope, 0);
  out.set(key, scope.byteLength);
  out.set(header, scope.byteLength + key.byteLength);
  if (nonce) out.set(nonce, scope.byteLength + key.byteLength + header.byteLength);
  return out;
}
