/**
 * Base64 for stores that carry bytes as text (Upstash's REST protocol). Node's Buffer where the runtime
 * has one (fast); elsewhere `btoa`/`atob`, which every edge runtime and page has, so the edge build needs
 * no Node compatibility flag (S17.1).
 */
type BufferLike = Uint8Array & { toString(encoding: "base64"): string };
const NodeBuffer = (globalThis as unknown as {
  Buffer?: { from(text: string, encoding: "base64"): Uint8Array; from(buffer: ArrayBufferLike, offset: number, length: number): BufferLike };
}).Buffer;

// String.fromCharCode takes its arguments on the stack: 32K of them at a time stays far below any limit.
const CHUNK = 0x8000;

export function toBase64(bytes: Uint8Array): string {
  if (NodeBuffer) return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  let binary = "";
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

export function fromBase64(text: string): Uint8Array {
  if (NodeBuffer) {
    const bytes = NodeBuffer.from(text, "base64");
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
