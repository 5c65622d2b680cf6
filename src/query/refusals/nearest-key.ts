/**
 * The key of an object nearest a misspelt name (S14.5: `priorty` names `priority`), with bounded work
 * whatever the object: names over `NAME_CHARS` get no suggestion, at most `KEYS_COMPARED` keys are
 * compared by edit distance (restricted to a band around the diagonal), and beyond those, the keys one
 * edit away from the name are looked up directly (a few thousand lookups, not a million comparisons).
 */
import { hasOwn } from "../../util/json.js";
import { PiecedObject } from "../../records/read/pieced-object.js";
import { NAME_CHARS, maxDistance, oneEditVariants } from "../../util/one-edit.js";

const KEYS_COMPARED = 5000;

/**
 * The nearest key of `object` (whose own keys are `keys`, in order) to `name`, when one is close enough.
 * For a wide object read in part (S16.4) `keys` are those read, and only keys read are suggested: the
 * reader read the batches that may hold the names one edit away, so the hint is the one a whole read gives
 * whenever that name's batch was within its allowance, and is always a key of the object.
 */
export function nearestKey(
  object: Record<string, unknown> | PiecedObject,
  keys: readonly string[],
  name: string,
): string | undefined {
  if (name.length === 0 || name.length > NAME_CHARS) return undefined;
  const wanted = name.toLowerCase();
  const max = maxDistance(name.length);
  let best: string | undefined;
  let bestDistance = max + 1;
  const compared = Math.min(keys.length, KEYS_COMPARED);
  for (let i = 0; i < compared && bestDistance > 0; i++) {
    const key = keys[i]!;
    if (Math.abs(key.length - name.length) > max || key === name) continue;
    const d = distance(wanted, key.toLowerCase(), bestDistance - 1); // only a nearer key is worth the work
    if (d < bestDistance) {
      best = key;
      bestDistance = d;
    }
  }
  const total = object instanceof PiecedObject ? object.size : keys.length;
  if (total > compared && bestDistance > 1) return oneEditAway(object, name) ?? best;
  return best;
}

/**
 * `keys` with those nearest `name` first (S14.5's distance, any case), the rest in their order: what a
 * note lists as the keys found where a name was missing (S18.2). `keys` are a bounded sample.
 */
export function keysNearestFirst(keys: readonly string[], name: string): string[] {
  if (name.length === 0 || name.length > NAME_CHARS) return [...keys];
  const wanted = name.toLowerCase();
  const max = maxDistance(name.length);
  const near = keys.map((key, order) => ({
    key,
    order,
    d: key.length > NAME_CHARS ? max + 1 : distance(wanted, key.toLowerCase(), max),
  }));
  return near.sort((a, b) => a.d - b.d || a.order - b.order).map(({ key }) => key);
}

/** A key present in `object` that differs from `name` by case, or by one deletion, insertion, substitution or swap. */
function oneEditAway(object: Record<string, unknown> | PiecedObject, name: string): string | undefined {
  const has =
    object instanceof PiecedObject ? (key: string) => object.knows(key) : (key: string) => hasOwn(object, key);
  for (const variant of oneEditVariants(name)) if (variant !== name && has(variant)) return variant;
  return undefined;
}

/**
 * Optimal string alignment distance (Levenshtein plus adjacent swaps) between `a` and `b`, or `max + 1`
 * when it is over `max`: only cells within `max` of the diagonal are computed.
 */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const width = b.length + 1;
  let before = new Array<number>(width).fill(Infinity); // row i - 2
  let previous = Array.from({ length: width }, (_, j) => j); // row i - 1
  let current = new Array<number>(width).fill(Infinity);
  for (let i = 1; i <= a.length; i++) {
    const from = Math.max(1, i - max);
    const to = Math.min(b.length, i + max);
    current[from - 1] = from === 1 ? i : Infinity;
    let rowMin = current[from - 1]!;
    for (let j = from; j <= to; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1))
        d = Math.min(d, before[j - 2]! + 1);
      current[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (to + 1 < width) current[to + 1] = Infinity;
    if (rowMin > max) return max + 1;
    [before, previous, current] = [previous, current, before];
  }
  const d = previous[b.length]!;
  return d > max ? max + 1 : d;
}
