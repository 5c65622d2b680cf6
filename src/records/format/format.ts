/**
 * The record format, in one place (S8.3, S8.5): what a storage holds under each derived key.
 *
 * Record layout (version 6). A whole answer or an index shows nothing but what opening it needs:
 *   ciphertext | GCM tag (16) | IV (12) | version (1)
 * Its header (expiry, kind, piece count, ASCII flag) is sealed inside the ciphertext (S16.5: a store reader
 * learns a size class, not when the answer folded, whether it is pieced, nor whether it is ASCII). Padding
 * lies inside the ciphertext too, so it is authenticated: a whole or index plaintext is
 *   data | zeros | expiresAt ms (float64) | piece index (u32) | piece count (u32) | flags (1) | data length (u32)
 * of a bucket size (`bucketSize`, powers of 1.25). The header is a fixed-size suffix, next to the length, so
 * padding still happens in place in the serialiser's buffer (a prefix would copy every whole answer).
 * A piece is zero-padded to its answer's piece size when it is the last, shorter one (its real length is in
 * the index). A storage sees a size class, not a size.
 * A piece is the bare ciphertext: its IV, GCM tag and ASCII flag live in its answer's index, which is
 * always read (and authenticated) first. So a piece is stored exactly as the cipher wrote it, never
 * copied to make room for a tag or trailer (WebCrypto hands back a fresh buffer of exactly ciphertext
 * and tag; `node:crypto` hands back the ciphertext and the tag apart).
 * The associated data binds the storage key and the format version; for a piece also its header, rebuilt
 * from the index (expiry, piece index and count, ASCII flag), so no record can be moved to another key or
 * have its lifetime extended. A piece opens only with the IV and tag its index holds, so a piece from
 * another save of the same handle does not open; the index's random nonce, bound into every piece's
 * associated data too, says the same a second time.
 * The associated data also binds the store's scope (its namespace and instance, S16.5, S16.6), which the
 * keys are derived under too: a record copied into another namespace does not decrypt there.
 * A record of another version (version 5 showed its header in a plaintext trailer; version 4 had no padding
 * nor scope) reads as not found: its keys are derived under another version (`AnswerKeys`) and its last byte differs.
 */
import { ResultHandlesError } from "../../errors.js";
import {
  FORMAT_VERSION,
  IV_BYTES,
  TAG_BYTES,
  randomBytes,
  type AesKey,
  type CryptoBackend,
  type Sealed,
} from "../crypto/backend.js";

/** A piece's header, as its associated data binds it: expiresAt 8, index 4, count 4, flags 1, version 1. */
const HEADER_BYTES = 18;
/** The header sealed inside a whole or index plaintext: the piece header without the version byte. */
const SEALED_HEADER_BYTES = HEADER_BYTES - 1;
/** What a whole or index record shows outside its ciphertext: the GCM tag, the IV and the version. */
const TRAILER_BYTES = TAG_BYTES + IV_BYTES + 1;
const encoder = new TextEncoder();

/** What a record holds: the whole answer, the index of a pieced answer, or one of its pieces. */
type RecordKind = "whole" | "index" | "piece";
const KIND_BITS: Record<RecordKind, number> = { whole: 0, index: 1, piece: 2 };
const KINDS: RecordKind[] = ["whole", "index", "piece"];
const ASCII_FLAG = 4;

interface RecordHeader {
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

/** What sealing and opening need of an answer's keys (`AnswerKeys`). */
interface SealingKeys {
  readonly backend: CryptoBackend;
  readonly aesKey: AesKey;
  /** The store's scope (namespace, instance) as bytes, bound into every record's associated data. */
  readonly scope: Uint8Array;
}

/** Smallest record plaintext; from there buckets grow by a quarter each (S16.5: "powers of 1.25"). */
const MIN_BUCKET = 128;
const LENGTH_BYTES = 4;

/** The bucket a plaintext of `length` bytes is padded to: the smallest of 128, 160, 200, 250, 313, … holding it. */
function bucketSize(length: number): number {
  let size = MIN_BUCKET;
  while (size < length) size = Math.ceil(size * 1.25);
  return size;
}

/** A piece's padded length: the answer's piece size `full`, or the bucket of a shorter last piece if smaller. */
export function paddedPieceLength(length: number, full: number): number {
  return length >= full ? length : Math.min(full, bucketSize(length));
}

/**
 * `bytes` followed by zeros up to `size`: in place when the `room` bytes after it in its buffer are free, else in a
 * copy.
 */
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

/** A whole or index plaintext padded to its bucket, its header and length last. */
function padRecord(bytes: Uint8Array, room: number, header: Uint8Array): Uint8Array {
  const out = padded(bytes, room, bucketSize(bytes.byteLength + SEALED_HEADER_BYTES + LENGTH_BYTES));
  out.set(header.subarray(0, SEALED_HEADER_BYTES), out.byteLength - LENGTH_BYTES - SEALED_HEADER_BYTES);
  new DataView(out.buffer, out.byteOffset, out.byteLength).setUint32(out.byteLength - LENGTH_BYTES, bytes.byteLength);
  return out;
}

/** The data and the sealed header of an opened whole or index plaintext, or undefined when they do not fit. */
function unpadRecord(bytes: Uint8Array): { header: RecordHeader; data: Uint8Array } | undefined {
  const tail = SEALED_HEADER_BYTES + LENGTH_BYTES;
  if (bytes.byteLength < tail) return undefined;
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(
    bytes.byteLength - LENGTH_BYTES,
  );
  const header = decodeHeader(bytes.subarray(bytes.byteLength - tail, bytes.byteLength - LENGTH_BYTES));
  return header && length <= bytes.byteLength - tail ? { header, data: bytes.subarray(0, length) } : undefined;
}

/** Seals a whole answer or an index; `room` free bytes after `plaintext` in its buffer let it pad in place. */
export async function sealRecord(
  keys: SealingKeys,
  storageKey: string,
  header: RecordHeader,
  plaintext: Uint8Array,
  room = 0,
): Promise<Uint8Array> {
  if (header.kind === "piece")
    throw new ResultHandlesError("INVALID_USAGE", "a piece is sealed with sealPiece, not sealRecord");
  const iv = randomBytes(IV_BYTES);
  const { ciphertext, tag } = await keys.backend.encrypt(
    keys.aesKey,
    iv,
    associatedData(keys, storageKey, VERSION_BYTES),
    padRecord(plaintext, room, encodeHeader(header)),
  );
  const record = new Uint8Array(ciphertext.byteLength + TRAILER_BYTES);
  record.set(ciphertext, 0);
  record.set(tag, ciphertext.byteLength);
  record.set(iv, ciphertext.byteLength + TAG_BYTES);
  record[record.byteLength - 1] = FORMAT_VERSION;
  return record;
}

/**
 * The header and plaintext, or undefined when the record is of another format, fails to decrypt, is
 * expired by the expiry sealed inside it (reads end at the TTL, whatever the storage's own expiry), or is
 * not a whole answer or an index.
 */
export async function openRecord(
  keys: SealingKeys,
  storageKey: string,
  record: Uint8Array,
  now: number,
): Promise<{ header: RecordHeader; plaintext: Uint8Array } | undefined> {
  if (record.byteLength < TRAILER_BYTES || record[record.byteLength - 1] !== FORMAT_VERSION) return undefined;
  const at = record.byteLength - TRAILER_BYTES;
  const plaintext = await keys.backend.decrypt(
    keys.aesKey,
    record.subarray(at + TAG_BYTES, at + TAG_BYTES + IV_BYTES),
    associatedData(keys, storageKey, VERSION_BYTES),
    record.subarray(0, at),
    record.subarray(at, at + TAG_BYTES),
  );
  const opened = plaintext && unpadRecord(plaintext);
  if (!opened || !(opened.header.expiresAt > now) || opened.header.kind === "piece") return undefined;
  return { header: opened.header, plaintext: opened.data };
}

/**
 * A piece of an answer (S8.5): its record is the bare ciphertext; its fresh random IV and its tag go into
 * its answer's index. Pass it padded (`padPiece`); `openPiece` hands back the padded plaintext.
 */
export async function sealPiece(
  keys: SealingKeys,
  storageKey: string,
  header: RecordHeader,
  iv: Uint8Array,
  plaintext: Uint8Array,
  nonce: Uint8Array,
): Promise<Sealed> {
  const sealed = await keys.backend.encrypt(
    keys.aesKey,
    iv,
    pieceAssociatedData(keys, storageKey, header, nonce),
    plaintext,
  );
  return checkedTag(sealed);
}

/**
 * What a piece's associated data binds: its store's scope, its storage key, its header and its index's nonce
 * (`sealPiece`).
 */
function pieceAssociatedData(
  keys: SealingKeys,
  storageKey: string,
  header: RecordHeader,
  nonce: Uint8Array,
): Uint8Array {
  return associatedData(keys, storageKey, encodeHeader(header), nonce);
}

/**
 * A piece's associated data without its storage key, which goes between `head` and `tail` as its 64 hex
 * characters (`pieceAssociatedData`): for a seal thread that derives the key itself (S21.7).
 */
export function pieceAssociatedDataAround(
  keys: SealingKeys,
  header: RecordHeader,
  nonce: Uint8Array,
): { head: Uint8Array; tail: Uint8Array } {
  const encoded = encodeHeader(header);
  const tail = new Uint8Array(encoded.byteLength + nonce.byteLength);
  tail.set(encoded, 0);
  tail.set(nonce, encoded.byteLength);
  return { head: keys.scope, tail };
}

/** `sealed`, once its tag is known to fit the index's slots. */
export function checkedTag(sealed: Sealed): Sealed {
  // The index keeps tags in 16-byte slots: a backend that returns another length is a bug, not a record.
  if (sealed.tag.byteLength !== TAG_BYTES)
    throw new ResultHandlesError(
      "INVALID_USAGE",
      `a crypto backend returned a ${sealed.tag.byteLength}-byte tag; AES-GCM tags here are ${TAG_BYTES} bytes`,
    );
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
  return keys.backend.decrypt(
    keys.aesKey,
    sealedWith.iv,
    associatedData(keys, storageKey, encodeHeader(header), nonce),
    record,
    sealedWith.tag,
  );
}

/** A header from its first 17 bytes (as `encodeHeader` writes them), or undefined when its kind is unknown. */
function decodeHeader(bytes: Uint8Array): RecordHeader | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, SEALED_HEADER_BYTES);
  const flags = view.getUint8(16);
  const kind = KINDS[flags & 3];
  if (!kind || flags & ~(3 | ASCII_FLAG)) return undefined;
  return {
    kind,
    ascii: (flags & ASCII_FLAG) !== 0,
    expiresAt: view.getFloat64(0),
    pieceIndex: view.getUint32(8),
    pieceCount: view.getUint32(12),
  };
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

const VERSION_BYTES = Uint8Array.of(FORMAT_VERSION);

/**
 * scope (JSON, so self-delimiting) | storage key (64 hex) | version (1; whole, index) or header (18) and nonce (16;
 * pieces).
 */
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
