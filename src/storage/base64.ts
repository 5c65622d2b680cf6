/** Bytes as base64 text and back: how REST stores carry binary records (S9). */
export interface Base64Codec {
  encode(bytes: Uint8Array): string;
  decode(text: string): Uint8Array;
}

/**
 * Base64 from `btoa`/`atob`, which every runtime has (pages, workerd, Deno, Bun, Node): for builds
 * without `Buffer`. Node's build passes its own, about 13 times faster (4.8 ms against 63 ms per 4 MB
 * round trip on Node 20).
 */
export const webBase64: Base64Codec = {
  encode(bytes) {
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(binary);
  },
  decode(text) {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  },
};
