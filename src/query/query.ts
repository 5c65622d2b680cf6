import { ResultQueryError } from "../errors.js";
import { DEFAULT_LIMITS, MAX_LIMIT, MAX_SEARCH_CHARS } from "../plugin/defaults.js";
import { hasOwn, isHighSurrogate, isLowSurrogate, isPlainObject, jsonKeys, setOwn, type JsonObject } from "../util/json.js";
import { formatPath, resolvePath, type Resolved } from "./path.js";
import { cutForMessage } from "../util/quote-argument.js";
import { checkFieldsFound, fittingChars, fittingItems, sliceAdvice } from "./refusals.js";
import { jsonSize } from "../util/size.js";

/** Arguments of `result_query` after validation (S7.1). */
export interface QueryArguments {
  handle: string;
  path: string;
  offset?: number;
  limit?: number;
  page?: number;
  fields?: string[];
  /** Text to find under `path` (S14.4); answered by `search.ts`. */
  search?: string;
}

/** What `result_query` returns (S7.5). */
export interface QueryResult {
  path: string;
  value: unknown;
  total?: number;
  offset?: number;
  nextOffset?: number;
}

/**
 * Checks raw `result_query` arguments (S7.1). Every refusal is `INVALID_INPUT` (S7.6), whatever a
 * host's own schema check would have said.
 */
export function parseQueryArguments(raw: unknown): QueryArguments {
  if (!isPlainObject(raw)) throw invalid("arguments must be an object with at least { handle }");
  const { handle, path, offset, limit, page, fields, search } = raw;
  // Missing and mistyped are told apart: a number such as 42 is a wrong handle, not a forgotten one.
  if (handle === undefined || handle === null || handle === "") {
    throw invalid("handle is required: pass the handle string from the folded answer");
  }
  if (typeof handle !== "string") throw invalid(`handle must be a string, the handle of a folded answer (got ${typeOfValue(handle)})`);
  if (path !== undefined && typeof path !== "string") throw invalid('path must be a string such as "$.rows" or "/rows/0"');
  const args: QueryArguments = { handle, path: path ?? "$" };
  if (offset !== undefined) args.offset = wholeNumber("offset", offset, 0, Number.MAX_SAFE_INTEGER);
  if (limit !== undefined) args.limit = wholeNumber("limit", limit, 1, MAX_LIMIT);
  if (page !== undefined) args.page = wholeNumber("page", page, 1, Number.MAX_SAFE_INTEGER);
  if (args.page !== undefined && args.offset !== undefined) {
    // A client that fills in schema defaults sends offset 0 beside page: page decides (S7.1).
    if (args.offset !== 0) throw invalid("give page or offset, not both");
    delete args.offset;
  }
  if (fields !== undefined) {
    if (!Array.isArray(fields) || !fields.every((field) => typeof field === "string")) {
      throw invalid('fields must be a list of key names, such as ["id", "title"]');
    }
    if (fields.length > 0) args.fields = fields as string[]; // [] is what form-filling clients send for "all" (S14.5)
  }
  if (search !== undefined) {
    if (typeof search !== "string" || search.length < 1 || search.length > MAX_SEARCH_CHARS) {
      throw invalid(`search must be a string of 1 to ${MAX_SEARCH_CHARS} characters, the text to find`);
    }
    if (args.fields) throw invalid("give search or fields, not both: search answers hits { path, text }, not objects");
    args.search = search;
  }
  return args;
}

function typeOfValue(value: unknown): string {
  return Array.isArray(value) ? "a list" : typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function wholeNumber(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(`${name} must be a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? " up" : ` to ${max}`}`);
  }
  return value;
}

/**
 * Reads one slice of a stored answer (S7.2 to S7.6). `thresholdBytes` is that of the plugin instance
 * that folded the handle: a larger slice is refused, never folded again (S7.7).
 */
export function queryValue(answer: unknown, args: QueryArguments, thresholdBytes: number): QueryResult {
  const at = resolvePath(answer, args.path);
  const { value: target, steps } = at;
  const path = formatPath(steps);

  if (typeof target === "string") {
    if (args.fields) throw invalid(`fields apply to objects and lists of objects; ${cutForMessage(path)} is a string`);
    const { offset, limit } = window(args, DEFAULT_LIMITS.chars);
    const [start, end] = stringRange(target, offset, limit);
    const value = target.slice(start, end);
    checkSize(value, thresholdBytes, at, () => fittingChars(value, thresholdBytes), "characters", start);
    return withPaging(path, value, target.length, start, end);
  }
  if (Array.isArray(target)) {
    const { offset, limit } = window(args, DEFAULT_LIMITS.items);
    const end = Math.min(target.length, offset + limit);
    const read = target.slice(offset, end);
    const pick = args.fields ? fieldPicker(args.fields) : undefined;
    const slice = pick ? read.map(pick) : read;
    if (args.fields) checkFieldsFound(read, slice, args.fields, { path, offset });
    checkSize(slice, thresholdBytes, at, () => fittingItems(slice, thresholdBytes), "items", offset);
    return withPaging(path, slice, target.length, Math.min(offset, target.length), end);
  }
  if (isPlainObject(target)) {
    const source = args.fields ? (fieldPicker(args.fields)(target) as JsonObject) : target;
    if (args.fields) checkFieldsFound([target], [source], args.fields, { path });
    const keys = jsonKeys(source);
    const { offset, limit } = window(args, DEFAULT_LIMITS.keys);
    const end = Math.min(keys.length, offset + limit);
    const value: JsonObject = {};
    for (const key of keys.slice(offset, end)) setOwn(value, key, source[key]);
    checkSize(value, thresholdBytes, at, () => fittingItems(keys.slice(offset, end).map((k) => [k, value[k]]), thresholdBytes), "keys", offset);
    return withPaging(path, value, keys.length, Math.min(offset, keys.length), end);
  }
  checkSize(target, thresholdBytes, at, () => 0, "items", 0);
  return { path, value: target };
}

/** The items a list query reads (S7.1 defaults), so the store can read only the pieces holding them. */
export function listWindow(args: QueryArguments): { offset: number; limit: number } {
  return window(args, DEFAULT_LIMITS.items);
}

function window(args: QueryArguments, defaultLimit: number): { offset: number; limit: number } {
  const limit = args.limit ?? defaultLimit;
  const offset = args.page !== undefined ? (args.page - 1) * limit : (args.offset ?? 0);
  return { offset, limit };
}

/** A character range that never splits a surrogate pair (S7.3). */
function stringRange(text: string, offset: number, limit: number): [number, number] {
  let start = Math.min(offset, text.length);
  if (start > 0 && start < text.length && isLowSurrogate(text.charCodeAt(start)) && isHighSurrogate(text.charCodeAt(start - 1))) start--;
  let end = Math.min(text.length, start + limit);
  if (end < text.length && end > start && isHighSurrogate(text.charCodeAt(end - 1)) && isLowSurrogate(text.charCodeAt(end))) {
    end = end - 1 > start ? end - 1 : end + 1;
  }
  return [start, end];
}

function withPaging(path: string, value: unknown, total: number, offset: number, end: number): QueryResult {
  const result: QueryResult = { path, value, total, offset };
  if (end < total) result.nextOffset = end;
  return result;
}

/** Up to this many fields are looked up in each object; more, and the object's own keys are looked up among them. */
const FIELDS_LOOKED_UP = 32;

/**
 * Keeps `fields` of an object, in the order of `fields`, each once (S7.4). Bounded by the data read, not by
 * the list asked for (S16.1): 100,000 fields over 100,000 items took minutes field by field; with many
 * fields, each object costs its own key count (the fields are a set, made once per call).
 */
function fieldPicker(fields: readonly string[]): (item: unknown) => unknown {
  const unique = [...new Set(fields)];
  const rank = unique.length > FIELDS_LOOKED_UP ? new Map(unique.map((field, i) => [field, i])) : undefined;
  return (item) => {
    if (!isPlainObject(item)) return item;
    const out: JsonObject = {};
    let names: readonly string[] = unique;
    if (rank) {
      const keys = Object.keys(item);
      if (keys.length < unique.length) names = keys.filter((key) => rank.has(key)).sort((a, b) => rank.get(a)! - rank.get(b)!);
    }
    for (const field of names) if (hasOwn(item, field) && item[field] !== undefined) setOwn(out, field, item[field]);
    return out;
  };
}

/** Refuses a slice over the threshold (S7.6), saying what would fit and where the data is (S14.5). */
function checkSize(value: unknown, thresholdBytes: number, at: Resolved, fitting: () => number, unit: string, offset: number): void {
  const bytes = jsonSize(value);
  if (bytes <= thresholdBytes) return;
  const advice = sliceAdvice(at.value, at.steps, thresholdBytes, fitting(), unit, offset);
  throw new ResultQueryError(
    "RESULT_SLICE_TOO_LARGE",
    `The slice at ${cutForMessage(formatPath(at.steps))} is ${bytes} bytes, over the ${thresholdBytes}-byte limit. ${advice}`,
  );
}

function invalid(message: string): ResultQueryError {
  return new ResultQueryError("INVALID_INPUT", message);
}
