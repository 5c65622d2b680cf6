/**
 * Refusals that say what would work (S14.5), with real paths from the answer: where a path stopped and
 * what is there, the nearest key, the length of a list an index ran past, and for a slice too large the
 * largest parts and a call that fits. Every figure here is bounded: at most `KEYS_COMPARED` keys are
 * compared, the walk for large parts visits at most `PARTS_VISITED` values, and names are cut (S7.10).
 */
import { ResultQueryError } from "../../errors.js";
import { cutString, hasOwn, isPlainObject, keyListOf } from "../../util/json.js";
import { cutForMessage, quoteArgument } from "../../util/quote-argument.js";
import { fittingItems, jsonSize } from "../../util/size.js";
import { formatPath, type PathSegment } from "../canonical-path.js";
import { nearestKey } from "./nearest-key.js";
import { isText } from "../../records/read/pieced-string.js";
import { PiecedObject } from "../../records/read/pieced-object.js";

/** Keys listed when a refusal says what an object holds; then a count. */
const KEYS_LISTED = 20;
/** A listed key is cut to this many characters. */
const KEY_CHARS = 40;
/** Values the walk for the largest lists and strings looks at. */
const PARTS_VISITED = 20_000;
/** Strings shorter than this are not worth naming as a large part. */
const LONG_STRING = 100;

/** `RESULT_PATH_NOT_FOUND` for a path that parsed but stopped at `reached` (S14.5). */
export function pathNotFound(
  path: string,
  reached: { value: unknown; steps: readonly (string | number)[]; segment: PathSegment },
): ResultQueryError {
  const { value, steps, segment } = reached;
  const at = cutForMessage(formatPath(steps));
  let detail: string;
  if (Array.isArray(value)) {
    const index =
      segment.kind === "index"
        ? segment.index
        : segment.kind === "token" && /^-?\d+$/.test(segment.token)
          ? Number(segment.token)
          : undefined;
    if (index !== undefined) {
      detail =
        `${at} is a list of ${value.length} items, so [${index}] is past its end` +
        (value.length > 0 ? ` (indexes 0 to ${value.length - 1}, or -1 for the last)` : "");
    } else {
      detail =
        `${at} is a list of ${value.length} items: ` +
        `step into it with an index such as ${cutForMessage(formatPath([...steps, 0]))}`;
      const name = segment.kind === "name" ? segment.name : segment.kind === "token" ? segment.token : "";
      if (isPlainObject(value[0]) && hasOwn(value[0], name))
        detail +=
          `, or keep ${quoteArgument(name)} of every item ` +
          `with path ${quoteArgument(formatPath(steps))} and fields [${quoteArgument(name)}]`;
    }
  } else if (isPlainObject(value) && !isText(value)) {
    const name =
      segment.kind === "name" ? segment.name : segment.kind === "token" ? segment.token : String(segment.index);
    // A wide object read in part (S16.4): its key count from the index, its first keys and the hint from the batches
    // read.
    const pieced = value instanceof PiecedObject ? value : undefined;
    const keys = pieced ? pieced.keysRead() : keyListOf(value);
    const described = pieced ? describeObject(pieced.leadingKeys(KEYS_LISTED), pieced.size) : describeObject(keys);
    detail = `${at} is ${described} and none is ${quoteArgument(name)}`;
    const near = nearestKey(value, keys, name);
    if (near !== undefined)
      detail += `; did you mean ${quoteArgument(near)}, at ${cutForMessage(formatPath([...steps, near]))}?`;
  } else {
    detail = `${at} is ${describeLeaf(value)}, with nothing under it`;
  }
  return new ResultQueryError(
    "RESULT_PATH_NOT_FOUND",
    `Path ${quoteArgument(path)} names nothing in this answer: ${detail}${detail.endsWith("?") ? "" : "."}`,
  );
}

/** `fields` that name no key of any object read (S14.5): says so, lists the keys there (RESULT_PATH_NOT_FOUND). */
export function checkFieldsFound(
  read: readonly unknown[],
  picked: readonly unknown[],
  fields: readonly string[],
  at: { path: string; offset?: number }, // offset: the items of a list from there; none: one object
): void {
  let objects = 0;
  for (let i = 0; i < read.length; i++) {
    const item = read[i];
    if (!isPlainObject(item)) continue;
    objects++;
    for (const _ in picked[i] as object) return; // one field found: the answer is what was asked
  }
  if (objects === 0) return;
  // The keys there: those of the items read, at most KEYS_LISTED (each item's key list is made once).
  const keys = new Set<string>();
  let firstKeys: readonly string[] | undefined;
  let first: Record<string, unknown> | undefined;
  for (const item of read) {
    if (!isPlainObject(item)) continue;
    // a wide object: the keys read, its first ones among them (S16.4)
    const own = item instanceof PiecedObject ? item.keysRead() : keyListOf(item);
    if (!first) [first, firstKeys] = [item, own];
    for (let i = 0; i < own.length && keys.size <= KEYS_LISTED; i++) keys.add(own[i]!);
    if (keys.size > KEYS_LISTED) break;
  }
  // empty objects: nothing to choose from, and empty objects are the exact answer
  if (keys.size === 0 || !first || !firstKeys) return;
  const path = cutForMessage(at.path);
  const where = at.offset === undefined ? path : `the ${objects} object items of ${path} from offset ${at.offset}`;
  const named =
    fields
      .slice(0, 5)
      .map((field) => quoteArgument(field))
      .join(", ") + (fields.length > 5 ? ` and ${fields.length - 5} more` : "");
  const listed = [...keys].slice(0, KEYS_LISTED).map(quoteKey).join(", ") + (keys.size > KEYS_LISTED ? ", …" : "");
  let message = `fields ${named} name no key of ${where}; the keys there are ${listed}`;
  let near: string | undefined;
  for (let i = 0; i < Math.min(fields.length, 5) && near === undefined; i++)
    near = nearestKey(first, firstKeys, fields[i]!);
  if (near !== undefined) message += `; did you mean ${quoteArgument(near)}?`;
  else message += ". Leave fields out (or pass []) for every key.";
  throw new ResultQueryError("RESULT_PATH_NOT_FOUND", message);
}

/** What to say when the slice at `path` is over the limit and `fit` entries (items, keys, characters) fit. */
export function sliceAdvice(
  target: unknown,
  steps: readonly (string | number)[],
  sliceLimitBytes: number,
  fit: number,
  unit: string,
  offset: number,
): string {
  const path = cutForMessage(formatPath(steps));
  if (Array.isArray(target)) {
    if (fit > 0)
      return (
        `At most ${fit} ${unit} from offset ${offset} fit: ` +
        `call result_query again with limit ${fit}, fewer fields or a deeper path.`
      );
    const item = [...steps, Math.min(offset, target.length - 1)];
    return (
      `Item ${cutForMessage(formatPath(item))} alone is over the limit: ` +
      `read it with path ${quoteArgument(formatPath(item))}.` +
      largestParts(target[item.at(-1) as number], item, sliceLimitBytes)
    );
  }
  if (isText(target)) {
    return fit > 0
      ? `At most ${fit} ${unit} from offset ${offset} fit: call result_query again with limit ${fit}.`
      : `Not even one character fits: raise the plugin's thresholdBytes.`;
  }
  if (!isPlainObject(target)) return "Read a smaller part of the answer.";
  const keys =
    fit > 0
      ? `At most ${fit} keys from offset ${offset} fit (limit ${fit}).`
      : `Not even one key of ${path} fits whole.`;
  return keys + largestParts(target, steps, sliceLimitBytes);
}

/**
 * The largest lists and long strings under `root` (a bounded breadth-first walk), and a call that fits
 * for the largest, so a first call with the handle alone leads straight to the data. Parts are ranked by
 * a cheap estimate of their size: a string by its length, a list by its length times a shallow guess at
 * its first item's size (never a serialisation: an item may be megabytes).
 */
function largestParts(root: unknown, steps: readonly (string | number)[], sliceLimitBytes: number): string {
  const parts: Part[] = [];
  const queue: { value: unknown; steps: (string | number)[] }[] = [{ value: root, steps: [...steps] }];
  for (let head = 0, visited = 0; head < queue.length && visited < PARTS_VISITED; head++) {
    const { value, steps: here } = queue[head]!;
    queue[head] = undefined as never; // let what was looked at go
    if (Array.isArray(value)) {
      if (head > 0)
        parts.push({ steps: here, length: value.length, value, weight: value.length * shallowSize(value[0]) });
      // The first items stand for the rest: a list's items are usually alike.
      for (let i = 0; i < Math.min(value.length, 3); i++)
        (queue.push({ value: value[i], steps: [...here, i] }), visited++);
    } else if (value instanceof PiecedObject) {
      // A wide object read in part (S16.4): its members count as visited as in a whole walk; those read are looked
      // into.
      const room = PARTS_VISITED - 1 - visited;
      let pushed = 0;
      for (const [key, member] of value.leadingMembers()) {
        if (pushed++ >= room) break;
        queue.push({ value: member, steps: [...here, key] });
      }
      visited += Math.min(value.size, PARTS_VISITED - visited);
    } else if (isPlainObject(value) && !isText(value)) {
      for (const key in value) {
        if (!hasOwn(value, key)) continue;
        if (++visited >= PARTS_VISITED) break;
        queue.push({ value: value[key], steps: [...here, key] });
      }
    } else if (isText(value) && value.length >= LONG_STRING && head > 0) {
      parts.push({ steps: here, length: value.length, value, weight: value.length });
    }
  }
  const top = parts.sort((a, b) => b.weight - a.weight).slice(0, 4);
  if (top.length === 0) return " Read it with a deeper path, fewer fields or a smaller limit.";
  const named = top.map(
    (part) =>
      (Array.isArray(part.value) ? `a list of ${part.length} items` : `a string of ${part.length} characters`) +
      ` at ${cutForMessage(formatPath(part.steps))}`,
  );
  const largest = top[0]!;
  return (
    ` Its largest parts: ${named.join("; ")}. ` +
    `Try: result_query with path ${quoteArgument(formatPath(largest.steps))} ` +
    `and limit ${fittingLimit(largest.value, sliceLimitBytes)}.`
  );
}

interface Part {
  steps: (string | number)[];
  length: number;
  value: unknown;
  weight: number;
}

/** A guess at a value's JSON size from its top level only. */
function shallowSize(value: unknown): number {
  if (typeof value === "string") return value.length + 3;
  if (Array.isArray(value)) return 2 + value.length * 8;
  if (isPlainObject(value)) {
    let size = 2;
    for (const key in value) {
      const member = value[key];
      size += key.length + 4 + (typeof member === "string" ? member.length + 2 : 8);
      if (size > 4096) break;
    }
    return size;
  }
  return 6;
}

/**
 * A limit that fits from offset 0, at least 1 (when even one item does not fit, the refusal of that call says where to
 * go).
 */
function fittingLimit(value: unknown, sliceLimitBytes: number): number {
  if (isText(value)) return Math.max(1, fittingChars(value.slice(0, sliceLimitBytes), sliceLimitBytes));
  return Math.max(1, fittingItems(value as unknown[], sliceLimitBytes));
}

/**
 * How many leading characters of the refused slice fit in `limit` bytes as one JSON string (binary
 * search). Bounded by the slice, never the rest of the string: the answer is below the slice's length.
 */
export function fittingChars(slice: string, limit: number): number {
  let low = 0;
  let high = slice.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (jsonSize(cutString(slice, mid)) <= limit) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** An object of `count` keys, `keys` its first ones (all of them, or as far as read). */
function describeObject(keys: readonly string[], count = keys.length): string {
  if (count === 0) return "an empty object";
  const shown = keys.slice(0, KEYS_LISTED);
  const listed = shown.map(quoteKey).join(", ");
  const more = count > shown.length ? `${shown.length > 0 ? ", and " : ""}${count - shown.length} more` : "";
  return `an object of ${count} key${count === 1 ? "" : "s"} (${listed}${more})`;
}

function describeLeaf(value: unknown): string {
  if (isText(value)) return `a string of ${value.length} characters`;
  if (value === null) return "null";
  return `a ${typeof value}`;
}

function quoteKey(key: string): string {
  return JSON.stringify(key.length > KEY_CHARS ? `${cutString(key, KEY_CHARS)}…` : key);
}
