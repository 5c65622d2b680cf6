/**
 * What a parsed answer holds in memory, estimated (S16.3): caches of parsed answers count this, not their
 * JSON length, since `{}` is 2 bytes of JSON and about 56 bytes of heap, and four 7.5 MB answers of
 * empty objects kept 635 MiB while a JSON-length cap counted 30 MB. The figures are V8's, rounded up
 * (64-bit, no pointer compression): an object's header and in-object slots, an array's header and one
 * slot per item (holes too), a string's header and two bytes per character (a two-byte string; a
 * one-byte string costs half: an overestimate is the safe side), a boxed number. Measured on Node 20 after
 * GC, parsed from JSON: 1M `{}` 64.0 MB (estimate 64 MB), 1M `[]` 40.0 MB (40 MB), 60,000 rows
 * `{ i, note }` 4.7 MB (7.8 MB), 200,000 strings of 56 ASCII characters 16.0 MB (27 MB).
 */
const OBJECT_BYTES = 56;
const PER_KEY_BYTES = 16;
const ARRAY_BYTES = 32;
const PER_ITEM_BYTES = 8;
const STRING_BYTES = 16;
const PER_CHAR_BYTES = 2;
const NUMBER_BYTES = 16;
const VIEW_BYTES = 64;

/**
 * The estimate for `value`, walked without recursion (answers may be thousands of levels deep). Stops
 * counting once past `stopAt` (the caller's cap), so an answer too large to keep costs no more than
 * the cap's worth of walking.
 */
export function heapEstimate(value: unknown, stopAt = Number.POSITIVE_INFINITY): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= stopAt) {
    const next = stack.pop();
    switch (typeof next) {
      case "string":
        total += STRING_BYTES + PER_CHAR_BYTES * next.length;
        break;
      case "number":
        // else a small integer, held in its slot
        if (!Number.isInteger(next) || Math.abs(next) >= 2 ** 30) total += NUMBER_BYTES;
        break;
      case "object":
        if (next === null) break;
        if (ArrayBuffer.isView(next)) {
          total += VIEW_BYTES + next.byteLength;
        } else if (Array.isArray(next)) {
          total += ARRAY_BYTES + PER_ITEM_BYTES * next.length;
          if (total <= stopAt)
            for (const item of next)
              if (typeof item === "object" || typeof item === "string" || typeof item === "number") stack.push(item);
        } else if (next instanceof Map) {
          total += OBJECT_BYTES + 2 * PER_KEY_BYTES * next.size;
          for (const item of next.values()) stack.push(item);
        } else {
          total += OBJECT_BYTES;
          for (const key in next) {
            total += PER_KEY_BYTES;
            const member = (next as Record<string, unknown>)[key];
            if (typeof member === "object" || typeof member === "string" || typeof member === "number")
              stack.push(member);
          }
        }
        break;
      default:
        break; // booleans, undefined (holes): held in their slot
    }
  }
  return total;
}

/**
 * What an object whose members are estimated one by one (`memberEstimate`) holds besides them: as `heapEstimate`
 * counts it.
 */
export const OBJECT_HEADER_BYTES = OBJECT_BYTES;

/**
 * What one member adds to its object's estimate, as `heapEstimate` counts it: its key's slot and its value, an object
 * or a list estimated by `estimate` (a read's own, which stops at what its cache could keep). For a read that sets a
 * wide object's members one by one (S26.1): estimated as they are set, the object is not walked again (a `for…in`
 * over each window of a million members took 0.2 s of its whole read under load).
 */
export function memberEstimate(value: unknown, estimate: (value: object) => number): number {
  switch (typeof value) {
    case "string":
      return PER_KEY_BYTES + STRING_BYTES + PER_CHAR_BYTES * value.length;
    case "number":
      return PER_KEY_BYTES + (!Number.isInteger(value) || Math.abs(value) >= 2 ** 30 ? NUMBER_BYTES : 0);
    case "object":
      return PER_KEY_BYTES + (value === null ? 0 : estimate(value));
    default:
      return PER_KEY_BYTES;
  }
}

/** A list's own slots (holes included): what `new Array(length)` holds before any item is read. */
export function listSlotsBytes(length: number): number {
  return ARRAY_BYTES + PER_ITEM_BYTES * length;
}
