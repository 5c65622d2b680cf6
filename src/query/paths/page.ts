/**
 * Building a page with work bounded by what it returns (S16.1): `fields` are deduplicated once, each item
 * costs the smaller of its keys and the fields, and the page stops growing at the first entry that takes
 * it past the size limit, so `limit: 100000` with 100,000 fields does no more than the bytes returned.
 */
import { isPlainObject, keptFields, keyListOf, ownValue, setOwn, type JsonObject } from "../../util/json.js";
import { jsonSizeUpTo, jsonStringSize } from "../../util/size.js";
import { sliceAllowances } from "../../config.js";

/** Below this many fields, probing each field costs less than listing an item's keys. */
const PROBED_FIELDS = 32;

/**
 * What `fields` keeps of one item (S7.4), or undefined when every key is kept: no `fields`, or
 * `fields: []`, which form-filling clients send for an empty list (S14.5). Kept keys come in the order
 * of `fields` (distinct, as `parseQueryArguments` leaves them).
 */
export function fieldPicker(fields: readonly string[] | undefined): ((item: unknown) => unknown) | undefined {
  if (!fields || fields.length === 0) return undefined;
  const wanted = fields;
  let order: Map<string, number> | undefined; // made the first time an item has fewer keys than the fields
  return (item) => {
    if (!isPlainObject(item)) return item;
    const out: JsonObject = {};
    const keys = wanted.length <= PROBED_FIELDS ? undefined : keyListOf(item);
    if (!keys || keys.length >= wanted.length) {
      for (const field of keptFields(wanted, (field) => ownValue(item, field))) setOwn(out, field, item[field]);
      return out;
    }
    order ??= new Map(wanted.map((field, at) => [field, at]));
    const kept = keys
      .filter((key) => order!.has(key) && item[key] !== undefined)
      .sort((a, b) => order!.get(a)! - order!.get(b)!);
    for (const key of kept) setOwn(out, key, item[key]);
    return out;
  };
}

/** Entries that fit, or how many fit when the next one would not. */
/**
 * `entries` are those built; when the page does not fit, the `fit` entries that did (a refusal looks at them), and
 * `whole` when every entry was measured (the size is exact).
 */
type Built<T> =
  | { fits: true; entries: T[]; bytes: number }
  | { fits: false; fit: number; bytes: number; entries: T[]; whole: boolean };

/**
 * Entries `from` to `to - 1` of a list made by `entryAt`, stopping as soon as their JSON (as one array, or
 * with `keyed`, as one object) passes `limit` bytes. `bytes` is the size reached: exact when everything
 * fits or the entry past the limit was the last (`whole`), else a lower bound ("more than").
 */
export function buildEntries<T>(
  from: number,
  to: number,
  entryAt: (at: number) => T,
  sizeOf: (entry: T, cap: number) => number,
  limit: number,
): Built<T> {
  const entries: T[] = [];
  const exact = sliceAllowances(limit).exactBytes;
  let bytes = 2; // [] or {}
  for (let at = from; at < to; at++) {
    const entry = entryAt(at);
    const cap = Math.max(limit - bytes, exact); // past it, its size need not be exact
    const size = sizeOf(entry, cap);
    bytes += size + (entries.length > 0 ? 1 : 0);
    if (bytes > limit) return { fits: false, fit: entries.length, bytes, entries, whole: at === to - 1 && size <= cap };
    entries.push(entry);
  }
  return { fits: true, entries, bytes };
}

/**
 * Size of a list item as JSON, exact up to `cap` and some number past it beyond (S26.1: one member of a
 * million keys on a page was measured whole, 0.3 s without yielding, to learn it was over the limit).
 */
export const itemSize = (value: unknown, cap: number): number => jsonSizeUpTo(value, cap);

/** Size of an object member `"key":value` as JSON, as `itemSize`. */
export const memberSize = ([key, value]: readonly [string, unknown], cap: number): number =>
  jsonStringSize(key) + 1 + jsonSizeUpTo(value, cap);
