/**
 * Encryption of stored answers (S8.3, S8.5). Pages use WebCrypto only; the Node build uses `node:crypto`
 * for the same algorithms when it is there (S8.4): it has no fixed cost per call and runs HKDF in
 * microseconds. Both produce the same bytes for the same key, IV and input (tested).
 *
 * From the handle (a random UUID, the only secret) and the owner, HKDF-SHA256 derives the AES-256-GCM
 * key of the answer, the storage key of its main record, and one storage key per piece (with the piece
 * index in the HKDF info). HKDF output is pseudorandom: no key shows the handle, the owner, or that two
 * keys belong to one answer. A record read under another owner is simply not found.
 *
 * Record layout (version 4). A whole answer or an index carries its tag, IV and header in a trailer:
 *   ciphertext | GCM tag (16) | IV (12) | expiresAt ms (float64) | piece index (u32) | piece count (u32) | flags (1) | version (1)
 * A piece is the bare ciphertext: its IV, GCM tag and ASCII flag live in its answer's index, which is
 * always read (and authenticated) first. So a piece is stored exactly as the cipher wrote it, never
 * copied to make room for a tag or trailer (WebCrypto hands back a fresh buffer of exactly ciphertext
 * and tag; `node:crypto` hands back the ciphertext and the tag apart).
 * The associated data binds the storage key and the header (for a piece, rebuilt from the index), so no
 * record can be moved to another key or have its lifetime extended. A piece opens only with the IV and
 * tag its index holds, so a piece from another save of the same handle does not open; the index's random
 * nonce, bound into every piece's associated data too, says the same a second time.
 */
import { ResultHandlesError } from "../errors.js";
import { toJsonBytes } from "../util/size.js";

export interface Owner {
  session?: string;
  caller?: string;
}

const FORMAT_VERSION = 4;
export const TAG_BYTES = 16;
export const IV_BYTES = 12;
const HEADER_BYTES = 18; // expiresAt 8, index 4, count 4, flags 1, version 1
const TRAILER_BYTES = IV_BYTES + HEADER_BYTES;
const encoder = new TextEncoder();
const SALT = encoder.encode("mcp-result-handles/hkdf-salt/v1");

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

/** A derived AES key: a `CryptoKey` for WebCrypto, raw bytes for `node:crypto`. Never leaves memory. */
export type AesKey = unknown;

/** The two ways to run the same algorithms (S8.4). */
export interface CryptoBackend {
  readonly name: "webcrypto" | "node";
  /**
   * The piece size (S8.5) this backend seals fastest, measured by `npm run bench`. Chromium's WebCrypto
   * encrypts on the calling thread, and a call above 256 KB costs up to twice as much per byte (fresh
   * memory for its copies); node:crypto has no such step, and fewer, larger pieces cost less there.
   */
  readonly pieceBytes: number;
  /** HKDF-SHA256 state for one handle: imported once, then asked for several outputs. */
  hkdf(ikm: Uint8Array): Promise<(info: Uint8Array) => Promise<Uint8Array>>;
  aesKey(hkdf: (info: Uint8Array) => Promise<Uint8Array>, info: Uint8Array): Promise<AesKey>;
  /** AES-256-GCM: the ciphertext (as long as the plaintext) and its 16-byte tag. */
  encrypt(key: AesKey, iv: Uint8Array, ad: Uint8Array, plaintext: Uint8Array): Promise<Sealed>;
  /** The plaintext, or undefined when authentication fails. */
  decrypt(key: AesKey, iv: Uint8Array, ad: Uint8Array, ciphertext: Uint8Array, tag: Uint8Array): Promise<Uint8Array | undefined>;
}

export interface Sealed {
  ciphertext: Uint8Array;
  tag: Uint8Array;
}

function subtle(): SubtleCrypto {
  const s = globalThis.crypto?.subtle;
  if (!s) throw new ResultHandlesError("WEBCRYPTO_UNAVAILABLE", "WebCrypto (globalThis.crypto.subtle) is required: use Node 20+ or a page served over https or localhost");
  return s;
}

/** Random bytes for IVs and nonces, from the runtime's WebCrypto (Node 20+ and every page have it). */
export function randomBytes(length: number): Uint8Array {
  const crypto = globalThis.crypto;
  if (typeof crypto?.getRandomValues !== "function") {
    throw new ResultHandlesError("WEBCRYPTO_UNAVAILABLE", "WebCrypto (globalThis.crypto.getRandomValues) is required: use Node 20+ or a page served over https or localhost");
  }
  const out = new Uint8Array(length);
  // getRandomValues fills at most 65,536 bytes a call (the IVs of an answer in many small pieces are more).
  for (let at = 0; at < length; at += 65_536) crypto.getRandomValues(out.subarray(at, at + 65_536));
  return out;
}

export const webCryptoBackend: CryptoBackend = {
  name: "webcrypto",
  pieceBytes: 256 * 1024,
  async hkdf(ikm) {
    const key = await subtle().importKey("raw", ikm as BufferSource, "HKDF", false, ["deriveBits", "deriveKey"]);
    return Object.assign(async (info: Uint8Array) => new Uint8Array(await subtle().deriveBits(hkdfParams(info), key, 256)), { key });
  },
  async aesKey(hkdf, info) {
    // One call where the key came from importKey: deriveKey takes the same 256 HKDF bits as the AES key.
    const base = (hkdf as { key?: CryptoKey }).key;
    if (base) return subtle().deriveKey(hkdfParams(info), base, { name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]);
    return subtle().importKey("raw", (await hkdf(info)) as BufferSource, { name: "AES-GCM" }, false, ["encrypt", "decrypt"]);
  },
  async encrypt(key, iv, ad, plaintext) {
    const sealed = new Uint8Array(
      await subtle().encrypt({ name: "AES-GCM", iv: iv as BufferSource, additionalData: ad as BufferSource }, key as CryptoKey, plaintext as BufferSource),
    );
    const at = sealed.byteLength - TAG_BYTES;
    return { ciphertext: sealed.subarray(0, at), tag: sealed.subarray(at) };
  },
  async decrypt(key, iv, ad, ciphertext, tag) {
    if (tag.byteLength !== TAG_BYTES) return undefined; // joined, a short tag would borrow ciphertext bytes
    try {
      const plain = await subtle().decrypt(
        { name: "AES-GCM", iv: iv as BufferSource, additionalData: ad as BufferSource },
        key as CryptoKey,
        joined(ciphertext, tag) as BufferSource,
      );
      return new Uint8Array(plain);
    } catch {
      return undefined;
    }
  },
};

/** WebCrypto wants ciphertext and tag in one buffer: a view over both where they lie side by side, else a copy. */
function joined(ciphertext: Uint8Array, tag: Uint8Array): Uint8Array {
  if (tag.buffer === ciphertext.buffer && tag.byteOffset === ciphertext.byteOffset + ciphertext.byteLength) {
    return new Uint8Array(ciphertext.buffer, ciphertext.byteOffset, ciphertext.byteLength + tag.byteLength);
  }
  const out = new Uint8Array(ciphertext.byteLength + tag.byteLength);
  out.set(ciphertext, 0);
  out.set(tag, ciphertext.byteLength);
  return out;
}

function hkdfParams(info: Uint8Array): HkdfParams {
  return { name: "HKDF", hash: "SHA-256", salt: SALT as BufferSource, info: info as BufferSource };
}

interface NodeCipher {
  setAAD(ad: Uint8Array): void;
  update(data: Uint8Array): Uint8Array;
  final(): Uint8Array;
  getAuthTag(): Uint8Array;
  setAuthTag(tag: Uint8Array): void;
}
interface NodeCrypto {
  hkdfSync(digest: string, ikm: Uint8Array, salt: Uint8Array, info: Uint8Array, length: number): ArrayBuffer;
  createCipheriv(algorithm: string, key: Uint8Array, iv: Uint8Array): NodeCipher;
  createDecipheriv(algorithm: string, key: Uint8Array, iv: Uint8Array): NodeCipher;
}

/** `node:crypto` over the same algorithms, when this runtime has it (Node 20.16+: `process.getBuiltinModule`). */
export function nodeCryptoBackend(): CryptoBackend | undefined {
  const getBuiltinModule = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  if (typeof getBuiltinModule !== "function") return undefined;
  const node = getBuiltinModule("node:crypto") as NodeCrypto | undefined;
  if (!node || typeof node.hkdfSync !== "function") return undefined;
  return {
    name: "node",
    pieceBytes: 512 * 1024,
    async hkdf(ikm) {
      return async (info) => new Uint8Array(node.hkdfSync("sha256", ikm, SALT, info, 32));
    },
    async aesKey(hkdf, info) {
      return hkdf(info);
    },
    async encrypt(key, iv, ad, plaintext) {
      // On the calling thread, in one call: steadier and no slower than handing pieces to WebCrypto's thread
      // pool, which first copies each one (10 MB: 2.7 ms here, 2.9–4.9 ms there, on Node 20).
      const cipher = node.createCipheriv("aes-256-gcm", key as Uint8Array, iv);
      cipher.setAAD(ad);
      const ciphertext = cipher.update(plaintext);
      cipher.final(); // GCM is a stream mode: nothing is held back
      return { ciphertext: plainBytes(ciphertext), tag: cipher.getAuthTag() };
    },
    async decrypt(key, iv, ad, ciphertext, tag) {
      if (tag.byteLength !== TAG_BYTES) return undefined;
      try {
        const decipher = node.createDecipheriv("aes-256-gcm", key as Uint8Array, iv);
        decipher.setAAD(ad);
        decipher.setAuthTag(tag);
        const plain = decipher.update(ciphertext);
        decipher.final(); // throws when the tag does not match
        return plainBytes(plain);
      } catch {
        return undefined;
      }
    },
  };
}

/** A Node Buffer as a plain Uint8Array over the same memory: a storage or caller that copies with `slice` gets a copy. */
function plainBytes(buffer: Uint8Array): Uint8Array {
  // A Buffer carved from Node's shared pool is copied: a stored view must not keep other data alive.
  if (buffer.byteLength !== buffer.buffer.byteLength) return new Uint8Array(buffer);
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

let defaultBackend: CryptoBackend | undefined;
/** `node:crypto` where it exists, WebCrypto elsewhere. */
export function defaultCryptoBackend(): CryptoBackend {
  defaultBackend ??= nodeCryptoBackend() ?? webCryptoBackend;
  return defaultBackend;
}

function info(purpose: string, owner: Owner, piece?: number): Uint8Array {
  // JSON keeps session and caller apart whatever characters they hold.
  const parts: unknown[] = [purpose, FORMAT_VERSION, owner.session ?? null, owner.caller ?? null];
  if (piece !== undefined) parts.push(piece);
  return toJsonBytes(parts);
}

/** Everything derived from one (handle, owner) pair. Kept in memory only (never in a storage). */
export class AnswerKeys {
  private readonly pieceKeys = new Map<number, Promise<string>>();

  private constructor(
    readonly backend: CryptoBackend,
    readonly storageKey: string,
    readonly aesKey: AesKey,
    private readonly hkdf: (info: Uint8Array) => Promise<Uint8Array>,
    private readonly owner: Owner,
  ) {}

  static async derive(handle: string, owner: Owner, backend: CryptoBackend = defaultCryptoBackend()): Promise<AnswerKeys> {
    const hkdf = await backend.hkdf(encoder.encode(handle));
    const [storage, aes] = await Promise.all([hkdf(info("storage-key", owner)), backend.aesKey(hkdf, info("aes-256-gcm", owner))]);
    return new AnswerKeys(backend, toHex(storage), aes, hkdf, { session: owner.session, caller: owner.caller });
  }

  /** The storage key of piece `index`, derived on first use and then remembered. */
  pieceKey(index: number): Promise<string> {
    let key = this.pieceKeys.get(index);
    if (!key) {
      key = this.hkdf(info("piece-storage-key", this.owner, index)).then(toHex);
      this.pieceKeys.set(index, key);
    }
    return key;
  }
}

export async function sealRecord(
  keys: AnswerKeys,
  storageKey: string,
  header: RecordHeader,
  plaintext: Uint8Array,
): Promise<Uint8Array> {
  const headerBytes = encodeHeader(header);
  const iv = randomBytes(IV_BYTES);
  const { ciphertext, tag } = await keys.backend.encrypt(keys.aesKey, iv, associatedData(storageKey, headerBytes), plaintext);
  const record = new Uint8Array(ciphertext.byteLength + TAG_BYTES + TRAILER_BYTES);
  record.set(ciphertext, 0);
  record.set(tag, ciphertext.byteLength);
  record.set(iv, ciphertext.byteLength + TAG_BYTES);
  record.set(headerBytes, ciphertext.byteLength + TAG_BYTES + IV_BYTES);
  return record;
}

/** A piece of an answer (S8.5): its record is the bare ciphertext; its fresh random IV and its tag go into its answer's index. */
export async function sealPiece(keys: AnswerKeys, storageKey: string, header: RecordHeader, iv: Uint8Array, plaintext: Uint8Array, nonce: Uint8Array): Promise<Sealed> {
  const sealed = await keys.backend.encrypt(keys.aesKey, iv, associatedData(storageKey, encodeHeader(header), nonce), plaintext);
  // The index keeps tags in 16-byte slots: a backend that returns another length is a bug, not a record.
  if (sealed.tag.byteLength !== TAG_BYTES) throw new ResultHandlesError("INVALID_USAGE", `a crypto backend returned a ${sealed.tag.byteLength}-byte tag; AES-GCM tags here are ${TAG_BYTES} bytes`);
  return sealed;
}

/** A piece's plaintext, or undefined when it fails to decrypt under the header, IV and tag its index expects. */
export function openPiece(
  keys: AnswerKeys,
  storageKey: string,
  header: RecordHeader,
  sealedWith: { iv: Uint8Array; tag: Uint8Array },
  record: Uint8Array,
  nonce: Uint8Array,
): Promise<Uint8Array | undefined> {
  return keys.backend.decrypt(keys.aesKey, sealedWith.iv, associatedData(storageKey, encodeHeader(header), nonce), record, sealedWith.tag);
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

/** The plaintext, or undefined when the record is expired, of another format, or fails to decrypt. */
export async function openRecord(
  keys: AnswerKeys,
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
    associatedData(storageKey, record.subarray(at + IV_BYTES)),
    record.subarray(0, at - TAG_BYTES),
    record.subarray(at - TAG_BYTES, at),
  );
  return plaintext && { header, plaintext };
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

function associatedData(storageKey: string, header: Uint8Array, nonce?: Uint8Array): Uint8Array {
  const key = encoder.encode(storageKey);
  const out = new Uint8Array(key.byteLength + header.byteLength + (nonce?.byteLength ?? 0));
  out.set(key, 0);
  out.set(header, key.byteLength);
  if (nonce) out.set(nonce, key.byteLength + header.byteLength);
  return out;
}

export function toHex(bytes: Uint8Array): string {
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
export function isUuidV4(value: unknown): value is string {
  return typeof value === "string" && UUID_V4.test(value);
}
