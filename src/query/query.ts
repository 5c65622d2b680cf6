import { ResultQueryError } from "../errors.js";
import {
  cutString,
  isHighSurrogate,
  isLowSurrogate,
  isPlainObject,
  jsonKeys,
  keptFields,
  ownValue,
  setOwn,
  type JsonObject,
} from "../util/json.js";
import { selectNodes } from "./jsonpath/jsonpath.js";
import { nodelistPage, nodelistPageYielding, NodelistPager, type NodelistPage } from "./paths/nodelist.js";
import type { CostMeter } from "./cost.js";
import { buildEntries, fieldPicker, itemSize, memberSize } from "./paths/page.js";
import { formatPath, resolveSegments, type Resolved } from "./paths/path.js";
import { checkFieldsFound, fittingChars, sliceAdvice } from "./refusals/refusals.js";
import { DEFAULT_LIMITS, MAX_LIMIT, MAX_SEARCH_CHARS } from "../defaults.js";
import { sliceWindow, type QueryArguments, type QueryPlan } from "./paths/plan.js";
import { cutForMessage, quoteArgument } from "../util/quote-argument.js";
import { jsonSize } from "../util/size.js";
import { isText, type PiecedString } from "../records/read/pieced-string.js";
import { PiecedObject } from "../records/read/pieced-object.js";
import { parseAggregate } from "./aggregate/spec.js";
import { aggregatePlan, aggregateWhole, aggregateWholeYielding } from "./aggregate/aggregate.js";

export type { QueryArguments } from "./paths/plan.js";

/** What `result_query` returns (S7.5). */
export interface QueryResult {
  path: string;
  /** The slice, the nodes' values, the hits, or an aggregate's figures (absent when it answers groups). */
  value?: unknown;
  total?: number;
  offset?: number;
  nextOffset?: number;
  /** For a nodelist (S14.2): the canonical path of each node in `value`. */
  paths?: string[];
  /** What the answer's emptiness means (S18.2), and how a lenient argument was read (S18.4). */
  note?: string;
  /** An aggregate by a member (S24.1): the page of groups, and how many there are in all. */
  groups?: Record<string, unknown>[];
  groupCount?: number;
}

/**
 * Checks raw `result_query` arguments (S7.1). Every refusal is `INVALID_INPUT` (S7.6), whatever a
 * host's own schema check would have said.
 */
export function parseQueryArguments(raw: unknown): QueryArguments {
  if (!isPlainObject(raw)) throw invalid("arguments must be an object with at least { handle }");
  const { handle, path, offset, limit, page, fields, search, aggregate } = raw;
  // Missing and mistyped are told apart: a number such as 42 is a wrong handle, not a forgotten one.
  if (handle === undefined || handle === null || handle === "") {
    throw invalid("handle is required: pass the handle string from the folded answer");
  }
  if (typeof handle !== "string")
    throw invalid(`handle must be a string, the handle of a folded answer (got ${typeOfValue(handle)})`);
  if (path !== undefined && typeof path !== "string")
    throw invalid(`path must be a string such as "$.rows" or "/rows/0" (got ${typeOfValue(path)})`);
  const args: QueryArguments = { handle, path: path ?? "$" };
  const notes: string[] = [];
  if (offset !== undefined) args.offset = wholeNumber("offset", offset, 0, Number.MAX_SAFE_INTEGER, notes);
  if (limit !== undefined) args.limit = wholeNumber("limit", limit, 1, MAX_LIMIT, notes);
  if (page !== undefined) args.page = wholeNumber("page", page, 1, Number.MAX_SAFE_INTEGER, notes);
  if (args.page !== undefined && args.offset !== undefined) {
    // A client that fills in schema defaults sends offset 0 beside page: page decides (S7.1).
    if (args.offset !== 0) throw invalid("give page or offset, not both");
    delete args.offset;
  }
  if (fields !== undefined) {
    let list = fields;
    if (typeof fields === "string") {
      // S18.4: one comma-separated string, as form-filling clients and models send it, is split.
      list = fields
        .split(",")
        .map((field) => field.trim())
        .filter((field) => field !== "");
      notes.push(
        `fields ${cutForMessage(JSON.stringify(fields))} was read as the list ${cutForMessage(JSON.stringify(list))}`,
      );
    }
    if (!Array.isArray(list) || !list.every((field) => typeof field === "string")) {
      throw invalid(`fields must be a list of key names, such as ["id", "title"] (got ${typeOfValue(fields, true)})`);
    }
    // [] is what form-filling clients send for "all" (S14.5); a name given twice counts once (S7.4), so
    // nothing after this makes a set of 100,000 fields again (S26.1).
    if (list.length > 0) args.fields = [...new Set(list as string[])];
  }
  if (search !== undefined) {
    let text = search;
    if (typeof search === "number" || typeof search === "boolean") {
      // S18.4: a number or boolean (what a form sends for a typed value) is searched as its JSON text.
      text = JSON.stringify(search);
      notes.push(`search ${text} was read as the text ${JSON.stringify(text)}`);
    }
    if (typeof text !== "string" || text.length < 1 || text.length > MAX_SEARCH_CHARS) {
      const got = typeof text === "string" ? `got ${text.length} characters` : `got ${typeOfValue(search)}`;
      throw invalid(`search must be a string of 1 to ${MAX_SEARCH_CHARS} characters, the text to find (${got})`);
    }
    if (args.fields) {
      args.fieldsOfSearch = args.fields; // refused once the search has shown where the text is (S25.3)
      delete args.fields;
    }
    args.search = text;
  }
  if (aggregate !== undefined) {
    if (args.search !== undefined) {
      throw invalid(
        "give search or aggregate, not both: search finds text ({ handle, search }); " +
          "aggregate counts the nodes a path selects, and a filter finds text in them " +
          "(path \"$.rows[?search(@.title, 'printer')]\")",
      );
    }
    if (args.fields)
      throw invalid(
        "give fields or aggregate, not both: fields picks keys of each node; " +
          "an aggregate answers counts and figures of the members it names (by, sum, min, max, avg, distinct)",
      );
    args.aggregate = parseAggregate(aggregate, notes);
  }
  if (notes.length > 0) args.notes = notes;
  return args;
}

/**
 * S25.3: `fields` with `search`, refused with the filter that returns those fields: `search()` on the
 * member(s) the search found the text in (letters as `[Pp]` classes: `search()` is exact in case), over the
 * list whose items hold them, read from the hits' paths.
 */
export function searchWithFields(args: QueryArguments, fields: readonly string[], hits: unknown): ResultQueryError {
  const text = args.search ?? "";
  const pattern = [...text]
    .map((char) => {
      const [lower, upper] = [char.toLowerCase(), char.toUpperCase()];
      if (lower !== upper && lower.length === 1 && upper.length === 1) return `[${upper}${lower}]`;
      return /[.*+?^${}()|[\]\\]/.test(char) ? `\\${char}` : char;
    })
    .join("")
    .replace(/\\/g, "\\\\")
    .replace(/'/g, "\\'");
  // A hit's path: the list, the item's index, then the member inside it ($.rows[11].title).
  const places = new Map<string, Map<string, number>>();
  for (const hit of Array.isArray(hits) ? hits : []) {
    const path =
      (hit as { path?: unknown; key?: unknown }).key === undefined ? (hit as { path?: unknown }).path : undefined;
    const parts =
      typeof path === "string" ? /^(.*)\[\d+\]((?:\.[A-Za-z_][A-Za-z0-9_]*|\['(?:[^'\\]|\\.)*'\])+)$/.exec(path) : null;
    if (!parts) continue;
    const members = places.get(parts[1]!) ?? places.set(parts[1]!, new Map()).get(parts[1]!)!;
    members.set(`@${parts[2]}`, (members.get(`@${parts[2]}`) ?? 0) + 1);
  }
  const refused = "give search or fields, not both: search answers hits { path, text }, not objects.";
  const busiest = [...places].sort((a, b) => sum(b[1]) - sum(a[1]))[0];
  if (!busiest) {
    return invalid(
      `${refused} Search without fields first: ` +
        `its hits' paths name the objects and members that hold ${JSON.stringify(text)}.`,
    );
  }
  const [list, members] = busiest;
  const named = [...members]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([member]) => member);
  const call = JSON.stringify({
    path: `${list}[?${named.map((member) => `search(${member}, '${pattern}')`).join(" || ")}]`,
    fields,
  });
  return invalid(
    `${refused} The text is in ${named.join(" and ")} of the items of ${list}: ` +
      `to get ${fields.join(", ")} of those items, filter: ${call}`,
  );
}

function sum(counts: Map<string, number>): number {
  let total = 0;
  for (const count of counts.values()) total += count;
  return total;
}

/** What arrived, for a refusal (S18.4): "a list", "an object", "a number", or a short text's own value. */
function typeOfValue(value: unknown, quoteStrings = false): string {
  if (value === null) return "null";
  if (quoteStrings && typeof value === "string") return `the text ${cutForMessage(JSON.stringify(value))}`;
  return Array.isArray(value) ? "a list" : typeof value === "object" ? "an object" : `a ${typeof value}`;
}

const DIGITS = /^[0-9]{1,15}$/;

function wholeNumber(name: string, value: unknown, min: number, max: number, notes: string[]): number {
  let number = value;
  if (typeof value === "string" && DIGITS.test(value.trim())) {
    // S18.4: a string of digits (what a form field sends) is read as the number, and the answer says so.
    number = Number(value.trim());
    notes.push(`${name} ${JSON.stringify(value)} was read as the number ${String(number)}`);
  }
  if (typeof number !== "number" || !Number.isInteger(number) || number < min || number > max) {
    const got =
      typeof value === "number"
        ? `got ${value}`
        : typeof value === "string"
          ? `got the text ${cutForMessage(JSON.stringify(value))}`
          : `got ${typeOfValue(value)}`;
    throw invalid(
      `${name} must be a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? " up" : ` to ${max}`} (${got})`,
    );
  }
  return number;
}

/**
 * Reads one slice of a stored answer (S7.2 to S7.6, S14.2) for a path planned already (the plan the store read
 * with). `sliceLimitBytes` is the slice limit of the plugin instance that folded the handle, for this call: a
 * larger slice is refused, never folded again (S7.7).
 */
export function answerPlan(
  answer: unknown,
  plan: QueryPlan,
  args: QueryArguments,
  sliceLimitBytes: number,
  meter?: CostMeter,
): QueryResult {
  if (args.aggregate) return aggregateWhole(answer, aggregatePlan(plan), args.aggregate, args, sliceLimitBytes, meter);
  if (plan.kind === "refused") throw plan.error;
  if (plan.kind === "nodelist") {
    const { compiled } = plan;
    const window = membersWindow(answer, plan, args, sliceLimitBytes);
    if (window) return window;
    return nodelistResult(
      () =>
        nodelistPage(
          (watch) => selectNodes(compiled, answer, plan.path, meter, watch),
          plan.path,
          args,
          sliceLimitBytes,
          compiled.watch,
        ),
      plan.path,
      sliceLimitBytes,
    );
  }
  const at = resolveSegments(answer, plan.segments, plan.path);
  const { value: target, steps } = at;
  const path = formatPath(steps);
  const pick = fieldPicker(args.fields);

  if (isText(target)) {
    // a string, or a long one read in part: its window is read (S16.4)
    if (args.fields) throw invalid(`fields apply to objects and lists of objects; ${cutForMessage(path)} is a string`);
    const { offset, limit } = sliceWindow(args, DEFAULT_LIMITS.chars);
    const [start, end] = stringRange(target, offset, limit);
    const value = target.slice(start, end);
    checkSize(value, sliceLimitBytes, at, () => fittingChars(value, sliceLimitBytes), "characters", start);
    return withPaging(path, value, target.length, start, end);
  }
  if (Array.isArray(target)) {
    const { offset, limit } = sliceWindow(args, DEFAULT_LIMITS.items);
    const from = Math.min(offset, target.length);
    const end = Math.min(target.length, offset + limit);
    const built = buildEntries(from, end, (at) => (pick ? pick(target[at]) : target[at]), itemSize, sliceLimitBytes);
    // Fields naming no key are told first: a page of empty objects too large to return says nothing useful (S14.5).
    if (pick)
      checkFieldsFound(target.slice(from, from + built.entries.length), built.entries, args.fields!, {
        path,
        offset: from,
      });
    if (!built.fits) refuseSize(path, sliceLimitBytes, built.bytes, built.fit, "items", from, !built.whole, at);
    return withPaging(path, built.entries, target.length, from, end);
  }
  if (isPlainObject(target)) {
    // A wide object read in part (S16.4): its window of members, or the members `fields` name, were read; its key count
    // is from the index.
    const pieced = target instanceof PiecedObject ? target : undefined;
    // S26.1: the keys `fields` keep, in their order, without copying the object (100,000 fields of a million-key
    // object built an object of 100,000 keys and listed them again: 0.2-0.5 s without yielding).
    const kept = pick
      ? pieced
        ? pieced.pickedKeys(args.fields!)
        : keptFields(args.fields!, (field) => ownValue(target, field))
      : undefined;
    if (kept) checkFieldsFound([target], [kept.length > 0 ? { [kept[0]!]: true } : {}], args.fields!, { path });
    const windowed = kept ? undefined : pieced; // its window of members was read
    const keys = windowed ? [] : (kept ?? jsonKeys(target));
    const count = windowed ? windowed.size : keys.length;
    const { offset, limit } = sliceWindow(args, DEFAULT_LIMITS.keys);
    const from = Math.min(offset, count);
    const end = Math.min(count, offset + limit);
    const entryAt = windowed
      ? (at: number) => windowed.memberAt(at)
      : (at: number) => [keys[at]!, pieced ? pieced.get(keys[at]!) : target[keys[at]!]] as const;
    const built = buildEntries(from, end, entryAt, memberSize, sliceLimitBytes);
    if (!built.fits) refuseSize(path, sliceLimitBytes, built.bytes, built.fit, "keys", from, !built.whole, at);
    const value: JsonObject = {};
    for (const [key, member] of built.entries) setOwn(value, key, member);
    return withPaging(path, value, count, from, end);
  }
  checkSize(target, sliceLimitBytes, at, () => 0, "items", 0);
  return { path, value: target };
}

/**
 * `answerPlan` as a tool call runs it (S21.1, S21.4): charged to the call's meter, and a nodelist built
 * yielding between nodes.
 */
export async function answerPlanYielding(
  answer: unknown,
  plan: QueryPlan,
  args: QueryArguments,
  sliceLimitBytes: number,
  meter: CostMeter,
): Promise<QueryResult> {
  if (args.aggregate)
    return aggregateWholeYielding(answer, aggregatePlan(plan), args.aggregate, args, sliceLimitBytes, meter);
  if (plan.kind !== "nodelist") return answerPlan(answer, plan, args, sliceLimitBytes);
  const window = membersWindow(answer, plan, args, sliceLimitBytes);
  if (window) return window;
  return nodelistResult(
    () =>
      nodelistPageYielding(
        (watch) => selectNodes(plan.compiled, answer, plan.path, meter, watch),
        plan.path,
        args,
        sliceLimitBytes,
        meter,
        plan.compiled.watch,
      ),
    plan.path,
    sliceLimitBytes,
  );
}

/**
 * `$.w[*]` over a wide object read as a window of its members (S16.4, S26.1: `selectorFor` read only the
 * batches of the page, as for `$.w`): the page of nodes from them, the rest counted from the object's
 * size, the same page, paths, total and refusals the evaluation over the whole object gives. Undefined
 * when the value there is not such an object (then the whole was read, and is evaluated).
 */
function membersWindow(
  answer: unknown,
  plan: Extract<QueryPlan, { kind: "nodelist" }>,
  args: QueryArguments,
  sliceLimitBytes: number,
): QueryResult | undefined {
  if (!plan.members) return undefined;
  let target: unknown = answer;
  const steps: string[] = [];
  for (const segment of plan.members) {
    const name = segment.kind === "name" ? segment.name : undefined;
    if (name === undefined || !(target instanceof PiecedObject || isPlainObject(target))) return undefined;
    if (target instanceof PiecedObject ? !target.hasKey(name) : !Object.hasOwn(target, name)) return undefined;
    target = target instanceof PiecedObject ? target.get(name) : target[name];
    steps.push(name);
  }
  if (!(target instanceof PiecedObject)) return undefined;
  const object = target;
  return nodelistResult(
    () => {
      const pager = new NodelistPager(plan.path, args, sliceLimitBytes, plan.compiled.watch);
      const { offset, limit } = sliceWindow(args, DEFAULT_LIMITS.nodes);
      const from = Math.min(offset, object.size);
      const end = Math.min(object.size, offset + limit);
      pager.skip(from);
      for (let at = from; at < end; at++) {
        const [key, value] = object.memberAt(at);
        if (!pager.add({ value, location: () => [...steps, key], ancestors: () => [object], key: () => key }))
          return pager.page();
      }
      pager.skip(object.size - end);
      return pager.page();
    },
    plan.path,
    sliceLimitBytes,
  );
}

/** The nodelist page `build` makes, or its refusal (S7.6, S14.2). */
export function nodelistResult(build: () => NodelistPage, path: string, sliceLimitBytes: number): QueryResult;
export function nodelistResult(
  build: () => NodelistPage | Promise<NodelistPage>,
  path: string,
  sliceLimitBytes: number,
): Promise<QueryResult>;
export function nodelistResult(
  build: () => NodelistPage | Promise<NodelistPage>,
  path: string,
  sliceLimitBytes: number,
): QueryResult | Promise<QueryResult> {
  const answer = (page: NodelistPage): QueryResult => {
    if (!page.fits) refuseSize(path, sliceLimitBytes, page.bytes, page.fit, "nodes", page.offset, true);
    return page.result;
  };
  const tooDeep = (error: unknown): never => {
    // Measuring a node nested deeper than the engine's stack: a coded refusal, never a crash (S14.3).
    if (error instanceof RangeError)
      throw invalid(`Path ${quoteArgument(path)} selects values nested too deeply to return: use a deeper path.`);
    throw error;
  };
  let page: NodelistPage | Promise<NodelistPage>;
  try {
    page = build();
  } catch (error) {
    return tooDeep(error);
  }
  return page instanceof Promise ? page.then(answer, tooDeep) : answer(page);
}

/** A character range that never splits a surrogate pair (S7.3). */
function stringRange(text: string | PiecedString, offset: number, limit: number): [number, number] {
  let start = Math.min(offset, text.length);
  if (
    start > 0 &&
    start < text.length &&
    isLowSurrogate(text.charCodeAt(start)) &&
    isHighSurrogate(text.charCodeAt(start - 1))
  )
    start--;
  let end = Math.min(text.length, start + limit);
  if (
    end < text.length &&
    end > start &&
    isHighSurrogate(text.charCodeAt(end - 1)) &&
    isLowSurrogate(text.charCodeAt(end))
  ) {
    end = end - 1 > start ? end - 1 : end + 1;
  }
  return [start, end];
}

function withPaging(path: string, value: unknown, total: number, offset: number, end: number): QueryResult {
  const result: QueryResult = { path, value, total, offset };
  if (end < total) result.nextOffset = end;
  return result;
}

function checkSize(
  value: unknown,
  sliceLimitBytes: number,
  at: Resolved,
  fitting: () => number,
  unit: string,
  offset: number,
): void {
  const bytes = jsonSize(value);
  if (bytes > sliceLimitBytes)
    refuseSize(formatPath(at.steps), sliceLimitBytes, bytes, fitting(), unit, offset, false, at);
}

/**
 * RESULT_SLICE_TOO_LARGE (S7.6): `fit` entries from `offset` would fit. A page is measured only up to the
 * first entry past the limit (S16.1), so for lists, objects and nodelists `bytes` is a lower bound.
 */
function refuseSize(
  fullPath: string,
  sliceLimitBytes: number,
  bytes: number,
  fit: number,
  unit: string,
  offset: number,
  lowerBound = false,
  at?: Resolved, // the value refused: its largest parts name a call that fits (S14.5)
): never {
  const path = cutForMessage(fullPath);
  const advice = at
    ? sliceAdvice(at.value, at.steps, sliceLimitBytes, fit, unit, offset)
    : fit > 0
      ? `At most ${fit} ${unit} from offset ${offset} fit: ` +
        `call result_query again with limit ${fit}, fewer fields or a deeper path.`
      : `Not even one ${unit.slice(0, -1)} fits: use a deeper path under ${path} or fewer fields.`;
  throw new ResultQueryError(
    "RESULT_SLICE_TOO_LARGE",
    `The slice at ${path} is ${lowerBound ? "more than " : ""}${bytes} bytes, ` +
      `over the ${sliceLimitBytes}-byte limit. ${advice}`,
  );
}

function invalid(message: string): ResultQueryError {
  return new ResultQueryError("INVALID_INPUT", message);
}
