/**
 * RFC 9535 JSONPath over json-p3 (S14.1), made safe for hostile queries (S14.3):
 * - `match()` and `search()` run I-Regexp (RFC 9485) on re2js (`regexFunction`), a linear-time RE2 port, not
 *   json-p3's backtracking `RegExp` (`(a+)+b` over 28 `a`s blocked for seconds);
 * - descendant segments walk the answer without a generator per level (`descend`), which cost one
 *   generator frame per level for every node, and ended at json-p3's default depth of 50;
 * - node locations are parent links, and every evaluation charges the call's cost meter (`CostMeter`, S21.1):
 *   each node, and each filter's expression nodes per item it runs on; filters too large or nested too
 *   deeply, and literal patterns whose program is too large, are refused at compile time (S21.2, `meterFilter`).
 * json-p3 has no `eval` or `new Function` (checked in its 2.3.1 bundle).
 */
import { jsonpath, JSONPathEnvironment, JSONPathError, JSONPathNode, JSONPathNodeList, JSONPathQuery } from "json-p3";
import { ResultQueryError } from "../../errors.js";
import { keptKeyList } from "../../util/json.js";
import { MAX_QUERY_CHARS } from "../../defaults.js";
import { cutForMessage, quoteArgument } from "../../util/quote-argument.js";
import { regexFunction } from "./iregexp.js";
import { descend } from "./descendants.js";
import { childSegment, oneByOne, YIELD_NODE } from "./yield-points.js";
import { Location } from "./steps.js";
import { CostMeter, tick, useMeter, watching } from "../cost.js";
import { meterFilter } from "./filter-limits.js";
import {
  ChildSegment,
  compiledParts,
  DescendantSegment,
  FilterSelector,
  NameSelector,
  RootQuery,
  type Segment,
} from "../json-p3-classes.js";
import { planWatch, type WatchPlan } from "../refusals/watch-plan.js";
import type { MemberWatch } from "../refusals/member-watch.js";

export { Location } from "./steps.js";
export { CostMeter, tick, useMeter, watching } from "../cost.js";

/** One node of a nodelist: its value and its keys and indexes from the root. */
export interface JsonPathNode {
  readonly value: unknown;
  location(): (string | number)[];
  /** The values of the containers above it, nearest first (the answer's root last). */
  ancestors(): Iterable<unknown>;
  /** Its key or index in its parent (undefined for the root). */
  key(): string | number | undefined;
}

class SelectedNode implements JsonPathNode {
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

export const environment = new JSONPathEnvironment();
environment.functionRegister.set("match", regexFunction(true));
environment.functionRegister.set("search", regexFunction(false));
// An object's members one by one, from its kept key list when a read kept one (S26.1): json-p3's own
// `Object.entries` of a million-key object held the thread 0.4 s without yielding before a wildcard or a
// filter over it could let anything in.
environment.entries = ((object: object) => {
  const keys = keptKeyList(object);
  return keys ? members(object, keys) : Object.entries(object); // most objects are small rows: json-p3's own way
}) as unknown as JSONPathEnvironment["entries"];

function* members(object: object, keys: readonly string[]): Generator<[string, unknown]> {
  for (let i = 0; i < keys.length; i++) yield [keys[i]!, (object as Record<string, unknown>)[keys[i]!]];
}

export {
  ChildSegment,
  DescendantSegment,
  FilterSelector,
  InfixExpression,
  NameSelector,
  RelativeQuery,
  SliceSelector,
  StringLiteral,
  WildcardSelector,
  type Segment,
} from "../json-p3-classes.js";

/**
 * Nodes of `segments` applied to `value`, starting from a parent-linked root location. Every node a
 * segment yields costs a step: a query inside a filter (`$.rows[?count($.rows[*]) > 0]`) runs once per
 * item, and without this its work would grow with the square of the answer (S14.3, S16.1).
 */
function run(segments: readonly Segment[], value: unknown): Iterable<JSONPathNode> {
  return runFrom(segments, [
    new JSONPathNode(value as never, new Location(undefined, "", value) as never, value as never),
  ]);
}

/** `segments` applied to `nodes` in turn, each node they yield counted. */
export function runFrom(segments: readonly Segment[], nodes: Iterable<JSONPathNode>): Iterable<JSONPathNode> {
  for (const segment of segments)
    nodes =
      segment instanceof DescendantSegment
        ? segment.lazyResolve(nodes as never)
        : counted(segment.lazyResolve(nodes as never)); // descend counts its own
  return nodes;
}

/**
 * A child segment of a query inside a filter: each selector's nodes one by one (`oneByOne`: each item a filter
 * tests charged as a node visited), never YIELD_NODE (S26.1).
 */
function* innerChildSegment(selectors: readonly unknown[], nodes: Iterable<JSONPathNode>): Generator<JSONPathNode> {
  for (const node of nodes) for (const selector of selectors) yield* oneByOne(selector, node);
}

function* counted(nodes: Iterable<JSONPathNode>): Generator<JSONPathNode> {
  for (const node of nodes) {
    if (node !== YIELD_NODE) tick();
    yield node;
  }
}

/**
 * A singular query inside a filter (`@.owner`, evaluated once per item): stepped directly, without a
 * generator per segment. The node's location is never read inside a filter, so it is the root's.
 */
function singularRun(query: JSONPathQuery, watched?: readonly number[]): (value: unknown) => JSONPathNode[] {
  const steps = query.segments.map((segment) => segment.selectors[0] as unknown as { name?: string; index?: number });
  const root = new Location(undefined, "");
  return (start) => {
    let value = start;
    for (let at = 0; at < steps.length; at++) {
      const { name, index } = steps[at]!;
      if (typeof name === "string") {
        if (value === null || typeof value !== "object" || Array.isArray(value)) return [];
        const has = Object.hasOwn(value, name);
        if (watched) watching()?.saw(watched[at]!, value, has); // S18.2: a name no item has is told
        if (!has) return [];
        value = (value as Record<string, unknown>)[name];
      } else {
        if (!Array.isArray(value)) return [];
        const at = index! < 0 ? value.length + index! : index!;
        if (at < 0 || at >= value.length) return [];
        value = value[at];
      }
    }
    // S25.1: the value a compared member had, counted for the note of an empty answer.
    const last = watched?.[steps.length - 1];
    if (last !== undefined && last >= 0) watching()?.valueOf(last, value);
    return [new JSONPathNode(value as never, root as never, start as never)];
  };
}

/**
 * Gives every descendant segment of the compiled query the stack walk above, and every query inside a
 * filter (`@..x`, `$.y`) parent-linked locations, so no node costs a copy of its path.
 */
function useStackWalk(
  query: JSONPathQuery,
  path: string,
  watch: WatchPlan,
): { usesRoot: boolean; hoisted: Hoisted[]; roots: RootQueryExpression[] } {
  const top = new Set<unknown>(query.segments); // the segments that may hand up YIELD_NODE (S21.4)
  let usesRoot = false;
  let filterNodes = 0;
  const hoisted: Hoisted[] = [];
  const roots: RootQueryExpression[] = [];
  for (const item of compiledParts(query)) {
    if (item instanceof RootQuery) {
      usesRoot = true;
      roots.push(item as unknown as RootQueryExpression);
      const inner = (item as unknown as { path: JSONPathQuery }).path;
      if (!inner.singularQuery()) {
        // S26.1: a query from the root inside a filter selects the same nodes for every item: it runs once,
        // before the evaluation and yielding as a top-level query does, and every item reads its nodes.
        for (const segment of inner.segments) top.add(segment);
        hoisted.push(hoist(item as unknown as { evaluate(context: { rootValue: unknown }): unknown }, inner));
      }
    }
    if (item instanceof FilterSelector) filterNodes += meterFilter(item, path, filterNodes);
    if (item instanceof DescendantSegment) {
      const segment = item as unknown as Segment;
      const selectors = segment.selectors;
      const names = selectors.every((selector) => selector instanceof NameSelector)
        ? selectors.map((selector) => (selector as unknown as { name: string }).name)
        : undefined;
      const watched = watch.descendants.get(segment);
      const mayYield = top.has(segment);
      segment.lazyResolve = ((nodes: Iterable<JSONPathNode>) =>
        descend(selectors, names, nodes, watched, mayYield)) as never;
      segment.resolve = (nodes) => Array.from(descend(selectors, names, nodes as never, watched)) as never;
    } else if (item instanceof ChildSegment) {
      const selectors = (item as unknown as Segment).selectors;
      (item as unknown as Segment).lazyResolve = ((nodes: Iterable<JSONPathNode>) =>
        top.has(item) ? childSegment(selectors, nodes) : innerChildSegment(selectors, nodes)) as never;
    } else if (item !== query && item instanceof JSONPathQuery) {
      const inner = item;
      const select = inner.singularQuery()
        ? singularRun(inner, watch.relative.get(inner))
        : (value: unknown) => Array.from(run(inner.segments, value));
      inner.lazyQuery = (value) => select(value)[Symbol.iterator]();
      inner.query = (value) => new JSONPathNodeList(select(value));
    }
  }
  // a root query inside another's filter runs before it
  return { usesRoot, hoisted: hoisted.reverse(), roots };
}

/** A query from the root inside a filter, run once per answer (S26.1): `run` fills its nodes yielding. */
interface Hoisted {
  run(root: object): Generator<JSONPathNode>;
}

/**
 * Makes `expression` (a `RootQuery` of `inner`) answer every item from one run of `inner` per answer: the
 * run `selectNodes` makes first, handing up YIELD_NODE as it goes, or else one made at the first item. Only
 * the values are kept, each as a node at the root's location (a filter never reads a node's location).
 */
function hoist(expression: { evaluate(context: { rootValue: unknown }): unknown }, inner: JSONPathQuery): Hoisted {
  const lists = new WeakMap<object, JSONPathNodeList>();
  const location = new Location(undefined, "");
  function* run(root: object): Generator<JSONPathNode> {
    const nodes: JSONPathNode[] = [];
    for (const node of runFrom(inner.segments, [
      new JSONPathNode(root as never, new Location(undefined, "", root) as never, root as never),
    ])) {
      if (node === YIELD_NODE) yield node;
      else nodes.push(new JSONPathNode(node.value, location as never, root as never));
    }
    lists.set(root, new JSONPathNodeList(nodes));
  }
  expression.evaluate = ({ rootValue }) => {
    // nothing is under a scalar
    if (rootValue === null || typeof rootValue !== "object") return new JSONPathNodeList([]);
    if (!lists.has(rootValue)) for (const _ of run(rootValue)); // outside `selectNodes`: whole, YIELD_NODE dropped
    return lists.get(rootValue);
  };
  return { run };
}

// ---- compile and evaluate ----

/** A compiled RFC 9535 query. */
export interface CompiledJsonPath {
  readonly query: JSONPathQuery;
  /** RFC 9535 2.3.5: only name and index selectors, so at most one node. */
  readonly singular: boolean;
  /** Whether a filter in it reads the root (`$.a` inside `[?…]`): it needs the whole answer, unless bound (`bindRoots`). */
  readonly usesRoot: boolean;
  /** The member names it looks up, watched while it runs (S18.2). */
  readonly watch: WatchPlan;
  /** Its queries from the root inside filters, each run once per answer before the rest (S26.1). */
  readonly hoisted: readonly Hoisted[];
  /**
   * Every query from the root inside its filters (nested ones too), in the order the compilation finds them: the
   * same for the same text, so a batch worker compiling the text again binds the same ones (`bindRoots`).
   */
  readonly roots: readonly RootQueryExpression[];
  /** The summaries its queries from the root were bound to (`bindRoots`, S26.1), by their place in `roots`. */
  readonly bound?: RootBindings;
}

/** A query from the root inside a filter, as json-p3 compiled it (`RootQuery`): `path` is the query it runs. */
export interface RootQueryExpression {
  readonly path: JSONPathQuery;
  evaluate(context: object): unknown;
}

/**
 * What a query from the root inside a filter selects, read before the evaluation (S26.1): how many nodes, and the
 * value of its one node when it selects one and the filter reads it (a singular query, `value()`). Plain data: a
 * batch worker is handed it (structured clone) with the query's text.
 */
export interface RootSummary {
  readonly count: number;
  readonly value?: unknown;
}

/** Per query from the root of a compiled query (`CompiledJsonPath.roots`), its summary, or null where not bound. */
export type RootBindings = readonly (RootSummary | null)[];

/**
 * `compiled` with its queries from the root answered from `bindings` (S26.1): each bound one evaluates to a nodelist
 * of `count` nodes (the one node holding `value`), as json-p3's `count()`, existence tests, comparisons and
 * `value()` read a nodelist (its length, its first node). The caller binds every query from the root the
 * evaluation can meet (one nested in a bound one never runs), so the result no longer reads the root and
 * streams as any filter does (`itemPlanOf`). The expressions are changed in place: `compiled` is one call's.
 */
export function bindRoots(compiled: CompiledJsonPath, bindings: RootBindings): CompiledJsonPath {
  const location = new Location(undefined, "");
  compiled.roots.forEach((expression, at) => {
    const summary = bindings[at];
    if (!summary) return;
    const nodes =
      summary.count === 1
        ? [new JSONPathNode(summary.value as never, location as never, undefined as never)]
        : new Array<JSONPathNode>(summary.count); // only its length is read (a count, an existence test)
    const list = new JSONPathNodeList(nodes);
    expression.evaluate = () => list;
  });
  return { ...compiled, usesRoot: false, hoisted: [], bound: bindings };
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
      `Path ${quoteArgument(path)} is a JSONPath query of ${path.length} characters, ` +
        `over the ${MAX_QUERY_CHARS} a query may have: use a shorter query.`,
    );
  }
  let query: JSONPathQuery;
  try {
    query = environment.compile(path);
  } catch (error) {
    if (error instanceof RangeError) throw tooDeep(path, "nests too deeply to compile");
    const equals = equalsForComparison(path);
    if (equals) {
      throw new ResultQueryError(
        "RESULT_PATH_NOT_FOUND",
        `Path ${quoteArgument(path)} is not a valid query: a filter compares with ==, not ${equals.written}. ` +
          `Write ${quoteArgument(equals.fixed)}.`,
      );
    }
    const detail =
      error instanceof JSONPathError ? cutForMessage(inWords(error.message.split("\n")[0]!)) : "not a JSONPath query";
    throw new ResultQueryError(
      "RESULT_PATH_NOT_FOUND",
      `Path ${quoteArgument(path)} is not a valid query (${detail}). ` +
        `Use a path such as $.rows[2].title, $.rows[*].id, $.rows[?@.status == 'open'], rows.2.title ` +
        `or /rows/2/title; "$" is the whole answer.`,
    );
  }
  const watch = planWatch(query, watching); // before the stack walk, which takes its entries
  const { usesRoot, hoisted, roots } = useStackWalk(query, path, watch);
  return { query, singular: query.singularQuery(), usesRoot, watch, hoisted, roots };
}

/**
 * S25.3: a `=` or `===` where a filter's `==` belongs (outside quoted strings), and the query with `==`
 * there; undefined when the query has none.
 */
function equalsForComparison(path: string): { written: string; fixed: string } | undefined {
  let quote: string | undefined;
  for (let at = 0; at < path.length; at++) {
    const char = path[at]!;
    if (quote) {
      if (char === "\\") at++;
      else if (char === quote) quote = undefined;
      continue;
    }
    if (char === "'" || char === '"') quote = char;
    else if (char === "=" && !"=!<>".includes(path[at - 1] ?? "")) {
      let end = at;
      while (path[end] === "=") end++;
      if (end - at === 2) {
        at = end - 1; // `==`
        continue;
      }
      return { written: path.slice(at, end), fixed: `${path.slice(0, at)}==${path.slice(end)}` };
    }
  }
  return undefined;
}

/** json-p3's syntax error in words: its `('…':17)` context becomes "at character 17". */
function inWords(message: string): string {
  return message.replace(/\s*\('(?:[^']|'(?!:\d+\)))*':(\d+)\)\s*$/, " at character $1");
}

/** What an evaluation hands out between two nodes when it may yield (S21.4, `yield-points.ts`). */
export const YIELDED: unique symbol = Symbol("yielded");
export type Yielded = typeof YIELDED;

/**
 * The nodes `compiled` selects in `answer`, in the RFC's order, produced lazily so a caller keeps only
 * the page it returns. Between two nodes it may hand out YIELDED: a caller that can, yields
 * there (`yieldToLoop`); one that cannot, goes on. One meter counts the whole evaluation.
 */
export function selectNodes(
  compiled: CompiledJsonPath,
  answer: unknown,
  path: string,
  meter = new CostMeter(),
  watch?: MemberWatch,
): Generator<JsonPathNode | Yielded> {
  // this evaluation's own watch, or none: never one left by an earlier evaluation on the same meter
  meter.watch = watch;
  const nodes = run(compiled.query.segments, answer);
  const hoisted = compiled.hoisted.length > 0 && answer !== null && typeof answer === "object";
  return selectFrom(hoisted ? afterHoisted(compiled.hoisted, answer, nodes) : nodes, path, meter, true);
}

/** The hoisted queries' runs over `root` (their YIELD_NODE handed on), then `nodes`. */
function* afterHoisted(
  hoisted: readonly Hoisted[],
  root: object,
  nodes: Iterable<JSONPathNode>,
): Generator<JSONPathNode> {
  for (const inner of hoisted) yield* inner.run(root);
  yield* nodes;
}

/**
 * The nodes of an evaluation, charged to `within`, engine errors made coded refusals. The meter is set
 * again at each step: a caller that yields between two nodes (S21.4) resumes with its own.
 * A YIELD_NODE from the segments is handed out as YIELDED when `mayYield`, else passed over.
 */
export function selectFrom(nodes: Iterable<JSONPathNode>, path: string, within: CostMeter): Generator<JsonPathNode>;
export function selectFrom(
  nodes: Iterable<JSONPathNode>,
  path: string,
  within: CostMeter,
  mayYield: true,
): Generator<JsonPathNode | Yielded>;
export function* selectFrom(
  nodes: Iterable<JSONPathNode>,
  path: string,
  within: CostMeter,
  mayYield = false,
): Generator<JsonPathNode | Yielded> {
  useMeter(within);
  const iterator = nodes[Symbol.iterator]();
  for (;;) {
    let next: IteratorResult<JSONPathNode>;
    try {
      useMeter(within);
      next = iterator.next();
    } catch (error) {
      // Comparisons of deeply nested values recurse inside json-p3: a coded refusal, never a crash.
      if (error instanceof RangeError) throw tooDeep(path, "meets values nested too deeply to compare");
      if (error instanceof JSONPathError)
        throw new ResultQueryError(
          "INVALID_INPUT",
          `Path ${quoteArgument(path)} cannot run here: ${cutForMessage(error.message)}`,
        );
      throw error;
    }
    if (next.done) return;
    if (next.value === YIELD_NODE) {
      if (mayYield) yield YIELDED;
      continue;
    }
    tick();
    yield new SelectedNode(next.value.value, next.value.location as unknown as Location);
  }
}

function tooDeep(path: string, why: string): ResultQueryError {
  return new ResultQueryError("INVALID_INPUT", `Path ${quoteArgument(path)} ${why}: use a simpler query.`);
}
