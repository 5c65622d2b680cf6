/**
 * No silent empties (S18.2), the plan: which member names a compiled query looks up, and hooks on its
 * selectors that tell the running evaluation's watch (`MemberWatch`) what each lookup found. While a
 * JSONPath query runs, the members it names (`@.priority` in a filter, `.titel` after a wildcard, `..titel`) are
 * watched at the nodes it visits: whether any had the name, and the
 * keys of a few that did not. A nodelist that selects nothing then says which names no visited node had,
 * where it looked, and the keys there, nearest first (S14.5). Recorded as the query runs, on whichever
 * thread and over whichever batches (S14.6): the note is built from what was visited, never by reading the
 * answer again. A name some visited node has never gets the note.
 */
import type { JSONPathNode, JSONPathQuery } from "json-p3";
import {
  BooleanLiteral,
  ChildSegment,
  compiledParts,
  DescendantSegment,
  FilterSelector,
  IndexSelector,
  InfixExpression,
  leadingNames,
  NameSelector,
  NullLiteral,
  NumberLiteral,
  RelativeQuery,
  StringLiteral,
  type Segment,
} from "../json-p3-classes.js";
import { hasOwn } from "../../util/json.js";
import { formatPath } from "../canonical-path.js";

/** One name the query looks up, and the place it is looked up in, as the note will say it. */
export interface Watched {
  readonly name: string;
  /**
   * A filter's `@.name`: in the items (or members) of `where`; a name after other segments: in the values `where`
   * selects; descendants: under `where`.
   */
  readonly kind: "filter" | "child" | "descendant";
  /** The query up to the step that looks the name up (S7.5 form where it is one path). */
  readonly where: string;
  /** Whether `where` is one path (no wildcard, filter or slice): then "$.meta has no …". */
  readonly singular: boolean;
  /** For `@.owner.name`: the names before this one, inside each item. */
  readonly inside: readonly string[];
  /**
   * Whether the name is looked up by the query's first step after its names (`$.rows[?@.x]`, `$.data..x`):
   * the step a list read batch by batch runs on every item, so a batch left unparsed still counts for it.
   */
  readonly first: boolean;
  /**
   * S25.1: the literal a filter compares this member with (`@.priority == '1'`), and the operator: the
   * values the member has are then counted, so an empty answer can say they are of another type or case.
   */
  readonly compared?: Comparison;
}

/** A filter's comparison of a member with a literal (S25.1). */
export interface Comparison {
  readonly operator: string;
  readonly literal: string | number | boolean | null;
}

/** What a compiled query watches, and the hooks that report to the running evaluation's watch. */
export interface WatchPlan {
  readonly watched: readonly Watched[];
  /** Per step of each singular relative query in a filter (`@.a.b`): the watched entry, or -1 for an index. */
  readonly relative: ReadonlyMap<object, readonly number[]>;
  /** Per descendant segment of names: the entry of each name. */
  readonly descendants: ReadonlyMap<object, readonly number[]>;
}

/** Where an evaluation reports what it saw (jsonpath steps `watching`): a `MemberWatch`. */
export interface NodeWatch {
  saw(entry: number, object: object, has: boolean): void;
  inObject(entry: number): void;
  /** The value a compared member had (S25.1). */
  valueOf(entry: number, value: unknown): void;
}

/**
 * The names `query` looks up at its own level (filters nested in filters are not watched: a name there
 * never gets a note), with hooks installed on its name and filter selectors. `current` gives the watch of
 * the evaluation running now.
 */
export function planWatch(query: JSONPathQuery, current: () => NodeWatch | undefined): WatchPlan {
  const watched: Watched[] = [];
  const relative = new Map<object, number[]>();
  const descendants = new Map<object, number[]>();
  const segments = query.segments;
  // the first segment that is not one name: where the item plan reads item by item (S14.6)
  const step = leadingNames(segments);
  // The text and singularity of the segments before each one, grown a segment at a time: a query of 2,047
  // names took 1.2 s to plan when each prefix was written out again (quadratic), on every compile (S21.2).
  let where = "$";
  let singular = true;
  for (let at = 0; at < segments.length; at++) {
    const segment = segments[at]!;
    if (at > 0) {
      where += stepText(segments[at - 1]!);
      singular &&= isSingularStep(segments[at - 1]!);
    }
    const first = at === step;
    if (segment instanceof DescendantSegment) {
      const names = segment.selectors.every((selector) => selector instanceof NameSelector)
        ? segment.selectors.map((selector) => (selector as unknown as { name: string }).name)
        : undefined;
      if (names)
        descendants.set(
          segment,
          names.map((name) => watched.push({ name, kind: "descendant", where, singular, inside: [], first }) - 1),
        );
      continue;
    }
    for (const selector of segment.selectors) {
      if (selector instanceof NameSelector) {
        const entry =
          watched.push({
            name: (selector as unknown as { name: string }).name,
            kind: "child",
            where,
            singular,
            inside: [],
            first,
          }) - 1;
        hookName(selector as unknown as NameHook, entry, current);
      } else if (selector instanceof FilterSelector) {
        const entries: number[] = [];
        const expression = (selector as unknown as { expression: unknown }).expression;
        const comparisons = comparisonsIn(expression);
        for (const inner of relativeQueries(expression)) {
          if (!inner.singularQuery()) continue;
          const inside: string[] = [];
          const last = inner.segments.length - 1;
          const ids = inner.segments.map((step, at) => {
            const name = (step.selectors[0] as unknown as { name?: string }).name;
            if (typeof name !== "string") return (inside.push("[…]"), -1);
            const compared = at === last ? comparisons.get(inner) : undefined;
            const id =
              watched.push({
                name,
                kind: "filter",
                where,
                singular,
                inside: [...inside],
                first,
                ...(compared && { compared }),
              }) - 1;
            inside.push(name);
            entries.push(id);
            return id;
          });
          relative.set(inner, ids);
        }
        if (entries.length > 0) hookFilter(selector as unknown as FilterHook, entries, current);
      }
    }
  }
  return { watched, relative, descendants };
}

interface NameHook {
  name: string;
  resolve(node: JSONPathNode): JSONPathNode[];
}

function hookName(selector: NameHook, entry: number, current: () => NodeWatch | undefined): void {
  const resolve = selector.resolve.bind(selector);
  selector.resolve = (node) => {
    const value = node.value as unknown;
    if (value !== null && typeof value === "object" && !Array.isArray(value))
      current()?.saw(entry, value, hasOwn(value, selector.name));
    return resolve(node);
  };
}

interface FilterHook {
  resolve(node: JSONPathNode): JSONPathNode[];
}

/** A filter over an object's members says "member", not "item". */
function hookFilter(selector: FilterHook, entries: readonly number[], current: () => NodeWatch | undefined): void {
  const resolve = selector.resolve.bind(selector);
  selector.resolve = (node) => {
    const value = node.value as unknown;
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      const watch = current();
      if (watch) for (const entry of entries) watch.inObject(entry);
    }
    return resolve(node);
  };
}

/** `@…` queries of a filter expression, not those inside a nested query's own filters. */
function relativeQueries(expression: unknown): JSONPathQuery[] {
  const found: JSONPathQuery[] = [];
  for (const part of expressionParts(expression)) {
    if (part instanceof RelativeQuery) found.push((part as unknown as { path: JSONPathQuery }).path);
  }
  return found;
}

/** Every part of a filter expression (json-p3's objects), depth first; a query of its own (`$.x`) is not entered. */
function* expressionParts(expression: unknown): Generator<object> {
  for (const item of compiledParts(expression, (item) => !("segments" in item))) if (!("segments" in item)) yield item;
}

const COMPARISONS = new Set(["==", "<", "<=", ">", ">="]);

/**
 * S25.1: the filter's one comparison of an item's own member with a literal (`@.status == 'open'`,
 * `1 < @.priority`): its literal and operator. Only a filter that is that comparison alone, on a member of
 * the items themselves: its values seen are then every item's, the same whether the list is read whole,
 * batch by batch (a batch left unparsed is read as text) or on the batch workers. Within `&&`, `||` or on
 * a deeper member, which items are tested depends on the other terms and on the batches parsed, so no
 * values are named. `!=` is left out: it selects what differs, so a type or case never empties it.
 */
function comparisonsIn(expression: unknown): Map<JSONPathQuery, Comparison> {
  const found = new Map<JSONPathQuery, Comparison>();
  const root = (expression as { expression?: unknown }).expression;
  if (!(root instanceof InfixExpression)) return found;
  const { left, operator, right } = root as unknown as { left: unknown; operator: string; right: unknown };
  if (!COMPARISONS.has(operator)) return found;
  const flipped: Record<string, string> = { "<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==" };
  const ownMember = (side: unknown) => {
    if (!(side instanceof RelativeQuery)) return undefined;
    const path = (side as unknown as { path: JSONPathQuery }).path;
    return path.segments.length === 1 ? path : undefined;
  };
  const [member, literal, as] =
    ownMember(left) && isLiteral(right)
      ? [ownMember(left)!, right, operator]
      : ownMember(right) && isLiteral(left)
        ? [ownMember(right)!, left, flipped[operator]!]
        : [];
  if (member && as) found.set(member, { operator: as, literal: literalOf(literal) });
  return found;
}

function isLiteral(node: unknown): boolean {
  return (
    node instanceof StringLiteral ||
    node instanceof NumberLiteral ||
    node instanceof BooleanLiteral ||
    node instanceof NullLiteral
  );
}

function literalOf(node: unknown): Comparison["literal"] {
  return (node as { evaluate(): Comparison["literal"] }).evaluate();
}

function isSingularStep(segment: Segment): boolean {
  return (
    segment instanceof ChildSegment &&
    segment.selectors.length === 1 &&
    (segment.selectors[0] instanceof NameSelector || segment.selectors[0] instanceof IndexSelector)
  );
}

/** One segment of a query as text: a name or index in the S7.5 form, another segment as json-p3 writes it. */
function stepText(segment: Segment): string {
  const selector = segment.selectors[0] as unknown as { name?: string; index?: number };
  if (isSingularStep(segment))
    return formatPath([typeof selector.name === "string" ? selector.name : selector.index!]).slice(1);
  return segment.toString();
}
