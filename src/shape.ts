import { hasOwn, isPlainObject, jsonKeys, setOwn } from "./json.js";

/** The outline of an answer (S6.2). */
export type Shape =
  | { type: "null" | "boolean" | "number"; optional?: true }
  | { type: "string"; length: number; optional?: true }
  | { type: "array"; length: number; items?: Shape; optional?: true }
  | { type: "object"; keys?: Record<string, Shape>; keyCount?: number; optional?: true }
  | { anyOf: Shape[]; optional?: true };

export interface ShapeLimits {
  /** Containers this deep (the root is 0) are reduced to `{ type, length }` or `{ type, keyCount }`. */
  depth: number;
  /** Keys listed per object; past it `keyCount` gives the true number. */
  keys: number;
  /** List items inspected to widen `items`. */
  items: number;
}

/** Bounds of S6.3. */
export const SHAPE_LIMITS: ShapeLimits = Object.freeze({ depth: 8, keys: 50, items: 1000 });

export function buildShape(value: unknown, limits: ShapeLimits = SHAPE_LIMITS): Shape {
  return shapeAt(value, limits, 0);
}

function shapeAt(value: unknown, limits: ShapeLimits, depth: number): Shape {
  if (value === null || value === undefined) return { type: "null" };
  if (typeof value === "boolean") return { type: "boolean" };
  if (typeof value === "number") return { type: "number" };
  if (typeof value === "string") return { type: "string", length: value.length };
  if (Array.isArray(value)) {
    if (depth >= limits.depth || value.length === 0) return { type: "array", length: value.length };
    let items = shapeAt(value[0], limits, depth + 1);
    const inspected = Math.min(value.length, limits.items);
    for (let i = 1; i < inspected; i++) items = widen(items, shapeAt(value[i], limits, depth + 1), limits);
    return { type: "array", length: value.length, items };
  }
  if (!isPlainObject(value)) return { type: "string", length: String(value).length };
  const keys = jsonKeys(value);
  if (depth >= limits.depth) return { type: "object", keyCount: keys.length };
  const shaped: Record<string, Shape> = {};
  for (const key of keys.slice(0, limits.keys)) setOwn(shaped, key, shapeAt(value[key], limits, depth + 1));
  return keys.length > limits.keys ? { type: "object", keys: shaped, keyCount: keys.length } : { type: "object", keys: shaped };
}

/**
 * Widens the shape seen so far by one more item's shape: keys missing on either side become optional,
 * other types join an `anyOf` (first seen first). Lengths stay the first item's.
 */
function widen(seen: Shape, next: Shape, limits: ShapeLimits): Shape {
  if ("anyOf" in seen) {
    const index = seen.anyOf.findIndex((member) => sameType(member, next));
    if (index < 0) return { ...seen, anyOf: [...seen.anyOf, next] };
    const anyOf = seen.anyOf.slice();
    anyOf[index] = widen(anyOf[index]!, next, limits);
    return { ...seen, anyOf };
  }
  if ("anyOf" in next || seen.type !== next.type) {
    const { optional, ...first } = seen;
    return optional ? { anyOf: [first, next], optional } : { anyOf: [first, next] };
  }
  if (seen.type === "array" && next.type === "array") {
    if (!seen.items) return next.items ? { ...seen, items: next.items } : seen;
    return next.items ? { ...seen, items: widen(seen.items, next.items, limits) } : seen;
  }
  if (seen.type === "object" && next.type === "object" && seen.keys && next.keys) {
    const keys: Record<string, Shape> = {};
    for (const [key, shape] of Object.entries(seen.keys)) {
      const other = hasOwn(next.keys, key) ? next.keys[key] : undefined;
      setOwn(keys, key, other ? widen(shape, other, limits) : { ...shape, optional: true });
    }
    let count = Object.keys(keys).length;
    for (const [key, shape] of Object.entries(next.keys)) {
      if (hasOwn(keys, key) || count >= limits.keys) continue;
      setOwn(keys, key, { ...shape, optional: true });
      count++;
    }
    return { ...seen, keys };
  }
  return seen;
}

function sameType(a: Shape, b: Shape): boolean {
  return !("anyOf" in a) && !("anyOf" in b) && a.type === b.type;
}

/** Greatest container depth of a shape; 0 for a scalar. Used to cut the shape shallower (S5.4). */
export function shapeDepth(shape: Shape): number {
  if ("anyOf" in shape) return Math.max(...shape.anyOf.map(shapeDepth));
  if (shape.type === "array") return 1 + (shape.items ? shapeDepth(shape.items) : 0);
  if (shape.type === "object") return 1 + Math.max(0, ...Object.values(shape.keys ?? {}).map(shapeDepth));
  return 0;
}
