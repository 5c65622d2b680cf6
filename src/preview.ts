import { cutString, isPlainObject, jsonKeys, setOwn, type JsonObject } from "./json.js";

export interface PreviewLimits {
  /** Items kept of every list. */
  items: number;
  /** Characters kept of every string. */
  chars: number;
  /** Containers at this depth or deeper become empty (`[]`, `{}`); the root is depth 0. */
  depth?: number;
}

/**
 * The start of the answer (S6.1): every list cut to its first `items` items and every string to its
 * first `chars` characters, at every depth. Valid JSON of the same structure as the value.
 */
export function buildPreview(value: unknown, limits: PreviewLimits): unknown {
  return previewAt(value, limits, 0);
}

function previewAt(value: unknown, limits: PreviewLimits, depth: number): unknown {
  if (typeof value === "string") return cutString(value, limits.chars);
  if (value === null || typeof value !== "object") return value;
  const flatten = limits.depth !== undefined && depth >= limits.depth;
  if (Array.isArray(value)) {
    if (flatten) return [];
    return value.slice(0, limits.items).map((item) => previewAt(item ?? null, limits, depth + 1));
  }
  if (!isPlainObject(value)) return value;
  const out: JsonObject = {};
  if (flatten) return out;
  for (const key of jsonKeys(value)) setOwn(out, key, previewAt(value[key], limits, depth + 1));
  return out;
}
