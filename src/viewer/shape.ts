/** The shape of a folded answer (S6.2), as the viewer reads it. */
export interface Shape {
  type: "null" | "boolean" | "number" | "string" | "array" | "object";
  length?: number;
  keyCount?: number;
  items?: Shape & { anyOf?: Shape[] };
  keys?: Record<string, Shape>;
  optional?: boolean;
}

export function shapeAt(shape: Shape | undefined, keys: readonly (string | number)[]): Shape | undefined {
  let at = shape;
  for (const key of keys) {
    if (!at) return undefined;
    at = typeof key === "number" ? (at.type === "array" ? at.items : undefined) : at.keys?.[key];
    if (at && "anyOf" in at) return undefined;
  }
  return at;
}

/** The shape of a value that is here whole: enough for the viewer to pick its view. */
export function shapeOfValue(value: unknown, depth = 4): Shape {
  if (value === null) return { type: "null" };
  if (Array.isArray(value)) {
    const first = value.find((item) => item !== null && typeof item === "object" && !Array.isArray(item));
    const items = depth > 0 && value.length > 0 ? { items: shapeOfValue(first ?? value[0], depth - 1) } : {};
    return { type: "array", length: value.length, ...items };
  }
  if (typeof value === "object") {
    const keys: Record<string, Shape> = {};
    if (depth === 0) return { type: "object", keyCount: Object.keys(value).length };
    for (const [key, child] of Object.entries(value as object).slice(0, 50)) keys[key] = shapeOfValue(child, depth - 1);
    return { type: "object", keys };
  }
  if (typeof value === "string") return { type: "string", length: value.length };
  return { type: typeof value === "number" ? "number" : "boolean" };
}
