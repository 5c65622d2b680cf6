/**
 * The one size measure of this package: a value's size as UTF-8 JSON (S4.3). Thresholds, the folded
 * answer's allowance (S5.4) and slice limits (S7.6) all compare against it. UTF-8 in and out is the runtime's codec
 * (utf8Bytes, utf8Length).
 */
import { keyListOf } from "./json.js";
import { utf8Bytes, utf8Length } from "./utf8.js";

/** The value as UTF-8 JSON bytes. `bytes.byteLength` is its size. */
export function toJsonBytes(value: unknown): Uint8Array {
  return utf8Bytes(JSON.stringify(value) ?? "null");
}

/** Size in bytes of the value as UTF-8 JSON, without allocating the bytes. */
export function jsonSize(value: unknown): number {
  if (measuringKnownSizes > 0) return sizeWithKnown(value);
  return utf8Length(JSON.stringify(value) ?? "null");
}

/**
 * Values standing in for parts of a pieced answer that were not read (a list read in part, a long string
 * read in part: S16.4), each with the JSON size of the whole part, known from the answer's index. Only
 * inside `withKnownSizes` does `jsonSize` count them so (a summary of an answer, measured to build its
 * refusal without reading every piece); elsewhere nothing measures them whole.
 */
const knownSizes = new WeakMap<object, number>();
let measuringKnownSizes = 0;

export function setKnownJsonSize(standIn: object, bytes: number): void {
  knownSizes.set(standIn, bytes);
}

/** Runs `measure` (synchronous) with `jsonSize` counting every stand-in at its whole part's size. */
export function withKnownSizes<T>(measure: () => T): T {
  measuringKnownSizes++;
  try {
    return measure();
  } finally {
    measuringKnownSizes--;
  }
}

function sizeWithKnown(value: unknown): number {
  let extra = 0;
  const json = JSON.stringify(value, (_key, member: unknown) => {
    const known = typeof member === "object" && member !== null ? knownSizes.get(member) : undefined;
    if (known === undefined) return member;
    extra += known - 1; // it stands as `0`, one byte
    return 0;
  });
  return utf8Length(json ?? "null") + extra;
}

/**
 * How many leading items of a list fit in `limit` bytes as one JSON array (stops at the first that does not): what
 * a refusal says fits (S7.6), and what a hint's first read asks for (S18.1).
 */
export function fittingItems(items: readonly unknown[], limit: number): number {
  let bytes = 2; // []
  for (let i = 0; i < items.length; i++) {
    bytes += jsonSize(items[i]) + (i > 0 ? 1 : 0);
    if (bytes > limit) return i;
  }
  return items.length;
}

/** Size of a string as a JSON string (quotes and escapes included), in UTF-8 bytes. */
export function jsonStringSize(text: string): number {
  // Printable ASCII without quote or backslash is written as it is: the common case, counted without copying.
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c) return utf8Length(JSON.stringify(text));
  }
  return text.length + 2;
}

/**
 * `jsonSize(value)` when it is at most `upTo`; otherwise `upTo + 1`, found without looking at
 * the rest: the cost is that of measuring `upTo` bytes, however large the value. Iterative, so any depth.
 */
export function jsonSizeUpTo(value: unknown, upTo: number): number {
  let size = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && size <= upTo) {
    const item = pending.pop();
    const known =
      measuringKnownSizes > 0 && typeof item === "object" && item !== null ? knownSizes.get(item) : undefined;
    if (known !== undefined)
      size += known; // a stand-in for a part not read, inside `withKnownSizes`
    else if (typeof item === "string") size += jsonStringSize(item);
    else if (Array.isArray(item)) {
      size += 2 + Math.max(0, item.length - 1); // brackets and commas
      for (let i = item.length - 1; i >= 0; i--)
        pending.push(item[i] === undefined || typeof item[i] === "function" ? null : item[i]);
    } else if (typeof item === "object" && item !== null) {
      size += 2;
      let members = 0;
      for (const key of keyListOf(item)) {
        // a wide object read in batches: its kept key list (S26.1)
        const member = (item as Record<string, unknown>)[key];
        if (member === undefined || typeof member === "function" || typeof member === "symbol") continue;
        size += jsonStringSize(key) + 1 + (members++ > 0 ? 1 : 0); // "key": and a comma before all but the first
        pending.push(member);
        if (size > upTo) break;
      }
    } else size += item === undefined ? 4 : utf8Length(JSON.stringify(item) ?? "null");
  }
  // past `upTo`, one number however the value was held (whole, or a summary's stand-ins)
  return Math.min(size, upTo + 1);
}
