/**
 * The one query plan (S7.2, S14.1, S14.2, S8.5): a path is parsed once, into
 * - a singular plan (segments): the dot path, the JSON Pointer, every `$` form of S7.2, and any RFC 9535
 *   singular query (only name and index selectors); it answers as S7.3 to S7.5;
 * - a JSONPath plan: any other `$` query, answered as a nodelist (S14.2);
 * - a refusal: the path is of no form; the query refuses it whatever the answer holds.
 * The plan also says which pieces the store reads (`select`), from the same segments and the same window
 * rule `answerPlan` slices with, so no rule is written twice.
 */
import type { ListSummary, ObjectSummary, StringSummary } from "../../records/format/answer-index.js";
import type { Selection, Selector } from "./selection.js";
import { ResultQueryError } from "../../errors.js";
import { DEFAULT_LIMITS, MAX_PATH_CHARS } from "../../defaults.js";
import { ChildSegment, namesBefore, namesThenWildcard } from "../json-p3-classes.js";
import { quoteArgument } from "../../util/quote-argument.js";
import { sliceAllowances } from "../../config.js";
import { compileJsonPath, type CompiledJsonPath } from "../jsonpath/jsonpath.js";
import { itemPlanOf, type ItemPlan } from "../jsonpath/item-plan.js";
import { listIndex, objectKey, parsePath, type PathSegment } from "./path.js";
import type { AggregateSpec } from "../aggregate/spec.js";

/**
 * What a read is for, said by the caller: a `result_query` page, answered under the call's slice limit
 * (summaries, windows and batch readings of S8.5 and S14.6), or a reference (S15.1),
 * which takes what it names whole and unpaged.
 */
type ReadMode = { readonly kind: "page"; readonly sliceLimitBytes: number } | { readonly kind: "reference" };

/** Arguments of `result_query` after validation (S7.1). */
export interface QueryArguments {
  handle: string;
  path: string;
  offset?: number;
  limit?: number;
  page?: number;
  /** Distinct, in the order first given (`parseQueryArguments` drops a name given again). */
  fields?: string[];
  /** Text to find under `path` (S14.4); answered by `searchQueryYielding`. */
  search?: string;
  /** Counts and figures over the nodes `path` selects (S24.1), instead of the nodes. */
  aggregate?: AggregateSpec;
  /** How lenient arguments were read (S18.4): each becomes part of the answer's `note`. */
  notes?: string[];
  /**
   * `fields` given with `search` (S25.3): the call is refused, but only after the search has run, so the
   * refusal can name the filter on the members that hold the text.
   */
  fieldsOfSearch?: string[];
}

export type QueryPlan =
  | { readonly kind: "singular"; readonly path: string; readonly segments: readonly PathSegment[] }
  | {
      readonly kind: "nodelist";
      readonly path: string;
      readonly compiled: CompiledJsonPath;
      readonly items?: ItemPlan;
      /**
       * For `$.a.b[*]`: the names to the value whose members or items are the nodes (S26.1: a window of a wide object
       * is read as one).
       */
      readonly members?: readonly PathSegment[];
    }
  | { readonly kind: "refused"; readonly path: string; readonly error: ResultQueryError };

/** Parses `path` once. Never throws: a bad path becomes a refused plan, raised when the plan is answered. */
export function planPath(path: string): QueryPlan {
  if (path.length > MAX_PATH_CHARS) return { kind: "refused", path, error: pathTooLong(path) };
  try {
    if (!path.startsWith("$")) return { kind: "singular", path, segments: parsePath(path) };
    let compiled: CompiledJsonPath | undefined;
    let refusal: unknown;
    try {
      compiled = compileJsonPath(path);
    } catch (error) {
      refusal = error;
    }
    if (compiled?.singular) return { kind: "singular", path, segments: singularSegments(compiled) };
    if (compiled)
      return { kind: "nodelist", path, compiled, items: itemPlanOf(compiled), members: membersOf(compiled) };
    // Not RFC 9535, but an S7.2 form (such as $.rows.2.title, or a name longer than a query may be): singular.
    try {
      return { kind: "singular", path, segments: parsePath(path) };
    } catch {
      throw refusal;
    }
  } catch (error) {
    if (error instanceof ResultQueryError) return { kind: "refused", path, error };
    throw error;
  }
}

/**
 * The names before a last `[*]` when that is all the query is (`$.w[*]`, `$['a'].b.*`): its nodes are the members of
 * one value.
 */
function membersOf(compiled: CompiledJsonPath): PathSegment[] | undefined {
  return namesThenWildcard(compiled.query.segments, ChildSegment)?.map((name) => ({ kind: "name", name }));
}

/** The names a nodelist query starts with (`$.a.b` of `$.a.b[?…]`), when it starts with one. */
function namesOf(plan: Extract<QueryPlan, { kind: "nodelist" }>): string[] | false {
  const names = namesBefore(plan.compiled.query.segments);
  return names.length > 0 && names;
}

/** Whether one of the two paths is the other or lies under it. */
function related(a: readonly string[], b: readonly string[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The name and index selectors of an RFC 9535 singular query, as segments of S7.2 with the RFC's meaning. */
function singularSegments(compiled: CompiledJsonPath): PathSegment[] {
  return compiled.query.segments.map((segment) => {
    const selector = segment.selectors[0] as unknown as { name?: string; index?: number };
    return typeof selector.name === "string"
      ? { kind: "name", name: selector.name }
      : { kind: "index", index: selector.index!, strict: true };
  });
}

/** The window `offset`/`limit`/`page` ask for (S7.1), given the default limit of what is sliced. */
export function sliceWindow(
  args: Pick<QueryArguments, "offset" | "limit" | "page">,
  defaultLimit: number,
): { offset: number; limit: number } {
  const limit = args.limit ?? defaultLimit;
  const offset = args.page !== undefined ? (args.page - 1) * limit : (args.offset ?? 0);
  return { offset, limit };
}

/**
 * What the store must read for this plan (S8.5, S16.4): a singular path into a large list reads only the
 * batches holding the window (path ends at the list) or the item (path goes through it); one ending at a
 * long string reads only the batches holding its window of characters; one ending at a wide object reads the
 * batches holding its window of keys, one stepping through it those that may hold the name (S16.4); a
 * nodelist or a search reads all.
 * A path above a list or long string (`$` on `{ rows, log }`) reads a summary for a page (a `result_query`,
 * whose slice may be refused): the query then answers from it only a refusal, and reads the rest when the
 * slice fits. A reference (S15.1) reads the value whole.
 * A page streams what it reads whole where it can (S14.6): a nodelist
 * whose item plan reaches an indexed list, and a search at or above indexed lists and wide objects (no
 * long string under it), read those lists and objects batch by batch; a search under a wide object's key
 * reads the batches that may hold the key, as a singular path does (S16.4).
 */
export function selectorFor(
  plan: QueryPlan,
  args: Pick<QueryArguments, "offset" | "limit" | "page" | "search" | "fields" | "aggregate">,
  mode: ReadMode,
): Selector {
  const reference = mode.kind === "reference";
  if (plan.kind === "refused") return () => "none";
  if (plan.kind === "nodelist") {
    const members =
      mode.kind === "page" && args.search === undefined && args.aggregate === undefined ? plan.members : undefined;
    if (members && mode.kind === "page") {
      // `$.w[*]` with w a wide object (S16.4, S26.1): its window of members, as `$.w` reads it (a page of nodes, at
      // most what could fit).
      const names = members.map((segment) => objectKey(segment));
      const windowOf = (objects: readonly ObjectSummary[]): Selection | undefined => {
        const object = objects.findIndex(
          ({ path }) => path.length === names.length && path.every((key, i) => key === names[i]),
        );
        if (object < 0) return undefined;
        const { offset, limit } = sliceWindow(args, DEFAULT_LIMITS.nodes);
        const most = sliceAllowances(mode.sliceLimitBytes).memberNodes;
        return { object, from: offset, to: offset + Math.min(limit, most) };
      };
      const rest = selectorFor({ ...plan, members: undefined }, args, mode);
      return (lists, strings = [], objects = []) => windowOf(objects) ?? rest(lists, strings, objects);
    }
    // A query whose names lead to a value no list, long string or wide object is in or under (`$.a[?…]` beside the
    // lists) reads what lies outside them: its nodes are all there (S26.1).
    const apart = mode.kind === "page" && args.search === undefined && !plan.compiled.usesRoot && namesOf(plan);
    const outside: Selector = (lists, strings = [], objects = []) =>
      apart && [...lists, ...strings, ...objects].every(({ path }) => !related(path, apart)) ? "outside" : "all";
    const names = !reference && args.search === undefined ? plan.items?.names : undefined;
    if (!names) return outside;
    const descendants = plan.items!.descendants;
    return (lists, strings = [], objects = []) => {
      if (outside(lists, strings, objects) === "outside") return "outside";
      const list = lists.findIndex(
        ({ path }) => path.length === names.length && path.every((key, i) => key === names[i]),
      );
      if (list >= 0) return { stream: list };
      // A wildcard or a filter over a wide object's members reads them member batch by member batch (S26.1): read
      // whole, a million keys were 1.7-1.9 s of work and held the loop 130-380 ms at a time.
      const object = objects.findIndex(
        ({ path }) => path.length === names.length && path.every((key, i) => key === names[i]),
      );
      if (object >= 0 && plan.items!.selectMembers) return { stream: "object", object };
      // Descendants by name above lists and wide objects read them where they stand (`descendantNodes`), unless a
      // name could select a part itself (its value is not in what lies outside), or the names lead into a wide
      // object's members (S26.1: the walk starts at a wide object or meets one below, never inside one).
      const below = ({ path }: { path: readonly string[] }) =>
        path.length > names.length && names.every((key, i) => path[i] === key);
      // A name selecting the part or any object on the way to it (`$..data` over `data.rows`) selects a value holding
      // the part.
      const selected = (part: { path: readonly string[] }) =>
        below(part) && part.path.slice(names.length).some((key) => descendants!.names.includes(key));
      const at = ({ path }: { path: readonly string[] }) =>
        path.length === names.length && names.every((key, i) => path[i] === key);
      const into = ({ path }: { path: readonly string[] }) =>
        path.length < names.length && path.every((key, i) => names[i] === key);
      const walkable =
        descendants &&
        (lists.some(below) || objects.some(below) || objects.some(at)) &&
        !lists.some(selected) &&
        !strings.some(selected) &&
        !objects.some(selected) &&
        !objects.some(into);
      return walkable ? { stream: "all" } : "all";
    };
  }
  const { segments } = plan;
  const under = (path: readonly string[]) =>
    segments.length >= path.length && path.every((key, i) => objectKey(segments[i]!) === key);
  const above = (path: readonly string[]) =>
    segments.length < path.length && segments.every((segment, i) => objectKey(segment) === path[i]);
  return (
    lists: readonly ListSummary[],
    strings: readonly StringSummary[] = [],
    objects: readonly ObjectSummary[] = [],
  ): Selection => {
    for (let list = 0; list < lists.length; list++) {
      const { path, length } = lists[list]!;
      if (!under(path)) continue;
      const rest = segments.slice(path.length);
      if (rest.length === 0) {
        // every item (S14.4)
        if (args.search !== undefined) return reference ? { list, from: 0, to: length } : { stream: list };
        const { offset, limit } = sliceWindow(args, DEFAULT_LIMITS.items);
        return { list, from: offset, to: offset + limit };
      }
      const item = listIndex(rest[0]!, length);
      // An index out of range, or a name, names nothing in a list: the query says so from the list's length alone.
      return item === undefined ? { list, from: 0, to: 0 } : { list, from: item, to: item + 1 };
    }
    for (let string = 0; string < strings.length; string++) {
      const { path } = strings[string]!;
      if (!under(path)) continue;
      // Nothing is under a string: the refusal says so from its length alone.
      if (segments.length > path.length) return { string, from: 0, to: 0 };
      if (args.search !== undefined || reference) return "all"; // every character (S14.4, S15.1)
      const { offset, limit } = sliceWindow(args, DEFAULT_LIMITS.chars);
      // One character more each side: a window never splits a surrogate pair (S7.3), so its edges are looked at.
      return { string, from: Math.max(0, offset - 1), to: offset + limit + 2 };
    }
    for (let object = 0; object < objects.length; object++) {
      const { path } = objects[object]!;
      if (!under(path)) continue;
      // A reference (S15.1) reads the object whole; a search at it streams its member batches (S14.6); a
      // search under one of its keys, or `fields` (S7.4), read the batches that may hold them.
      if (mode.kind === "reference") return "all";
      const step = segments[path.length];
      if (step === undefined && args.search !== undefined) return { stream: "object", object };
      if (step === undefined && args.fields) return { object, keys: args.fields };
      if (step === undefined) {
        // A window of its keys in key order (S7.4, S16.4): no more than could fit under the limit.
        const { offset, limit } = sliceWindow(args, DEFAULT_LIMITS.keys);
        const most = sliceAllowances(mode.sliceLimitBytes).objectKeys;
        return { object, from: offset, to: offset + Math.min(limit, most) };
      }
      return { object, keys: [objectKey(step) ?? (step.kind === "index" ? String(step.index) : "")] };
    }
    // A path on the way to a part (`$`, or `data` above `data.rows`) needs them; one beside them does not (S16.4).
    const aboveAPart =
      lists.some(({ path }) => above(path)) ||
      strings.some(({ path }) => above(path)) ||
      objects.some(({ path }) => above(path));
    if (!aboveAPart) return lists.length === 0 && strings.length === 0 && objects.length === 0 ? "all" : "outside";
    if (mode.kind === "reference") return "all";
    if (args.search === undefined) return { summary: mode.sliceLimitBytes };
    // A search streams the lists and wide objects under it; a long string under it is read whole with the rest.
    return strings.some(({ path }) => above(path)) ? "all" : { stream: "all" };
  };
}

/** A path over MAX_PATH_CHARS, refused before it is parsed (S21.2). */
function pathTooLong(path: string): ResultQueryError {
  return new ResultQueryError(
    "INVALID_INPUT",
    `Path ${quoteArgument(path)} is ${path.length} characters, over the ${MAX_PATH_CHARS} a path may have: ` +
      `use a shorter path (search finds a key or text anywhere under a path).`,
  );
}
