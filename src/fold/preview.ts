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

/** A preview built within a byte budget. */
export interface BoundedPreview {
  preview: unknown;
  /** Its size as UTF-8 JSON. */
  bytes: number;
  /** Whether `limits.depth` emptied a container that had something in it. */
  cutByDepth: boolean;
}

/**
 * The start of the answer (S6.1): every list cut to its first `items` items and every string to its
 * first `chars` characters, at every depth. Valid JSON of the same structure as the value.
 */
export function buildPreview(value: unknown, limits: PreviewLimits): unknown {
  return previewWithin(value, limits, Infinity)!.preview;
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
 * `buildPreview`, counting the preview's UTF-8 JSON bytes as it is built and giving up (undefined) as
 * soon as they pass `budgetBytes`: a try costs at most about the budget, never the answer's size (S4.8).
 * Iterative, with its own stack, so no depth overflows the call stack.
 */
export function previewWithin(value: unknown, limits: PreviewLimits, budgetBytes: number, keyLists = new KeyLists()): BoundedPreview | undefined {
  const maxDepth = limits.depth ?? Infinity;
  const stack: Frame[] = [];
  let bytes = 0;
  let cutByDepth = false;

  /** The preview of one value; a container is returned empty, with a frame that fills it. */
  const open = (item: unknown, depth: number): unknown => {
    switch (typeof item) {
      case "string": {
        const cut = cutString(item, limits.chars);
        bytes += jsonStringSize(cut);
        return cut;
      }
      case "number":
        bytes += Number.isFinite(item) ? String(item).length : 4; // JSON writes NaN and Infinity as null
        return item;
      case "boolean":
        bytes += item ? 4 : 5;
        return item;
      case "object":
        if (item === null) break;
        bytes += 2;
        if (Array.isArray(item)) {
          const target: unknown[] = [];
          const end = Math.min(item.length, limits.items);
          if (end > 0 && depth >= maxDepth) cutByDepth = true;
          else if (end > 0) stack.push({ source: item, target, keys: undefined, next: 0, end, depth, written: 0 });
          return target;
        } else {
          const target: JsonObject = {};
          const keys = keyLists.of(item as JsonObject);
          if (keys.length > 0 && depth >= maxDepth) cutByDepth = true;
          else if (keys.length > 0) stack.push({ source: item as JsonObject, target, keys, next: 0, end: keys.length, depth, written: 0 });
          return target;
        }
    }
    bytes += 4; // null; JSON writes undefined, functions and symbols in lists as null too
    return null;
  };

  const preview = open(value, 0);
  while (stack.length > 0) {
    if (bytes > budgetBytes) return undefined;
    const frame = stack[stack.length - 1]!;
    if (frame.next >= frame.end) {
      stack.pop();
      continue;
    }
    const index = frame.next++;
    if (frame.keys) {
      const key = frame.keys[index]!;
      const member = (frame.source as JsonObject)[key];
      if (!isJsonMember(member)) continue;
      bytes += (frame.written++ > 0 ? 1 : 0) + jsonStringSize(key) + 1;
      setOwn(frame.target as JsonObject, key, open(member, frame.depth + 1));
    } else {
      if (frame.written++ > 0) bytes += 1;
      (frame.target as unknown[]).push(open((frame.source as unknown[])[index], frame.depth + 1));
    }
  }
  return bytes > budgetBytes ? undefined : { preview, bytes, cutByDepth };
}
