/**
 * json-p3's grammar classes, in one place for everything that looks inside a compiled query (the
 * evaluation, the filter limits of S21.2, the item plan of S14.6, the watch of S18.2). Its selector and
 * expression classes are exported by name; its two segment classes are not, so they are taken from a
 * query compiled here once.
 */
import { jsonpath, JSONPathEnvironment, type JSONPathQuery } from "json-p3";

export const { NameSelector, IndexSelector, WildcardSelector, FilterSelector, SliceSelector } = jsonpath.selectors;
export const {
  InfixExpression,
  LogicalExpression,
  FilterExpression,
  FilterQuery,
  FunctionExtension,
  StringLiteral,
  NumberLiteral,
  BooleanLiteral,
  NullLiteral,
  PrefixExpression,
  RelativeQuery,
  RootQuery,
} = jsonpath.expressions;

const probe = new JSONPathEnvironment();
export const ChildSegment = probe.compile("$.a").segments[0]!.constructor;
export const DescendantSegment = probe.compile("$..a").segments[0]!.constructor;

export type Segment = JSONPathQuery["segments"][number];

/** How many segments at the start of a query are one name each (`$.data.rows` of `$.data.rows[?…]`). */
export function leadingNames(segments: readonly Segment[]): number {
  let at = 0;
  while (
    at < segments.length &&
    segments[at] instanceof ChildSegment &&
    segments[at]!.selectors.length === 1 &&
    segments[at]!.selectors[0] instanceof NameSelector
  )
    at++;
  return at;
}

/** The names of the segments before `at` (`["data", "rows"]` of `$.data.rows[?…]`), each one name (`leadingNames`). */
export function namesBefore(segments: readonly Segment[], at: number = leadingNames(segments)): string[] {
  return segments.slice(0, at).map((segment) => (segment.selectors[0] as unknown as { name: string }).name);
}

/**
 * The names before a wildcard that ends the query, when names and that wildcard are all it is: `["w"]` of `$.w[*]`
 * (`kind` ChildSegment), `["data"]` of `$.data..*` (`kind` DescendantSegment); undefined for any other query.
 */
export function namesThenWildcard(
  segments: readonly Segment[],
  kind: typeof ChildSegment | typeof DescendantSegment,
): string[] | undefined {
  const at = leadingNames(segments);
  const last = segments[at];
  return at === segments.length - 1 &&
    last instanceof kind &&
    last.selectors.length === 1 &&
    last.selectors[0] instanceof WildcardSelector
    ? namesBefore(segments, at)
    : undefined;
}

/**
 * Every object of json-p3's compiled tree from `root` (segments, selectors, expressions, nested queries), each once,
 * depth first, never its environment or tokens; the children of one `enter` refuses are not walked. The caller's
 * work on an object is done before its children are listed (a hook it sets there is a function, never walked).
 */
export function* compiledParts(root: unknown, enter: (item: object) => boolean = () => true): Generator<object> {
  const pending: unknown[] = [root];
  const seen = new Set<object>();
  while (pending.length > 0) {
    const item = pending.pop();
    if (item === null || typeof item !== "object" || seen.has(item)) continue;
    seen.add(item);
    yield item;
    if (enter(item))
      for (const [key, child] of Object.entries(item))
        if (key !== "environment" && key !== "token") pending.push(child);
  }
}
