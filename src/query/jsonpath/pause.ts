/**
 * Letting the thread go inside one segment (S21.4). json-p3's child segment runs a filter over all the
 * items of a list before it hands on the first match, so a filter over a list held in memory whole (one
 * reading `$`, or an answer too small to index) held the thread for all of it: `$.rows[?@.id == $.total]`
 * over 1,000,000 rows, a second. The segments of a query's top level (`compileJsonPath`) hand up PAUSE
 * instead, between two items once the call's meter says the thread was held long enough; the segments
 * after it pass it on, and the evaluation's consumer lets other calls in (`selectNodes` with `pausable`).
 * Queries inside a filter never pause: their nodes are gathered whole inside one item's evaluation.
 */
import { JSONPathNode } from "json-p3";
import { currentMeter } from "../cost.js";
import { FilterSelector } from "../json-p3-classes.js";

/** Not a node: the sign, handed along the segments, that the thread may be let go here. */
export const PAUSE = new JSONPathNode(undefined as never, undefined as never, undefined as never);

/** Items a filter evaluates between two looks at the clock (`performance.now()` is not free). */
const ITEMS_PER_LOOK = 256;

interface Selector {
  resolve(node: JSONPathNode): Iterable<JSONPathNode>;
}
interface Filter {
  readonly environment: { entries(object: object): [string, unknown][] };
  readonly expression: { evaluate(context: object): unknown };
}

/** The child segment of RFC 9535 2.5.1 over `nodes`, PAUSE passed on, each filter handing up PAUSE as it goes. */
export function* childSegment(selectors: readonly unknown[], nodes: Iterable<JSONPathNode>): Generator<JSONPathNode> {
  for (const node of nodes) {
    if (node === PAUSE) {
      yield node;
      continue;
    }
    for (const selector of selectors) yield* selected(selector, node);
  }
}

/** What one selector selects from `node`: a filter item by item, handing up PAUSE as it goes; any other at once. */
export function selected(selector: unknown, node: JSONPathNode): Iterable<JSONPathNode> {
  return selector instanceof FilterSelector ? filtered(selector as unknown as Filter, node) : (selector as Selector).resolve(node);
}

/** json-p3's `FilterSelector.resolve`, item by item, with PAUSE between items once the meter says so. */
function* filtered({ environment, expression }: Filter, node: JSONPathNode): Generator<JSONPathNode> {
  const value: unknown = node.value;
  if (value === null || typeof value !== "object" || value instanceof String) return;
  const root = node.root;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (i % ITEMS_PER_LOOK === ITEMS_PER_LOOK - 1 && currentMeter().shouldYield()) yield PAUSE;
      const item: unknown = value[i];
      if (expression.evaluate({ environment, currentValue: item, rootValue: root, currentKey: i })) yield new JSONPathNode(item as never, node.location.concat(i), root);
    }
    return;
  }
  let looked = 0;
  for (const [key, item] of environment.entries(value)) {
    if (++looked % ITEMS_PER_LOOK === 0 && currentMeter().shouldYield()) yield PAUSE;
    if (expression.evaluate({ environment, currentValue: item, rootValue: root, currentKey: key })) yield new JSONPathNode(item as never, node.location.concat(key), root);
  }
}
