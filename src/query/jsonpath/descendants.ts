/**
 * The descendant segment of RFC 9535 2.5.2 for `compileJsonPath`, which gives it to every descendant segment of a
 * compiled query: without json-p3's generator per level (one frame per level for every node, and an end at
 * its default depth of 50), for answers thousands of levels deep (S14.3).
 */
import { JSONPathNode } from "json-p3";
import type { Location } from "./steps.js";
import { currentMeter, tick, watching } from "../cost.js";
import { oneByOne, YIELD_NODE, selected } from "./yield-points.js";
import { keyListOf } from "../../util/json.js";

/**
 * The descendant segment of RFC 9535 2.5.2 (each node, then its children in order, depth first, each
 * passed to the selectors). Name selectors (`$..title`, the common case) are tested in place, without a
 * node per visited value, by a plain recursive walk down to RECURSION_DEPTH levels and the explicit stack
 * below that; other selectors take the stack walk, no generator per level. Each node yielded costs a
 * step here (runFrom does not wrap this segment again), and each value visited one more. A segment of the
 * query's top level (`mayYield`) passes YIELD_NODE on and takes the stack walk for names too, which hands up
 * YIELD_NODE as it goes (S21.4: `$..tag` over a million-key object held whole held the thread without yielding).
 */
export function* descend(
  selectors: readonly unknown[],
  names: readonly string[] | undefined,
  nodes: Iterable<JSONPathNode>,
  watched?: readonly number[],
  mayYield = false,
): Generator<JSONPathNode> {
  for (const node of nodes) {
    if (node === YIELD_NODE) {
      yield node;
      continue;
    }
    const location = node.location as unknown as Location;
    if (!names) yield* stackWalk(node.value, location, selectors, undefined, node.root, undefined, mayYield);
    else if (mayYield)
      yield* stackWalk(
        node.value,
        location,
        undefined,
        names,
        node.root,
        watched && { entries: watched, watch: watching() },
        true,
      ); // yields (S21.4)
    else if (node.value !== null && typeof node.value === "object") {
      const found: JSONPathNode[] = [];
      namesBelow(node.value, location, names, node.root, found, 0, watched && { entries: watched, watch: watching() });
      yield* found;
    } else tick(); // a scalar: visited, and names select nothing in it
  }
}

/** Values the stack walk visits between two looks at the clock, when it may yield. */
const VALUES_PER_LOOK = 1024;

/** Levels a names-only walk takes by recursion before the explicit stack (a 3000-deep answer must not overflow). */
const RECURSION_DEPTH = 400;

/** The nodes names select in container `value` and below it, in descendant order, into `found`. */
/** The watched entries of the names (S18.2) and the watch of this evaluation. */
type Watching = { readonly entries: readonly number[]; readonly watch: ReturnType<typeof watching> } | undefined;

function namesBelow(
  value: object,
  location: Location,
  names: readonly string[],
  root: unknown,
  found: JSONPathNode[],
  depth: number,
  watched: Watching,
): void {
  if (depth >= RECURSION_DEPTH) {
    for (const node of stackWalk(value, location, undefined, names, root, watched)) found.push(node);
    return;
  }
  tick();
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      if (child !== null && typeof child === "object")
        namesBelow(child, location.concat(i), names, root, found, depth + 1, watched);
      else tick();
    }
    return;
  }
  for (let n = 0; n < names.length; n++) {
    const name = names[n]!;
    const has = Object.hasOwn(value, name);
    watched?.watch?.saw(watched.entries[n]!, value, has);
    if (has) {
      tick();
      found.push(
        new JSONPathNode((value as Record<string, never>)[name]!, location.concat(name) as never, root as never),
      );
    }
  }
  // The order environment.entries gives (`members`: the key list a read kept, or Object.keys, S26.1).
  for (const key of keyListOf(value)) {
    const child: unknown = (value as Record<string, unknown>)[key];
    if (child !== null && typeof child === "object")
      namesBelow(child, location.concat(key), names, root, found, depth + 1, watched);
    else tick();
  }
}

/**
 * The descendant walk on an explicit stack, from `start` (visited first): each value passed to `selectors`,
 * or, for names only, those names tested in place. A child's location is made only when something needs it.
 */
function* stackWalk(
  start: unknown,
  at: Location,
  selectors: readonly unknown[] | undefined,
  names: readonly string[] | undefined,
  root: unknown,
  watched?: Watching,
  mayYield = false,
): Generator<JSONPathNode> {
  // The containers being walked, each with the index of its next child: a child is taken when its turn comes, never
  // all of a container's children at once (S26.1: a million members pushed in one piece held the thread 50-150 ms,
  // uncharged, before the first of them was visited).
  const frames: { value: object; keys: readonly string[] | undefined; length: number; next: number; at: Location }[] =
    [];
  let value: unknown = start;
  let parent: Location | undefined;
  let key: string | number = 0;
  for (let visited = 1; ; visited++) {
    if (mayYield && visited % VALUES_PER_LOOK === 0 && currentMeter().shouldYield()) yield YIELD_NODE;
    tick();
    const container = value !== null && typeof value === "object";
    // Every selector selects a container's children: a scalar has none, so it is visited (charged) and no more, with
    // no location or node of its own (S26.1: a million scalar members each made both and ran the filter's generator).
    if (container) {
      const location = parent ? parent.concat(key) : at;
      if (names) {
        if (!Array.isArray(value)) {
          for (let n = 0; n < names.length; n++) {
            const name = names[n]!;
            const has = Object.hasOwn(value as object, name);
            watched?.watch?.saw(watched.entries[n]!, value as object, has);
            if (has) {
              tick();
              yield new JSONPathNode(
                (value as Record<string, never>)[name]!,
                location.concat(name) as never,
                root as never,
              );
            }
          }
        }
      } else {
        const current = new JSONPathNode(value as never, location as never, root as never);
        for (const selector of selectors!) {
          for (const node of mayYield ? selected(selector, current) : oneByOne(selector, current)) {
            if (node !== YIELD_NODE) tick();
            yield node;
          }
        }
      }
      if (container) {
        const keys = Array.isArray(value) ? undefined : keyListOf(value as object);
        const length = keys ? keys.length : (value as unknown[]).length;
        frames.push({ value: value as object, keys, length, next: 0, at: location });
      }
    }
    // the next value: the next child of the innermost container that has one left
    let frame = frames[frames.length - 1];
    while (frame && frame.next >= frame.length) {
      frames.pop();
      frame = frames[frames.length - 1];
    }
    if (!frame) return;
    const index = frame.next++;
    key = frame.keys ? frame.keys[index]! : index;
    value = (frame.value as Record<string | number, unknown>)[key];
    parent = frame.at;
  }
}
