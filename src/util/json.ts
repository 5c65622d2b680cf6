/** Small helpers over plain JSON values, shared by preview, shape and query. */
export type JsonObject = { [key: string]: unknown };

export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Own enumerable keys whose values JSON keeps (undefined and functions are dropped by JSON). */
export function jsonKeys(object: JsonObject): readonly string[] {
  const kept = keptKeyLists.get(object);
  if (kept) return kept; // parsed JSON: every member is one JSON keeps
  const keys = Object.keys(object);
  // Parsed answers hold only JSON values: the list is copied only when a member JSON drops is met.
  for (let i = 0; i < keys.length; i++)
    if (!isJsonMember(object[keys[i]!])) return keys.filter((key) => isJsonMember(object[key]));
  return keys;
}

export function hasOwn(object: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/** `object[key]` where `key` is the object's own, else undefined. */
export function ownValue(object: JsonObject, key: string): unknown {
  return hasOwn(object, key) ? object[key] : undefined;
}

/**
 * The keys `fields` (distinct) keep of an object (S7.4), in their order: those whose value `valueOf` finds, not
 * undefined. One rule for a page's items (`fieldPicker`), an object held whole, and a wide object read in batches
 * (`PiecedObject.pickedKeys`).
 */
export function keptFields(fields: readonly string[], valueOf: (field: string) => unknown): string[] {
  const kept: string[] = [];
  for (const field of fields) if (valueOf(field) !== undefined) kept.push(field);
  return kept;
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

/** Whether JSON keeps a property with this value (it drops undefined, functions and symbols). */
export function isJsonMember(value: unknown): boolean {
  return value !== undefined && typeof value !== "function" && typeof value !== "symbol";
}

/**
 * Sets an own enumerable property. Plain assignment does that for every key but `__proto__`, which it
 * would take as the prototype; only that key pays for `defineProperty` (several times slower).
 */
export function setOwn(object: JsonObject, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

/**
 * `Object.keys` of the objects one fold visits, kept for large objects: listing the keys of an object of
 * 48,000 keys costs about half a `JSON.stringify` of it, and the preview and shape visit it several times.
 * Lives for one fold only, so a tool that changes its objects between calls is never seen stale.
 */
export class KeyLists {
  private readonly large = new Map<object, string[]>();
  /** What `toJSON` gave for the values that have one, called once per fold as `JSON.stringify` calls it once. */
  private readonly written = new Map<unknown, unknown>();

  /**
   * The value JSON writes for `value` under `key` (S26.6): what its `toJSON(key)` gives (a `Date`'s ISO
   * string, a class's own JSON), else `value` itself. Preview and shape describe this, the JSON kept, not
   * the live object (a `Date` has no own keys: it read as `{}`).
   */
  json(value: unknown, key: string | number): unknown {
    if ((typeof value !== "object" || value === null) && typeof value !== "bigint") return value;
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON !== "function") return value;
    if (this.written.has(value)) return this.written.get(value);
    const json: unknown = toJSON.call(value, String(key));
    this.written.set(value, json);
    return json;
  }

  /**
   * The members JSON writes of the wide objects the serialisation wrote (S26.1): the shape's key count of a
   * million-key object, which it counted again member by member (100-160 ms of the fold's second hold under load).
   */
  private readonly members = new Map<object, number>();

  /** Notes that JSON writes `members` members of `object` (what `keyCount` of the shape counts). */
  counted(object: JsonObject, members: number): void {
    this.members.set(object, members);
  }

  /** How many members JSON writes of `object`, when the serialisation counted them. */
  membersOf(object: JsonObject): number | undefined {
    return this.members.size > 0 ? this.members.get(object) : undefined;
  }

  of(object: JsonObject): string[] {
    // Most answers have no object this large: then no lookup (hashing every row object costs time too).
    const cached = this.large.size > 0 ? this.large.get(object) : undefined;
    if (cached) return cached;
    const keys = Object.keys(object);
    if (keys.length > 64) this.large.set(object, keys);
    return keys;
  }
}

/**
 * Any JSON value as JSON Schema, one type per branch (S18.3): an empty `{}` and a `type` list are what the
 * MCP Inspector's schema-portability check warns about (single-`type` dialects, such as Gemini's, take neither).
 */
export const ANY_JSON_SCHEMA = Object.freeze({
  anyOf: [
    { type: "object", additionalProperties: true },
    { type: "array" },
    { type: "string" },
    { type: "number" },
    { type: "boolean" },
    { type: "null" },
  ],
});

/**
 * The key lists of wide objects a read built member batch by member batch (S26.1): it parses each batch
 * alone, so it has their keys for nothing, where `Object.keys` of the object built (a million keys) is one
 * native call that holds the thread 350 ms or more and cannot yield. A query that walks, pages
 * or searches such an object takes its keys from here (`keyListOf`) and yields as it goes.
 * Weak: a list lives as long as its object; objects read are shared read-only, so a list never goes stale.
 */
const keptKeyLists = new WeakMap<object, readonly string[]>();

/**
 * Keeps `keys`, the own keys of `object` in order, for `keyListOf` (an object read in batches, never changed after).
 */
export function keepKeyList(object: JsonObject, keys: readonly string[]): void {
  keptKeyLists.set(object, keys);
}

/** The list of own keys a read kept for `object` (S26.1), if it kept one. */
export function keptKeyList(object: object): readonly string[] | undefined {
  return keptKeyLists.get(object);
}

/** The own keys of `object` in order: the list its read kept (S26.1), else `Object.keys`. */
export function keyListOf(object: object): readonly string[] {
  return keptKeyLists.get(object) ?? Object.keys(object);
}
