import type { Base64Codec } from "../../storage/base64.js";

/** Node's base64, through Buffer: views of the same bytes, no copy on the way back. */
export const nodeBase64: Base64Codec = {
  encode: (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64"),
  decode: (text) => {
    const bytes = Buffer.from(text, "base64");
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  },
};
