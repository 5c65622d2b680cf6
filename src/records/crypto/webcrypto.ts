/** AES-256-GCM and HKDF-SHA256 through WebCrypto (`globalThis.crypto.subtle`): the only backend of pages (S8.4). */
import { ResultHandlesError } from "../../errors.js";
import { HKDF_SALT, TAG_BYTES, type CryptoBackend } from "./backend.js";
import { isShared } from "./seal-thread.js";

function subtle(): SubtleCrypto {
  const s = globalThis.crypto?.subtle;
  if (!s)
    throw new ResultHandlesError(
      "WEBCRYPTO_UNAVAILABLE",
      "WebCrypto (globalThis.crypto.subtle) is required: use Node 20+ or a page served over https or localhost",
    );
  return s;
}

export const webCryptoBackend: CryptoBackend = {
  name: "webcrypto",
  pieceBytes: 256 * 1024,
  async hkdf(ikm) {
    const key = await subtle().importKey("raw", ikm as BufferSource, "HKDF", false, ["deriveBits", "deriveKey"]);
    return Object.assign(
      async (info: Uint8Array) => new Uint8Array(await subtle().deriveBits(hkdfParams(info), key, 256)),
      { key },
    );
  },
  async aesKey(hkdf, info) {
    // One call where the key came from importKey: deriveKey takes the same 256 HKDF bits as the AES key.
    const base = (hkdf as { key?: CryptoKey }).key;
    if (base)
      return subtle().deriveKey(hkdfParams(info), base, { name: "AES-GCM", length: 256 }, false, [
        "encrypt",
        "decrypt",
      ]);
    return subtle().importKey("raw", (await hkdf(info)) as BufferSource, { name: "AES-GCM" }, false, [
      "encrypt",
      "decrypt",
    ]);
  },
  async encrypt(key, iv, ad, plaintext) {
    // WebCrypto refuses a view on a SharedArrayBuffer, where Node's serialiser may leave a piece for its
    // seal thread (`useSharedPieceBuffers`): a store given this backend in Node copies such a piece.
    if (isShared(plaintext)) plaintext = plaintext.slice();
    const sealed = new Uint8Array(
      await subtle().encrypt(
        { name: "AES-GCM", iv: iv as BufferSource, additionalData: ad as BufferSource },
        key as CryptoKey,
        plaintext as BufferSource,
      ),
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

/**
 * WebCrypto wants ciphertext and tag in one buffer: a view over both where they lie side by side, else both
 * copied into one scratch buffer kept for the next call. Reusing it is safe because `decrypt` copies its
 * input before it returns (WebCrypto: "get a copy of the bytes held by the data parameter"), and this is
 * called as its argument, with nothing awaited between. A fresh buffer per piece cost Chromium about 9 ms
 * per 10 MB (its pages are faulted in as they are written); the scratch costs 0.2 ms.
 */
function joined(ciphertext: Uint8Array, tag: Uint8Array): Uint8Array {
  if (tag.buffer === ciphertext.buffer && tag.byteOffset === ciphertext.byteOffset + ciphertext.byteLength) {
    return new Uint8Array(ciphertext.buffer, ciphertext.byteOffset, ciphertext.byteLength + tag.byteLength);
  }
  const length = ciphertext.byteLength + tag.byteLength;
  let into = scratch;
  if (into.byteLength < length) {
    into = new Uint8Array(length);
    // a piece is at most about 1 MiB: only an outsized record is joined in a buffer of its own
    if (length <= MAX_SCRATCH_BYTES) scratch = into;
  }
  into.set(ciphertext, 0);
  into.set(tag, ciphertext.byteLength);
  return into.subarray(0, length);
}
const MAX_SCRATCH_BYTES = 2 * 1024 * 1024;
let scratch = new Uint8Array(0);

function hkdfParams(info: Uint8Array): HkdfParams {
  return { name: "HKDF", hash: "SHA-256", salt: HKDF_SALT as BufferSource, info: info as BufferSource };
}
