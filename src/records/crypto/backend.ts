/**
 * The seam between the record format and a crypto library (S8.3, S8.4): HKDF-SHA256 and AES-256-GCM,
 * run by WebCrypto (`webCryptoBackend`, every runtime) or by `node:crypto` (`nodeCryptoBackend`, which the Node
 * runtime picks where it measures faster). Both produce the same bytes for the same key, IV and input
 * (tested), so records stay byte-compatible whichever wrote them. The core never probes for one: a
 * runtime hands it its backend (`Runtime.crypto`), and a bare store takes WebCrypto.
 */
import { ResultHandlesError } from "../../errors.js";

/** AES-GCM's tag and IV, in bytes. */
export const TAG_BYTES = 16;
export const IV_BYTES = 12;

/** The HKDF salt of every derivation; what is derived is told apart by the HKDF info (`AnswerKeys`). */
export const HKDF_SALT = new TextEncoder().encode("mcp-result-handles/hkdf-salt/v1");

/** A derived AES key: a `CryptoKey` for WebCrypto, raw bytes for `node:crypto`. Never leaves memory. */
export type AesKey = unknown;

/** HKDF-SHA256 state for one input key: 32 bytes of output per info. */
export type Hkdf = (info: Uint8Array) => Promise<Uint8Array>;

export interface Sealed {
  ciphertext: Uint8Array;
  tag: Uint8Array;
}

/** The two ways to run the same algorithms (S8.4). */
export interface CryptoBackend {
  readonly name: "webcrypto" | "node";
  /**
   * The piece size (S8.5) this backend seals fastest, measured by `npm run bench`. Chromium's WebCrypto
   * encrypts on the calling thread, and a call above 256 KB costs up to twice as much per byte (fresh
   * memory for its copies); node:crypto has no such step, and fewer, larger pieces cost less there.
   * The serialiser cuts pieces of this size when the fold or the store hands it over (`serializeAnswerYielding`).
   */
  readonly pieceBytes: number;
  /** HKDF-SHA256 state for one handle: imported once, then asked for several outputs. */
  hkdf(ikm: Uint8Array): Promise<Hkdf>;
  /**
   * The same HKDF on the calling thread, for a backend whose AES key is the raw 32 bytes HKDF gives
   * (`node:crypto`): a fold can then derive an answer's keys in the middle of its serialisation, to seal
   * pieces while it goes on (S21.7, `SealAhead`). WebCrypto has none.
   */
  hkdfNow?(ikm: Uint8Array): (info: Uint8Array) => Uint8Array;
  aesKey(hkdf: Hkdf, info: Uint8Array): Promise<AesKey>;
  /** AES-256-GCM: the ciphertext (as long as the plaintext) and its 16-byte tag. */
  encrypt(key: AesKey, iv: Uint8Array, ad: Uint8Array, plaintext: Uint8Array): Promise<Sealed>;
  /** The plaintext, or undefined when authentication fails. */
  decrypt(
    key: AesKey,
    iv: Uint8Array,
    ad: Uint8Array,
    ciphertext: Uint8Array,
    tag: Uint8Array,
  ): Promise<Uint8Array | undefined>;
}

/** Random bytes for IVs and nonces, from the runtime's WebCrypto (Node 20+ and every page have it). */
export function randomBytes(length: number): Uint8Array {
  const crypto = globalThis.crypto;
  if (typeof crypto?.getRandomValues !== "function") {
    throw new ResultHandlesError(
      "WEBCRYPTO_UNAVAILABLE",
      "WebCrypto (globalThis.crypto.getRandomValues) is required: " +
        "use Node 20+ or a page served over https or localhost",
    );
  }
  const out = new Uint8Array(length);
  // getRandomValues fills at most 65,536 bytes a call (the IVs of an answer in many small pieces are more).
  for (let at = 0; at < length; at += 65_536) crypto.getRandomValues(out.subarray(at, at + 65_536));
  return out;
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

export function toHex(bytes: Uint8Array): string {
  let hex = "";
  for (const byte of bytes) hex += HEX[byte]!;
  return hex;
}

/**
 * The record format's version: the last byte of every record, and bound into every key derived (S8.3), so
 * records of another format never open, even under the same secret.
 */
export const FORMAT_VERSION = 6;
