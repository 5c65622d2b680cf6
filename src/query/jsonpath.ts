/**
 * RFC 9535 JSONPath over json-p3 (S14.1), made safe for hostile queries (S14.3):
 * - `match()` and `search()` run I-Regexp (RFC 9485) on re2js (iregexp.ts), a linear-time RE2 port, not
 *   json-p3's backtracking `RegExp` (`(a+)+b` over 28 `a`s blocked for seconds);
 * - descendant segments walk the answer with an explicit stack instead of nested generators (which cost
 *   one generator frame per level for every node, and end at json-p3's default depth of 50);
 * - node locations are parent links, so a node 3000 levels deep costs one step, not a copy of its path;
 * - every evaluation runs against a step budget, so `$..*..*` cannot make quadratic work.
 * json-p3 has no `eval` or `new Function` (checked in its 2.3.1 bundle).
 */
import { JSONPathEnvironment, JSONPathError, JSONPathNode, JSONPathNodeList, JSONPathQuery } from "json-p3";
import { ResultQueryError } from "../errors.js";
import { MAX_QUERY_CHARS, MAX_QUERY_STEPS } from "../defaults.js";
import { cutForMessage, quoteArgument } from "../util/quote-argument.js";
import { regexFunction } from "./iregexp.js";

/** A node's place as a parent link: `concat` (the only thing json-p3 does with a location) is one step. */
export class Location {
  constructor(
    readonly parent: Location | undefined,
    readonly step: string | number,
    /** The value here, when the root's was given: a search over overlapping nodes looks up its ancestors (S14.4). */
    readonly value?: unknown,
  ) {}
  concat(step: string | number): Location {
    const container = this.value;
    return new Location(this, step, container !== null && typeof container === "object" ? (container as Record<string | number, unknown>)[step] : undefined);
  }
  /** The values of the containers above this place, nearest first. */
  *ancestors(): Generator<unknown> {
    for (let at = this.parent; at; at = at.parent) yield at.value;
  }
  /** Keys and indexes from the root, for the canonical path of a node that is returned. */
  steps(): (string | number)[] {
    const out: (string | number)[] = [];
    for (let at: Location | undefined = this; at?.parent; at = at.parent) out.push(at.step);
    return out.reverse();
  }
}

/** One node of a nodelist: its value and its keys and indexes from the root. */
export interface JsonPathNode {
  readonly value: unknown;
  location(): (string | number)[];
  /** The values of the containers above it, nearest first (the answer's root last). */
  ancestors(): Iterable<unknown>;
  /** Its key or index in its parent (undefined for the root). */
  key(): string | number | undefined;
}

export class SelectedNode implements JsonPathNode {
  constructor(
    readonly value: unknown,
    private readonly at: Location,
  ) {}
  location(): (string | number)[] {
    return this.at.steps();
  }
  ancestors(): Iterable<unknown> {
    return this.at.ancestors();
  }
  key(): string | number | undefined {
    return this.at.parent ? this.at.step : undefined;
  }
}

/** The nodes one evaluation has visited; an evaluation over a list read in batches (S14.6) keeps one across them. */
export class QueryBudget {
  work = 0;
}
/** The budget of the evaluation running now: each runs synchronously (a batch at a time), setting it first. */
let budget = new QueryBudget();
export function useBudget(within: QueryBudget): void {
  budget = within;
}
export function tick(): void {
  if (++budget.work > MAX_QUERY_STEPS) throw tooManySteps();
}
/** The refusal of a query past its budget of steps (S14.3). */
export function tooManySteps(): ResultQueryError {
  return new ResultQueryError(
    "INVALID_INPUT",
    `The query would visit more than ${MAX_QUERY_STEPS} nodes of this answer (nested descendants or wildcards multiply): narrow it, for example $.rows[?@.id == 5] instead of $..*..id.`,
  );
}

export const environment = new JSONPathEnvironment();
environment.functionRegister.set("match", regexFunction(true));
environment.functionRegister.set("search", regexFunction(false));

// ---- descendants without recursion ----

export const DescendantSegment = environment.compile("$..a").segments[0]!.constructor;
export type Segment = JSONPathQuery["segments"][number];

export const NameSelector = environment.compile("$.a").segments[0]!.selectors[0]!.constructor;
/** `$` inside a filter (`$[?@.a == $.b]`): the whole answer, which a list read in batches does not have. */
const RootQuery = (environment.compile("$[?$.a]").segments[0]!.selectors[0] as unknown as { expression: { expression: object } }).expression.expression.constructor;

/**
 * The descendant segment of RFC 9535 2.5.2 (each node, then its children in order, depth first, each
 * passed to the selectors). Name selectors (`$..title`, the common case) are tested in place, without a
 * node per visited value, by a plain recursive walk down to RECURSION_DEPTH levels and the explicit stack
 * below that; other selectors take the stack walk, no generator per level. Each node yielded costs a
 * step here (runFrom does not wrap this segment again), and each value visited one more.
 */
function* descend(this: Segment, nodes: Iterable<JSONPathNode>): Generator<JSONPathNode> {
  const selectors = this.selectors;
  const names = selectors.every((selector) => selector instanceof NameSelector)
    ? selectors.map((selector) => (selector as unknown as { name: string }).name)
    : undefined;
  for (const node of nodes) {
    const location = node.location as unknown as Location;
    if (!names) yield* stackWalk(node.value, location, selectors, undefined, node.root);
    else if (node.value !== null && typeof node.value === "object") {
      const found: JSONPathNode[] = [];
      namesBelow(node.value, location, names, node.root, found, 0);
      yield* found;
    } else tick(); // a scalar: visited, and names select nothing in it
  }
}

/** Levels a names-only walk takes by recursion before the explicit stack (a 3000-deep answer must not overflow). */
const RECURSION_DEPTH = 400;

/** The nodes names select in container `value` and below it, in descendant order, into `found`. */
function namesBelow(value: object, location: Location, names: readonly string[], root: unknown, found: JSONPathNode[], depth: number): void {
  if (depth >= RECURSION_DEPTH) {
    for (const node of stackWalk(value, location, undefined, names, root)) found.push(node);
    return;
  }
  tick();
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      if (child !== null && typeof child === "object") namesBelow(child, location.concat(i), names, root, found, depth + 1);
      else tick();
    }
    return;
  }
  for (const name of names) {
    if (Object.hasOwn(value, name)) {
      tick();
      found.push(new JSONPathNode((value as Record<string, never>)[name]!, location.concat(name) as never, root as never));
    }
  }
  // Object.keys gives the order environment.entries does (json-p3's deterministic mode is Object.entries).
  for (const key of Object.keys(value)) {
    const child: unknown = (value as Record<string, unknown>)[key];
    if (child !== null && typeof child === "object") namesBelow(child, location.concat(key), names, root, found, depth + 1);
    else tick();
  }
}

/**
 * The descendant walk on an explicit stack, from `start` (visited first): each value passed to `selectors`,
 * or, for names only, those names tested in place. A child's location is made only when something needs it.
 */
function* stackWalk(start: unknown, at: Location, selectors: readonly unknown[] | undefined, names: readonly string[] | undefined, root: unknown): Generator<JSONPathNode> {
  const values: unknown[] = [start];
  const parents: (Location | undefined)[] = [undefined];
  const keys: (string | number)[] = [0];
  while (values.length > 0) {
    const value = values.pop();
    const parent = parents.pop();
    const key = keys.pop()!;
    tick();
    const container = value !== null && typeof value === "object";
    if (names && !container) continue; // names select nothing in a scalar
    const location = parent ? parent.concat(key) : at;
    if (names) {
      if (!Array.isArray(value)) {
        for (const name of names) {
          if (Object.hasOwn(value as object, name)) {
            tick();
            yield new JSONPathNode((value as Record<string, never>)[name]!, location.concat(name) as never, root as never);
          }
        }
      }
    } else {
      const current = new JSONPathNode(value as never, location as never, root as never);
      for (const selector of selectors as { resolve(node: JSONPathNode): Iterable<JSONPathNode> }[]) {
        for (const node of selector.resolve(current)) {
          tick();
          yield node;
        }
      }
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) values.push(value[i]), parents.push(location), keys.push(i);
    } else if (container) {
      const members = Object.keys(value as object);
      for (let i = members.length - 1; i >= 0; i--) values.push((value as Record<string, unknown>)[members[i]!]), parents.push(location), keys.push(members[i]!);
    }
  }
}

/**
 * Nodes of `segments` applied to `value`, starting from a parent-linked root location. Every node a
 * segment yields costs a step: a query inside a filter (`$.rows[?count($.rows[*]) > 0]`) runs once per
 * item, and without this its work would grow with the square of the answer (S14.3, S16.1).
 */
function run(segments: readonly Segment[], value: unknown): Iterable<JSONPathNode> {
  return runFrom(segments, [new JSONPathNode(value as never, new Location(undefined, "", value) as never, value as never)]);
}

/** `segments` applied to `nodes` in turn, each node they yield counted. */
export function runFrom(segments: readonly Segment[], nodes: Iterable<JSONPathNode>): Iterable<JSONPathNode> {
  for (const segment of segments) nodes = segment instanceof DescendantSegment ? segment.lazyResolve(nodes as never) : counted(segment.lazyResolve(nodes as never)); // descend counts its own
  return nodes;
}

function* counted(nodes: Iterable<JSONPathNode>): Generator<JSONPathNode> {
  for (const node of nodes) {
    tick();
    yield node;
  }
}

/**
 * A singular query inside a filter (`@.owner`, evaluated once per item): stepped directly, without a
 * generator per segment. The node's location is never read inside a filter, so it is the root's.
 */
function singularRun(query: JSONPathQuery): (value: unknown) => JSONPathNode[] {
  const steps = query.segments.map((segment) => segment.selectors[0] as unknown as { name?: string; index?: number });
  const root = new Location(undefined, "");
  return (start) => {
    let value = start;
    for (const { name, index } of steps) {
      if (typeof name === "string") {
        if (value === null || typeof value !== "object" || Array.isArray(value) || !Object.hasOwn(value, name)) return [];
        value = (value as Record<string, unknown>)[name];
      } else {
        if (!Array.isArray(value)) return [];
        const at = index! < 0 ? value.length + index! : index!;
        if (at < 0 || at >= value.length) return [];
        value = value[at];
      }
    }
    return [new JSONPathNode(value as never, root as never, start as never)];
  };
}

/**
 * Gives every descendant segment of the compiled query the stack walk above, and every query inside a
 * filter (`@..x`, `$.y`) parent-linked locations, so no node costs a copy of its path.
 */
function useStackWalk(query: JSONPathQuery): { usesRoot: boolean } {
  let usesRoot = false;
  const seen = new Set<object>();
  const pending: unknown[] = [query];
  while (pending.length > 0) {
    const item = pending.pop();
    if (item === null || typeof item !== "object" || seen.has(item)) continue;
    seen.add(item);
    if (item instanceof RootQuery) usesRoot = true;
    if (item instanceof DescendantSegment) {
      const segment = item as unknown as Segment;
      segment.lazyResolve = descend as never;
      segment.resolve = (nodes) => Array.from(descend.call(segment, nodes));
    } else if (item !== query && item instanceof JSONPathQuery) {
      const inner = item;
      const select = inner.singularQuery() ? singularRun(inner) : (value: unknown) => Array.from(run(inner.segments, value));
      inner.lazyQuery = (value) => select(value)[Symbol.iterator]();
      inner.query = (value) => new JSONPathNodeList(select(value));
    }
    for (const [key, child] of Object.entries(item)) if (key !== "environment" && key !== "token") pending.push(child);
  }
  return { usesRoot };
}

// ---- compile and evaluate ----

/** A compiled RFC 9535 query. */
export interface CompiledJsonPath {
  readonly query: JSONPathQuery;
  /** RFC 9535 2.3.5: only name and index selectors, so at most one node. */
  readonly singular: boolean;
  /** Whether a filter in it reads the root (`$.a` inside `[?…]`), so it needs the whole answer. */
  readonly usesRoot: boolean;
}

/**
 * Compiles an RFC 9535 query. A query over MAX_QUERY_CHARS, or one the engine cannot take for its depth
 * (deeply nested filters), is INVALID_INPUT saying why (S14.3); a syntax error is RESULT_PATH_NOT_FOUND:
 * the path is of no form of S7.2 or S14.1 (S7.6).
 */
export function compileJsonPath(path: string): CompiledJsonPath {
  if (path.length > MAX_QUERY_CHARS) {
    throw new ResultQueryError(
      "INVALID_INPUT",
      `Path ${quoteArgument(path)} is a JSONPath query of ${path.length} characters, over the ${MAX_QUERY_CHARS} a query may have: use a shorter query.`,
    );
  }
  let query: JSONPathQuery;
  try {
    query = environment.compile(path);
  } catch (error) {
    if (error instanceof RangeError) throw tooDeep(path, "nests too deeply to compile");
    const detail = error instanceof JSONPathError ? cutForMessage(error.message.split("\n")[0]!) : "not a JSONPath query";
    throw new ResultQueryError(
      "RESULT_PATH_NOT_FOUND",
      `Path ${quoteArgument(path)} is not a valid query (${detail}). Use a path such as $.rows[2].title, $.rows[*].id, $.rows[?@.status == 'open'], rows.2.title or /rows/2/title; "$" is the whole answer.`,
    );
  }
  const { usesRoot } = useStackWalk(query);
  return { query, singular: query.singularQuery(), usesRoot };
}

/**
 * The nodes `compiled` selects in `answer`, in the RFC's order, produced lazily so a caller keeps only
 * the page it returns. The whole iteration must run synchronously (one step budget per evaluation).
 */
export function selectNodes(compiled: CompiledJsonPath, answer: unknown, path: string): Generator<JsonPathNode> {
  return selectFrom(run(compiled.query.segments, answer), path, new QueryBudget());
}

/** The nodes of an evaluation, counted against `within`, engine errors made coded refusals. */
export function* selectFrom(nodes: Iterable<JSONPathNode>, path: string, within: QueryBudget): Generator<JsonPathNode> {
  useBudget(within);
  const iterator = nodes[Symbol.iterator]();
  for (;;) {
    let next: IteratorResult<JSONPathNode>;
    try {
      next = iterator.next();
    } catch (error) {
      // Comparisons of deeply nested values recurse inside json-p3: a coded refusal, never a crash.
      if (error instanceof RangeError) throw tooDeep(path, "meets values nested too deeply to compare");
      if (error instanceof JSONPathError) throw new ResultQueryError("INVALID_INPUT", `Path ${quoteArgument(path)} cannot run here: ${cutForMessage(error.message)}`);
      throw error;
    }
    if (next.done) return;
    tick();
    yield new SelectedNode(next.value.value, next.value.location as unknown as Location);
  }
}

function tooDeep(path: string, why: string): ResultQueryError {
  return new ResultQueryError("INVALID_INPUT", `Path ${quoteArgument(path)} ${why}: use a simpler query.`);
}
