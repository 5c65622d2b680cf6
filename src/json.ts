/** Small helpers over plain JSON values, shared by preview, shape and query. */
export type JsonObject = { [key: string]: unknown };

export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Own enumerable keys whose values JSON keeps (undefined and functions are dropped by JSON). */
export function jsonKeys(object: JsonObject): string[] {
  return Object.keys(object).filter((key) => {
    const value = object[key];
    return value !== undefined && typeof value !== "function" && typeof value !== "symbol";
  });
}

export function hasOwn(object: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/** Cuts a string to at most `max` UTF-16 units without splitting a surrogate pair. */
export function cutString(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = max > 0 && isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max;
  return text.slice(0, end);
}

export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

export function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Sets an own enumerable property, even for keys such as `__proto__` that plain assignment would not create. */
export function setOwn(object: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}
