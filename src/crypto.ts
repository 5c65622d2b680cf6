/**
 * Encryption of stored answers (S8.3), with WebCrypto only (S8.4) so Node and pages share it.
 *
 * From the handle (a random UUID, the only secret) and the owner, HKDF-SHA256 derives the AES-256-GCM
 * key and the storage key. The store therefore never sees a handle, a session, a caller or plaintext,
 * and a record read under another owner is simply not found.
 *
 * Record layout: version (1 byte) | expiresAt ms (float64, 8 bytes) | IV (12 bytes) | ciphertext+tag.
 * The associated data binds the storage key, the version and the expiry, so a record cannot be moved
 * to another key or have its lifetime extended.
 */
import { ResultHandlesError } from "./errors.js";

export interface Owner {
  session?: string;
  caller?: string;
}

export interface HandleKeys {
  storageKey: string;
  key: CryptoKey;
}

const FORMAT_VERSION = 1;
const HEADER_BYTES = 9;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const encoder = new TextEncoder();
const SALT = encoder.encode("mcp-result-handles/hkdf-salt/v1");

function subtle(): SubtleCrypto {
  const s = globalThis.crypto?.subtle;
  if (!s) throw new ResultHandlesError("WEBCRYPTO_UNAVAILABLE", "WebCrypto (globalThis.crypto.subtle) is required: use Node 20+ or a page served over https or localhost");
  return s;
}

function info(purpose: string, owner: Owner): Uint8Array {
  // JSON keeps session and caller apart whatever characters they hold.
  return encoder.encode(JSON.stringify([purpose, FORMAT_VERSION, owner.session ?? null, owner.caller ?? null]));
}

export async function deriveHandleKeys(handle: string, owner: Owner): Promise<HandleKeys> {
  const ikm = await subtle().importKey("raw", encoder.encode(handle) as BufferSource, "HKDF", false, ["deriveBits", "deriveKey"]);
  const hkdf = (purpose: string) => ({ name: "HKDF", hash: "SHA-256", salt: SALT as BufferSource, info: info(purpose, owner) as BufferSource });
  const [bits, key] = await Promise.all([
    subtle().deriveBits(hkdf("storage-key"), ikm, 256),
    subtle().deriveKey(hkdf("aes-256-gcm"), ikm, { name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]),
  ]);
  return { storageKey: toHex(new Uint8Array(bits)), key };
}

export async function sealRecord(keys: HandleKeys, plaintext: Uint8Array, expiresAt: number): Promise<Uint8Array> {
  const header = new Uint8Array(HEADER_BYTES);
  header[0] = FORMAT_VERSION;
  new DataView(header.buffer).setFloat64(1, expiresAt);
  const iv = globalThis.crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = await subtle().encrypt(
    { name: "AES-GCM", iv, additionalData: associatedData(keys.storageKey, header) as BufferSource },
    keys.key,
    plaintext as BufferSource,
  );
  const record = new Uint8Array(HEADER_BYTES + IV_BYTES + sealed.byteLength);
  record.set(header, 0);
  record.set(iv, HEADER_BYTES);
  record.set(new Uint8Array(sealed), HEADER_BYTES + IV_BYTES);
  return record;
}

/** The expiry (ms since the epoch) a record carries in its header. */
export function recordExpiry(record: Uint8Array): number {
  return new DataView(record.buffer, record.byteOffset, HEADER_BYTES).getFloat64(1);
}

/** The plaintext, or undefined when the record is expired, of another format, or fails to decrypt. */
export async function openRecord(keys: HandleKeys, record: Uint8Array, now: number): Promise<Uint8Array | undefined> {
  if (record.byteLength < HEADER_BYTES + IV_BYTES + TAG_BYTES || record[0] !== FORMAT_VERSION) return undefined;
  const header = record.subarray(0, HEADER_BYTES);
  if (!(recordExpiry(record) > now)) return undefined;
  try {
    const plain = await subtle().decrypt(
      { name: "AES-GCM", iv: record.subarray(HEADER_BYTES, HEADER_BYTES + IV_BYTES) as BufferSource, additionalData: associatedData(keys.storageKey, header) as BufferSource },
      keys.key,
      record.subarray(HEADER_BYTES + IV_BYTES) as BufferSource,
    );
    return new Uint8Array(plain);
  } catch {
    return undefined;
  }
}

function associatedData(storageKey: string, header: Uint8Array): Uint8Array {
  const key = encoder.encode(storageKey);
  const out = new Uint8Array(key.byteLength + header.byteLength);
  out.set(key, 0);
  out.set(header, key.byteLength);
  return out;
}

function toHex(bytes: Uint8Array): string {
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
export function isUuidV4(value: unknown): value is string {
  return typeof value === "string" && UUID_V4.test(value);
}
