/**
 * UTF-8 in and out, for every part of the core that turns JSON text into bytes or back. The core uses the
 * Web platform's encoder, which every runtime has; a runtime with a faster one hands it over once, as it
 * is defined (`useUtf8Codec`, called by `defineRuntime`), so the core holds no probe of its own for Node.
 */
export interface Utf8Codec {
  /** UTF-8 to text; `ascii` says the bytes are known to be ASCII (a codec may then read them faster). */
  decode(bytes: Uint8Array, ascii: boolean): string;
  /** A JSON text as UTF-8 bytes (possibly a view on a slightly larger buffer). */
  encode(text: string): Uint8Array;
  /** UTF-8 length of a string whose surrogates are paired. */
  byteLength(text: string): number;
  /** A buffer to encode into; its bytes may be anything (callers write every byte they use). */
  allocate(size: number): Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** UTF-8 length counted by hand: `JSON.stringify` escapes lone surrogates, so every surrogate here is paired. */
function countUtf8(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff)
      (i++, (bytes += 2)); // pair: 2 units -> 4 bytes
    else bytes += 2;
  }
  return bytes;
}

/**
 * The Web codec. `encodeInto` a buffer made beforehand costs a fifth of `TextEncoder.encode` in pages
 * (9 MB of JSON in Chromium 156: 6 ms against 31 ms in ASCII, 22 ms against 122 ms in Chinese): the
 * buffer has room for an eighth more bytes than characters, and grows once when that is not enough.
 */
const webUtf8Codec: Utf8Codec = {
  decode: (bytes) => decoder.decode(bytes),
  encode(text) {
    let bytes = new Uint8Array(text.length + (text.length >> 3) + 8);
    let { read, written } = encoder.encodeInto(text, bytes);
    if (read < text.length) {
      // The rest takes at most 3 bytes per UTF-16 unit (a surrogate pair: 4 bytes for 2 units).
      const larger = new Uint8Array(written + (text.length - read) * 3);
      larger.set(bytes.subarray(0, written));
      written += encoder.encodeInto(text.slice(read), larger.subarray(written)).written;
      bytes = larger;
    }
    return bytes.subarray(0, written);
  },
  byteLength: countUtf8,
  allocate: (size) => new Uint8Array(size),
};

let codec: Utf8Codec = webUtf8Codec;

/** Makes `codec` the one the core uses from now on (a runtime's faster encoder; S8.4's records are the same bytes). */
export function useUtf8Codec(next: Utf8Codec): void {
  codec = next;
}

/** UTF-8 to text; bytes known to be ASCII may be read faster. */
export function decodeUtf8(bytes: Uint8Array, ascii = false): string {
  return codec.decode(bytes, ascii);
}

/** A buffer to encode into (callers write every byte they use). */
export function allocateBytes(size: number): Uint8Array {
  return codec.allocate(size);
}

/** A JSON text as UTF-8 bytes (possibly a view on a slightly larger buffer). */
export function utf8Bytes(text: string): Uint8Array {
  return codec.encode(text);
}

/** UTF-8 length of a string. Short strings are counted here: a call into the runtime costs more than the loop. */
export function utf8Length(text: string): number {
  return text.length > 64 ? codec.byteLength(text) : countUtf8(text);
}
