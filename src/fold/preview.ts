import { cutString, isJsonMember, KeyLists, setOwn, type JsonObject } from "../util/json.js";
import { jsonStringSize } from "../util/size.js";

export interface PreviewLimits {
  /** Items kept of every list. */
  items: number;
  /** Characters kept of every string. */
  chars: number;
  /** Containers at this depth or deeper become empty (`[]`, `{}`); the root is depth 0. */
  depth?: number;
}

/** A preview built within a byte allowance. */
interface BoundedPreview {
  preview: unknown;
  /** Its size as UTF-8 JSON. */
  bytes: number;
}

/** A container being copied: the next of its items or keys to visit. */
interface Frame {
  source: unknown[] | JsonObject;
  target: unknown[] | JsonObject;
  /** The object's keys; undefined for a list. */
  keys: string[] | undefined;
  next: number;
  end: number;
  depth: number;
  /** Members written so far (a comma precedes each one after the first). */
  written: number;
}

/**
 * A preview try (`previewTry`): the preview when it is within the allowance, and how much of the lists and
 * strings it kept. A try with smaller limits that still keep `keptItems` items and `keptChars` characters
 * cuts nothing this one did not, so it walks the same values to the same bytes: `fitFoldedAnswer` skips it.
 */
interface PreviewTry {
  built: BoundedPreview | undefined;
  /** Most items kept of any list it opened (before it stopped, when over allowance). */
  keptItems: number;
  /** Most characters kept of any string it opened. */
  keptChars: number;
}

/**
 * The start of the answer (S6.1): every list cut to its first `items` items and every string to its first
 * `chars` characters, at every depth; valid JSON of the same structure as the value. Its UTF-8 JSON bytes
 * are counted as it is built, and it gives up (undefined) as soon as they pass `allowanceBytes`: a try costs
 * at most about the allowance, never the answer's size (S4.8).
 * Iterative, with its own stack, so no depth overflows the call stack.
 */
export function previewWithin(
  value: unknown,
  limits: PreviewLimits,
  allowanceBytes: number,
  keyLists = new KeyLists(),
): BoundedPreview | undefined {
  return previewTry(value, limits, allowanceBytes, keyLists).built;
}

/** `previewWithin`, telling also how much of the lists and strings it kept (`PreviewTry`). */
export function previewTry(
  value: unknown,
  limits: PreviewLimits,
  allowanceBytes: number,
  keyLists = new KeyLists(),
): PreviewTry {
  const maxDepth = limits.depth ?? Infinity;
  const stack: Frame[] = [];
  let bytes = 0;
  let keptItems = 0;
  let keptChars = 0;

  /** The preview of one value; a container is returned empty, with a frame that fills it. */
  const open = (item: unknown, depth: number): unknown => {
    if (typeof item === "string") {
      const cut = cutString(item, limits.chars);
      if (cut.length > keptChars) keptChars = cut.length;
      bytes += jsonStringSize(cut);
      return cut;
    }
    bytes += ownBytes(item, limits.chars);
    if (typeof item !== "object" || item === null)
      return typeof item === "number" || typeof item === "boolean" ? item : null;
    if (Array.isArray(item)) {
      const target: unknown[] = [];
      const end = Math.min(item.length, limits.items);
      if (end > keptItems) keptItems = end;
      if (end > 0 && depth < maxDepth)
        stack.push({ source: item, target, keys: undefined, next: 0, end, depth, written: 0 });
      return target;
    }
    const target: JsonObject = {};
    const keys = keyLists.of(item as JsonObject);
    if (keys.length > 0 && depth < maxDepth)
      stack.push({ source: item as JsonObject, target, keys, next: 0, end: keys.length, depth, written: 0 });
    return target;
  };

  const preview = open(keyLists.json(value, ""), 0);
  while (stack.length > 0) {
    if (bytes > allowanceBytes) return { built: undefined, keptItems, keptChars };
    const frame = stack[stack.length - 1]!;
    if (frame.next >= frame.end) {
      stack.pop();
      continue;
    }
    const index = frame.next++;
    if (frame.keys) {
      const key = frame.keys[index]!;
      const member = keyLists.json((frame.source as JsonObject)[key], key);
      if (!isJsonMember(member)) continue;
      bytes += (frame.written++ > 0 ? 1 : 0) + jsonStringSize(key) + 1;
      setOwn(frame.target as JsonObject, key, open(member, frame.depth + 1));
    } else {
      if (frame.written++ > 0) bytes += 1;
      (frame.target as unknown[]).push(open(keyLists.json((frame.source as unknown[])[index], index), frame.depth + 1));
    }
  }
  return { built: bytes > allowanceBytes ? undefined : { preview, bytes }, keptItems, keptChars };
}

/**
 * A value's own bytes in a preview as JSON: a cut string, a number or boolean as JSON writes it, a list
 * or object as its two brackets (its members count apart), anything else as `null` (JSON writes NaN,
 * Infinity, and undefined, functions and symbols in lists, as null; a BigInt is previewed as null).
 */
function ownBytes(item: unknown, chars: number): number {
  switch (typeof item) {
    case "string":
      return jsonStringSize(cutString(item, chars));
    case "number":
      return Number.isFinite(item) ? String(item).length : 4;
    case "boolean":
      return item ? 4 : 5;
    case "object":
      if (item !== null) return 2;
  }
  return 4;
}

/**
 * The deepest cut (`limits.depth`) at which the preview with these items and chars is within
 * `allowanceBytes`: -1 when not even depth 0 is, Infinity when the preview uncut is. The preview cut at
 * depth d is the values down to depth d (a container at d counted as its brackets) with the keys and
 * commas before them, so its size only grows with d: one walk, level by level, adds each level's bytes
 * and stops at the level that passes the allowance. It reads about the allowance's worth of values,
 * where trying cut after cut (a doubling then halving search) built about twenty previews of a deep answer.
 */
export function deepestCutWithin(
  value: unknown,
  limits: Omit<PreviewLimits, "depth">,
  allowanceBytes: number,
  keyLists = new KeyLists(),
): number {
  const root = keyLists.json(value, "");
  let bytes = ownBytes(root, limits.chars);
  if (bytes > allowanceBytes) return -1;
  let level: unknown[] = [root];
  for (let depth = 0; level.length > 0; depth++) {
    // Members of the containers at `depth`, which a cut at depth + 1 or deeper shows.
    const next: unknown[] = [];
    for (const container of level) {
      if (typeof container !== "object" || container === null) continue;
      let written = 0;
      if (Array.isArray(container)) {
        const end = Math.min(container.length, limits.items);
        for (let i = 0; i < end; i++) {
          const item: unknown = keyLists.json(container[i], i);
          bytes += (written++ > 0 ? 1 : 0) + ownBytes(item, limits.chars);
          if (bytes > allowanceBytes) return depth;
          if (typeof item === "object" && item !== null) next.push(item);
        }
      } else {
        for (const key of keyLists.of(container as JsonObject)) {
          const member = keyLists.json((container as JsonObject)[key], key);
          if (!isJsonMember(member)) continue;
          bytes += (written++ > 0 ? 1 : 0) + jsonStringSize(key) + 1 + ownBytes(member, limits.chars);
          if (bytes > allowanceBytes) return depth;
          if (typeof member === "object" && member !== null) next.push(member);
        }
      }
    }
    level = next;
  }
  return Infinity;
}
