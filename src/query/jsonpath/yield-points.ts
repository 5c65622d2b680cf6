/**
 * Yielding inside one segment (S21.4). json-p3's child segment selects all the nodes of a
 * list (a filter over every item, a wildcard, a slice) before it hands on the first, so a filter over a
 * list held in memory whole (one reading `$`, or an answer too small to index) held the thread for all of
 * it: `$.rows[?@.id == $.total]` over 1,000,000 rows, 1.5 s. The segments of a query's top level
 * (`compileJsonPath`) take their input nodes, a filter's items and a wildcard's or a slice's nodes one by
 * one instead, and every 256 of them (counted across lists: many small lists yield as one large one does)
 * hand up YIELD_NODE once the call's meter says the thread was held long enough; the segments after pass it
 * on, and the evaluation's consumer yields (`selectNodes`, `mayYield`). Queries inside a
 * filter never yield: their nodes are gathered whole inside one item's evaluation.
 */
import { JSONPathNode } from "json-p3";
import { currentMeter, tick, type CostMeter } from "../cost.js";
import { FilterSelector, SliceSelector, WildcardSelector } from "../json-p3-classes.js";

/** Not a node: the sign, handed along the segments, that the evaluation may yield here. */
export const YIELD_NODE = new JSONPathNode(undefined as never, undefined as never, undefined as never);

/** Values taken one by one between two looks at the clock (`performance.now()` is not free). */
const VALUES_PER_LOOK = 256;
/**
 * ... or fewer, once this many units were charged since the last look: items whose filter runs a query
 * inside (each a few thousand units) looked at the clock only every 256 of them, 50-100 ms of work, which
 * the hold clock of such inner work (MAX_HOLD_UNITS) would take for one piece.
 */
const UNITS_PER_LOOK = 1_000_000;
let taken = 0;
/** The meter of the last look, and its units past which the next look comes (units count per meter: per call). */
let lookedOn: CostMeter | undefined;
let lookAfter = 0;

/** Whether to hand up YIELD_NODE here: every VALUES_PER_LOOK values or UNITS_PER_LOOK units, when the meter says so. */
function look(): boolean {
  const meter = currentMeter();
  // Another call's meter (one that spent more would hold off this call's looks): look now, and count from here.
  if (++taken % VALUES_PER_LOOK !== 0 && meter === lookedOn && meter.spent < lookAfter) return false;
  lookedOn = meter;
  lookAfter = meter.spent + UNITS_PER_LOOK;
  return meter.shouldYield();
}

interface Selector {
  resolve(node: JSONPathNode): Iterable<JSONPathNode>;
  lazyResolve(node: JSONPathNode): Iterable<JSONPathNode>;
}
interface Filter {
  readonly environment: { entries(object: object): [string, unknown][] };
  readonly expression: { evaluate(context: object): unknown };
}

/** The child segment of RFC 9535 2.5.1 over `nodes`, YIELD_NODE passed on and handed up as it goes. */
export function* childSegment(selectors: readonly unknown[], nodes: Iterable<JSONPathNode>): Generator<JSONPathNode> {
  for (const node of nodes) {
    if (node === YIELD_NODE) {
      yield node;
      continue;
    }
    if (look()) yield YIELD_NODE;
    for (const selector of selectors) yield* selected(selector, node);
  }
}

/**
 * What one selector selects from `node`, as json-p3's `resolve` does: a filter item by item, a wildcard
 * and a slice node by node (their `lazyResolve`, which differs from `resolve` only on a boxed string, never
 * JSON), handing up YIELD_NODE as they go; a name or an index at once.
 */
export function selected(selector: unknown, node: JSONPathNode): Iterable<JSONPathNode> {
  if (selector instanceof FilterSelector) return filtered(selector as unknown as Filter, node);
  if ((selector instanceof WildcardSelector || selector instanceof SliceSelector) && !(node.value instanceof String))
    return yieldingEach((selector as Selector).lazyResolve(node));
  return (selector as Selector).resolve(node);
}

/**
 * What one selector selects from `node`, node by node where json-p3 can (a wildcard, a slice: its
 * `lazyResolve`; a filter item by item), so each node is charged as it is made, never a whole object's or
 * list's first (S26.1: `@..*` inside a filter built the million nodes of a wide object before the first was
 * charged), and each item a filter tests is charged as a node visited. No YIELD_NODE: this is the way of a query
 * inside a filter, whose work the meter's hold clock bounds (S26.1: an inner filter's items were charged only
 * their expression, a third of their cost, and a filter over a million members held the thread 0.3-1.7 s).
 */
export function oneByOne(selector: unknown, node: JSONPathNode): Iterable<JSONPathNode> {
  if (selector instanceof FilterSelector) return filtered(selector as unknown as Filter, node, true);
  const lazy = selector instanceof WildcardSelector || selector instanceof SliceSelector;
  return lazy && !(node.value instanceof String)
    ? (selector as Selector).lazyResolve(node)
    : (selector as Selector).resolve(node);
}

function* yieldingEach(nodes: Iterable<JSONPathNode>): Generator<JSONPathNode> {
  for (const node of nodes) {
    if (look()) yield YIELD_NODE;
    yield node;
  }
}

/**
 * json-p3's `FilterSelector.resolve`, item by item, with YIELD_NODE between items once the meter says so; `inside`
 * a filter, never YIELD_NODE, each item charged as a node visited.
 */
function* filtered({ environment, expression }: Filter, node: JSONPathNode, inside = false): Generator<JSONPathNode> {
  const value: unknown = node.value;
  if (value === null || typeof value !== "object" || value instanceof String) return;
  const root = node.root;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (inside) tick();
      else if (look()) yield YIELD_NODE;
      const item: unknown = value[i];
      if (expression.evaluate({ environment, currentValue: item, rootValue: root, currentKey: i }))
        yield new JSONPathNode(item as never, node.location.concat(i), root);
    }
    return;
  }
  for (const [key, item] of environment.entries(value)) {
    if (inside) tick();
    else if (look()) yield YIELD_NODE;
    if (expression.evaluate({ environment, currentValue: item, rootValue: root, currentKey: key }))
      yield new JSONPathNode(item as never, node.location.concat(key), root);
  }
}
