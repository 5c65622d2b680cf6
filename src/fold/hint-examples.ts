/**
 * The examples of the folded hint, built from this answer (S18.1): a path to read first, a filter on a key
 * its items really have with a value they hold, and a word to search for, taken from the preview the model
 * sees. No example names a key, value or word the answer does not hold; an answer without a list of objects
 * gets no filter, one without a word no search. Bounded work (S4.8): a few objects and keys are looked at,
 * never the whole answer.
 */
import { isPlainObject, type KeyLists } from "../util/json.js";
import { fittingItems, jsonSize } from "../util/size.js";
import { sliceAllowances, type SliceAllowances } from "../config.js";

export interface HintExamples {
  /** Where to read first: the first list the walk below reaches (S7.5 form, valid RFC 9535), or `$`. */
  path: string;
  /** Items (or characters) a first read asks for: as many of the first items as fit the slice limit. */
  limit: number;
  /**
   * `$.rows[?@.status == 'open']`: a key of the list's items compared with a value of it, when the list holds objects.
   */
  filter?: string;
  /** A word of three or more letters from a string of the preview. */
  search?: string;
  /** Hits a search example asks for: as many as fit the slice limit, judged by the preview's strings. */
  searchLimit: number;
  /** The answer is a string: `offset` and `limit` count characters. */
  text: boolean;
}

/** Objects walked to find the first list; keys looked at per object; items looked at for a filter key. */
const LIST_SEARCH_OBJECTS = 64;
const KEYS_LOOKED_AT = 1000;
const ITEMS_LOOKED_AT = 5;
/** Longest key or value an example names: a hint stays a sentence. */
const EXAMPLE_MAX_CHARS = 40;
/** A first read asks for at most this many items, as `result_query`'s default does (S7.1). */
const FIRST_READ_ITEMS = 20;
/** Strings of the preview looked at for a word, and characters of each. */
const STRINGS_LOOKED_AT = 200;
const WORD = /\p{L}{3,}/u;

/** `sliceLimitBytes`: the slice limit of the calls that will read the handle (S23.2): each example fits it. */
export function hintExamples(
  answer: unknown,
  preview: unknown,
  sliceLimitBytes: number,
  keyLists: KeyLists,
): HintExamples {
  const allowances = sliceAllowances(sliceLimitBytes);
  if (typeof answer === "string") {
    const shown = typeof preview === "string" ? preview : answer.slice(0, 500);
    const search = wordIn(shown, undefined);
    const longest = Math.max(...shown.split("\n").map((line) => jsonSize(line)));
    return {
      path: "$",
      limit: allowances.exampleChars,
      text: true,
      searchLimit: hitsFitting(longest, allowances),
      ...(search ? { search } : {}),
    };
  }
  const found = firstList(answer, keyLists);
  const examples: HintExamples = { path: "$", limit: FIRST_READ_ITEMS, text: false, searchLimit: FIRST_READ_ITEMS };
  let filterValue: unknown;
  if (found) {
    examples.path = rfcPath(found.steps);
    // As many of the first items as fit, at least one (S7.6: the first read must not be refused).
    examples.limit = Math.max(1, fittingItems(found.list.slice(0, FIRST_READ_ITEMS), allowances.exampleBytes));
    const filter = filterOf(found.list, keyLists);
    if (filter) {
      examples.filter = `${examples.path}[?@${memberSelector(filter.key)} ${filter.operator} ${literal(filter.value)}]`;
      filterValue = filter.value;
    }
  }
  const search =
    wordInPreview(found ? valueAt(preview, found.steps) : preview, filterValue) ??
    (found ? wordInPreview(preview, filterValue) : undefined);
  if (search) {
    examples.search = search;
    examples.searchLimit = hitsFitting(longestString(preview) + jsonSize(examples.path) * 2, allowances);
  }
  return examples;
}

/**
 * Hits of about `hitBytes` (their text, plus path and line) that fit the example's allowance, 1 to 20: later
 * strings may be longer than the preview's, as a filter's later items may be larger than the first.
 */
function hitsFitting(hitBytes: number, allowances: SliceAllowances): number {
  return Math.max(1, Math.min(FIRST_READ_ITEMS, Math.floor(allowances.exampleBytes / (hitBytes + HIT_FRAME_BYTES))));
}

/** `{"path":…,"text":…,"line":…,"offset":…}` around a hit's text and path. */
const HIT_FRAME_BYTES = 48;

/** The longest string of the preview as JSON (its strings are cut, so this is bounded by `preview.chars`). */
function longestString(preview: unknown): number {
  let longest = 0;
  const queue: unknown[] = [preview];
  for (let at = 0; at < queue.length && at < STRINGS_LOOKED_AT * 4; at++) {
    const value = queue[at];
    if (typeof value === "string") longest = Math.max(longest, jsonSize(value));
    else if (Array.isArray(value)) queue.push(...value);
    else if (isPlainObject(value)) for (const key of Object.keys(value)) queue.push(key, value[key]);
  }
  return longest;
}

/**
 * The first list of objects in the answer, breadth first in key order (the root when it is a list), else
 * the first list at all, with its steps: the rows worth reading and filtering, not an empty list beside them.
 */
function firstList(answer: unknown, keyLists: KeyLists): { list: unknown[]; steps: (string | number)[] } | undefined {
  if (Array.isArray(answer)) return { list: answer, steps: [] };
  let any: { list: unknown[]; steps: string[] } | undefined;
  const queue: { value: unknown; steps: string[] }[] = [{ value: answer, steps: [] }];
  for (let looked = 0; looked < queue.length && looked < LIST_SEARCH_OBJECTS; looked++) {
    const { value, steps } = queue[looked]!;
    if (!isPlainObject(value)) continue;
    const keys = keyLists.of(value);
    for (let i = 0; i < Math.min(keys.length, KEYS_LOOKED_AT); i++) {
      const key = keys[i]!;
      if (!nameable(key)) continue;
      const member = value[key];
      if (Array.isArray(member)) {
        if (isPlainObject(member[0])) return { list: member, steps: [...steps, key] };
        any ??= { list: member, steps: [...steps, key] };
      } else if (isPlainObject(member)) queue.push({ value: member, steps: [...steps, key] });
    }
  }
  return any;
}

type Filter = { key: string; operator: "==" | ">="; value: string | number | boolean };

/**
 * A key of the list's first object items and one of its values: a short string that two items share (a
 * status, an owner) first, then any short string, then a boolean, then a number (`>=`, so the item it
 * comes from is selected).
 */
function filterOf(list: readonly unknown[], keyLists: KeyLists): Filter | undefined {
  const items = list.slice(0, ITEMS_LOOKED_AT).filter(isPlainObject);
  const first = items[0];
  if (!first) return undefined;
  let string: Filter | undefined;
  let other: Filter | undefined;
  const keys = keyLists.of(first);
  for (let i = 0; i < Math.min(keys.length, KEYS_LOOKED_AT); i++) {
    const key = keys[i]!;
    if (!nameable(key)) continue;
    const value = first[key];
    if (typeof value === "string" && value.length > 0 && value.length <= EXAMPLE_MAX_CHARS && wellFormed(value)) {
      if (items.slice(1).some((item) => item[key] === value)) return { key, operator: "==", value };
      string ??= { key, operator: "==", value };
    } else if (typeof value === "boolean" && other?.operator !== "==") other = { key, operator: "==", value };
    else if (typeof value === "number" && Number.isFinite(value) && !other) other = { key, operator: ">=", value };
  }
  return string ?? other;
}

/** A word of three or more letters from the preview's strings (breadth first), other than `not`'s text. */
function wordInPreview(preview: unknown, not: unknown): string | undefined {
  const queue: unknown[] = [preview];
  let strings = 0;
  for (let at = 0; at < queue.length && strings < STRINGS_LOOKED_AT; at++) {
    const value = queue[at];
    if (typeof value === "string") {
      strings++;
      const word = value === not ? undefined : wordIn(value, not);
      if (word) return word;
    } else if (Array.isArray(value)) queue.push(...value.slice(0, ITEMS_LOOKED_AT));
    else if (isPlainObject(value))
      for (const key of Object.keys(value).slice(0, KEYS_LOOKED_AT)) queue.push(value[key]);
  }
  return undefined;
}

function wordIn(text: string, not: unknown): string | undefined {
  const pattern = new RegExp(WORD.source, "gu");
  for (const match of text.matchAll(pattern)) {
    const word = match[0].slice(0, EXAMPLE_MAX_CHARS);
    if (word !== not) return word;
  }
  return undefined;
}

function valueAt(value: unknown, steps: readonly (string | number)[]): unknown {
  for (const step of steps)
    value =
      isPlainObject(value) || Array.isArray(value) ? (value as Record<string | number, unknown>)[step] : undefined;
  return value;
}

/** A key an example may name: short, and without lone surrogates (RFC 9535 cannot write one). */
function nameable(key: string): boolean {
  return key.length <= EXAMPLE_MAX_CHARS && wellFormed(key);
}

function wellFormed(text: string): boolean {
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

const SHORTHAND = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A path of names and indexes in RFC 9535's own syntax (the S7.5 form where the two agree): `$.rows`, `$['odd key']`.
 */
function rfcPath(steps: readonly (string | number)[]): string {
  return "$" + steps.map((step) => (typeof step === "number" ? `[${step}]` : memberSelector(step))).join("");
}

function memberSelector(key: string): string {
  return SHORTHAND.test(key) ? `.${key}` : `[${quoted(key)}]`;
}

/**
 * A value as a JSONPath literal: numbers and booleans as JSON writes them, strings single-quoted with JSON's escapes.
 */
function literal(value: string | number | boolean): string {
  return typeof value === "string" ? quoted(value) : JSON.stringify(value);
}

function quoted(text: string): string {
  let out = "'";
  for (const char of text) {
    if (char === "'") out += "\\'";
    else if (char === "\\") out += "\\\\";
    else if (char < " ") out += JSON.stringify(char).slice(1, -1);
    else out += char;
  }
  return out + "'";
}
