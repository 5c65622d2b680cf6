/**
 * A JSONPath query answered item by item over a list (S14.6): `$.rows[?@.owner == 'x']`, `$.rows[*].id`,
 * `$.rows[10:20]`, `$.data.rows..title`. When the query reaches a list by names alone and then takes one
 * step that looks at each item on its own (a filter that never reads `$`, a wildcard, a slice forward, or
 * descendants by name), its nodes are those of each item in turn, in the RFC's order (RFC 9535 2.5.1: a
 * child segment of one selector yields the items' nodes in item order; 2.5.2: descendants by name of a
 * list are those of its items, in order). So the store can hand the list over batch by batch and the
 * query keeps only the page it returns.
 */
import { JSONPathNode } from "json-p3";
import { leadingNames, namesBefore } from "../json-p3-classes.js";
import {
  ChildSegment,
  DescendantSegment,
  environment,
  FilterSelector,
  InfixExpression,
  Location,
  NameSelector,
  RelativeQuery,
  SliceSelector,
  StringLiteral,
  WildcardSelector,
  runFrom,
  selectFrom,
  tick,
  useMeter,
  type CompiledJsonPath,
  type JsonPathNode,
  type CostMeter,
  type RootBindings,
  type Segment,
} from "./jsonpath.js";

interface FilterExpression {
  evaluate(context: object): unknown;
}
interface Infix {
  left: unknown;
  operator: string;
  right: unknown;
}

/** How a query reads a list item by item. */
export interface ItemPlan {
  /** Keys from the root to the list. */
  readonly names: readonly string[];
  /** The items the query can select at all, for a list of `length` (a slice reads only its batches). */
  window(length: number): { from: number; to: number };
  /**
   * Texts an item must hold one of to be selected, as they stand in the item's JSON: a filter `@.a == "x"`
   * among its `&&` terms selects only items holding `"x"`, descendants by name only items holding a key
   * `"title":` (a key is written so, and nothing else is, by `JSON.stringify`). A batch holding none is
   * never parsed.
   */
  readonly needles?: readonly string[];
  /** The nodes the query selects in `items`, the list's items from `first`, counted against `meter`. */
  select(
    items: readonly unknown[],
    first: number,
    length: number,
    meter: CostMeter,
    path: string,
  ): Iterable<JsonPathNode>;
  /**
   * The nodes the query selects among `members`, a run of a wide object's members in the object's order (S16.4,
   * S26.1): a wildcard or a filter selects among an object's members as among a list's items, by key (RFC 9535
   * 2.3.2.2, 2.3.5.2), so a wide object is read member batch by member batch as a list is item batch by item batch.
   * Left out where the step means something else for an object (a slice selects nothing there; descendants).
   */
  selectMembers?(members: Readonly<Record<string, unknown>>, meter: CostMeter, path: string): Iterable<JsonPathNode>;
  /**
   * How many nodes `selectMembers` gives among `members`, charged to `meter` as it charges them (each node twice, and
   * the filter per member), without making them: what a batch worker counts of a wide object (S26.1; making a node,
   * its location and its page entry cost a third of the count). Left out when segments follow the step.
   */
  countMembers?(members: Readonly<Record<string, unknown>>, meter: CostMeter): number;
  /**
   * For descendants by name (`$..title`, `$.data..id.x`): the names, and the segments from the descendant
   * one on, to run from any node, so that lists met below `names` can be read where they stand
   * (`descendantNodes`).
   */
  readonly descendants?: {
    readonly names: readonly string[];
    readonly segments: readonly Segment[];
    readonly rest: readonly Segment[];
  };
  /**
   * The summaries the query's queries from the root were bound to (`bindRoots`, S26.1): a batch worker compiles the
   * query's text again, and binds them the same.
   */
  readonly roots?: RootBindings;
}

/** The item plan of `compiled`, when it has one. */
export function itemPlanOf(compiled: CompiledJsonPath): ItemPlan | undefined {
  const plan = itemPlanOfQuery(compiled);
  return plan && compiled.bound ? { ...plan, roots: compiled.bound } : plan;
}

function itemPlanOfQuery(compiled: CompiledJsonPath): ItemPlan | undefined {
  if (compiled.usesRoot) return undefined;
  const segments = compiled.query.segments;
  const at = leadingNames(segments); // the names down to the list (the watch of S18.2 starts there too)
  const names = namesBefore(segments, at);
  const step = segments[at];
  if (!step) return undefined;
  const rest = segments.slice(at + 1);
  const selector = step.selectors[0] as unknown;
  const listLocation = () => names.reduce((location, name) => location.concat(name), new Location(undefined, ""));
  const finish = (nodes: Iterable<JSONPathNode>, meter: CostMeter, path: string) =>
    selectFrom(runFrom(rest, nodes), path, meter);
  const membersOf = (
    members: Readonly<Record<string, unknown>>,
    meter: CostMeter,
    path: string,
    keep: (key: string, value: unknown) => boolean,
  ) => finish(memberNodesOf(members, listLocation(), keep), meter, path);
  const counter =
    rest.length === 0
      ? (keep: (key: string, value: unknown) => boolean) =>
          (members: Readonly<Record<string, unknown>>, meter: CostMeter) =>
            countMembersOf(members, meter, keep)
      : () => undefined;

  if (step instanceof DescendantSegment) {
    // names select nothing in the list itself
    if (!step.selectors.every((each) => each instanceof NameSelector)) return undefined;
    return descendantsPlanAt(names, segments.slice(at), rest);
  }
  if (!(step instanceof ChildSegment) || step.selectors.length !== 1) return undefined;
  if (selector instanceof WildcardSelector) {
    return {
      names,
      window: (length) => ({ from: 0, to: length }),
      select: (items, first, _length, meter, path) =>
        finish(
          nodesOf(items, first, listLocation(), () => true),
          meter,
          path,
        ),
      selectMembers: (members, meter, path) => membersOf(members, meter, path, () => true),
      countMembers: counter(() => true),
    };
  }
  if (selector instanceof SliceSelector) {
    const { start, stop, step: by = 1 } = selector as unknown as { start?: number; stop?: number; step?: number };
    if (by <= 0) return undefined; // backwards (or nothing): not in item order
    const bounds = (length: number) => ({ from: bound(start, 0, length), to: bound(stop, length, length) });
    return {
      names,
      window: bounds,
      select(items, first, length, meter, path) {
        const { from, to } = bounds(length); // the batches hold items on both sides of the window
        return finish(
          nodesOf(items, first, listLocation(), (index) => index >= from && index < to && (index - from) % by === 0),
          meter,
          path,
        );
      },
    };
  }
  if (selector instanceof FilterSelector) {
    const expression = (selector as unknown as { expression: FilterExpression }).expression;
    // json-p3's own context for an object's member (FilterSelector): its key as `currentKey`
    const passesMember = (key: string, value: unknown) =>
      Boolean(expression.evaluate({ environment, currentValue: value, rootValue: undefined, currentKey: key }));
    return {
      names,
      window: (length) => ({ from: 0, to: length }),
      needles: needlesOf(expression),
      select(items, first, _length, meter, path) {
        const passes = (index: number, item: unknown) =>
          Boolean(expression.evaluate({ environment, currentValue: item, rootValue: undefined, currentKey: index }));
        return finish(
          nodesOf(items, first, listLocation(), (index, item) => passes(index, item)),
          meter,
          path,
        );
      },
      selectMembers: (members, meter, path) => membersOf(members, meter, path, passesMember),
      countMembers: counter(passesMember),
    };
  }
  return undefined;
}

/**
 * The item plan of descendants by name (`segments`: the descendant segment on) over the list at `steps`:
 * built from the compiled segments themselves, never from query text written back (`descendantNodes`).
 */
export function descendantsPlanAt(
  steps: readonly (string | number)[],
  segments: readonly Segment[],
  rest: readonly Segment[],
  /** For a wide object at `steps` (S26.1): the plan selects among its members (`selectMembers`). */
  members = false,
): ItemPlan {
  const step = segments[0]!;
  const listLocation = () =>
    steps.reduce<Location>((location, key) => location.concat(key), new Location(undefined, ""));
  return {
    names: steps.filter((key): key is string => typeof key === "string"),
    descendants: { names: step.selectors.map((each) => (each as unknown as { name: string }).name), segments, rest },
    // a key as JSON writes it
    needles: step.selectors.map((each) => `${JSON.stringify((each as unknown as { name: string }).name)}:`),
    window: (length) => ({ from: 0, to: length }),
    select(items, first, _length, meter, path) {
      const list = listLocation();
      const nodes = items.map(
        (item, i) => new JSONPathNode(item as never, list.concat(first + i) as never, undefined as never),
      );
      return selectFrom(runFrom(segments, nodes), path, meter);
    },
    // A wide object met by the walk (S26.1): below it, its members' own descendants by name, member by member in its
    // order, as the walk visits them (the names in the object itself are the walk's, `descendantNodes`).
    ...(members && {
      selectMembers(members: Readonly<Record<string, unknown>>, meter: CostMeter, path: string) {
        const object = listLocation();
        const nodes = Object.keys(members).map(
          (key) => new JSONPathNode(members[key] as never, object.concat(key) as never, undefined as never),
        );
        return selectFrom(runFrom(segments, nodes), path, meter);
      },
    }),
  };
}

/** Whether a batch's JSON text may hold an item `plan` selects (ItemPlan `needles`). */
export function admits(plan: ItemPlan, text: string): boolean {
  return plan.needles === undefined || plan.needles.some((needle) => text.includes(needle));
}

/**
 * Nodes of the items `keep` admits, at their indexes in the whole list, made as the evaluation pulls
 * them: a filter then runs inside `selectFrom`, against this query's meter (its inner queries count
 * steps) and with its engine errors made coded refusals; each node costs a step, as the segment's nodes
 * do over the whole list (`runFrom`).
 */
function* nodesOf(
  items: readonly unknown[],
  first: number,
  list: Location,
  keep: (index: number, item: unknown) => boolean,
): Generator<JSONPathNode> {
  for (let i = 0; i < items.length; i++) {
    if (!keep(first + i, items[i])) continue;
    tick();
    yield new JSONPathNode(items[i] as never, list.concat(first + i) as never, undefined as never);
  }
}

/** Nodes of the members `keep` admits, in the order of `Object.keys(members)`, as `nodesOf` makes items'. */
function* memberNodesOf(
  members: Readonly<Record<string, unknown>>,
  object: Location,
  keep: (key: string, value: unknown) => boolean,
): Generator<JSONPathNode> {
  for (const key of Object.keys(members)) {
    const value = members[key];
    if (!keep(key, value)) continue;
    tick();
    yield new JSONPathNode(value as never, object.concat(key) as never, undefined as never);
  }
}

/**
 * How many members `keep` admits, each charged as `memberNodesOf` and `selectFrom` charge a node they hand on
 * (`countMembers`): the filter runs against `meter`, as `selectFrom` sets it.
 */
function countMembersOf(
  members: Readonly<Record<string, unknown>>,
  meter: CostMeter,
  keep: (key: string, value: unknown) => boolean,
): number {
  useMeter(meter);
  let count = 0;
  for (const key of Object.keys(members)) {
    if (!keep(key, members[key])) continue;
    tick();
    tick();
    count++;
  }
  return count;
}

/** RFC 9535 2.3.4.2.2 for a forward slice: a bound, negative from the end, clamped to the list. */
function bound(index: number | undefined, fallback: number, length: number): number {
  if (index === undefined) return fallback;
  return index < 0 ? Math.max(index + length, 0) : Math.min(index, length);
}

/**
 * The longest string a filter's `&&` terms compare an item's value to with `==`, as JSON text: an item
 * whose JSON lacks it cannot be selected (the answer's JSON is `JSON.stringify`'s, so a string value
 * stands in it exactly as `JSON.stringify` writes it).
 */
function needlesOf(expression: FilterExpression): string[] | undefined {
  const terms: unknown[] = [(expression as unknown as { expression: unknown }).expression];
  let best: string | undefined;
  while (terms.length > 0) {
    const term = terms.pop();
    if (!(term instanceof InfixExpression)) continue;
    const { left, operator, right } = term as unknown as Infix;
    if (operator === "&&") terms.push(left, right);
    if (operator !== "==") continue;
    const literal = left instanceof StringLiteral ? left : right instanceof StringLiteral ? right : undefined;
    const query = left instanceof RelativeQuery ? left : right instanceof RelativeQuery ? right : undefined;
    if (!literal || !query) continue;
    const text = JSON.stringify((literal as unknown as { value: string }).value);
    if (!best || text.length > best.length) best = text;
  }
  return best === undefined ? undefined : [best];
}
