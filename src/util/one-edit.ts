/**
 * The names one edit away from a name, in the order the nearest-key hint tries them (S14.5): by case,
 * then at each position a deletion, a swap, substitutions, and insertions. Shared by the hint
 * (`nearestKey`) and the reader of a wide object, which reads the batches that may hold them
 * (`readNamed`, S16.4), so both look at the same names in the same order.
 */

/** Names longer than this get no suggestion. */
export const NAME_CHARS = 64;
/** Characters tried: the name's own, plus the usual ones of keys. */
const USUAL = "abcdefghijklmnopqrstuvwxyz0123456789_-";

/** How far a key may be from a name of this length to count as meant: a quarter of it, at most 3. */
export function maxDistance(length: number): number {
  return length < 3 ? 0 : length < 6 ? 1 : length < 10 ? 2 : 3;
}

/** The names one edit from `name` (some may repeat, or be `name` itself: callers skip those). */
export function* oneEditVariants(name: string): Generator<string> {
  if (name.length === 0 || name.length > NAME_CHARS) return;
  yield* [name.toLowerCase(), name.toUpperCase(), name[0]!.toUpperCase() + name.slice(1)];
  if (maxDistance(name.length) === 0) return;
  const alphabet = [...new Set(name.toLowerCase() + USUAL + name)];
  for (let i = 0; i <= name.length; i++) {
    const head = name.slice(0, i);
    if (i < name.length) {
      const tail = name.slice(i + 1);
      yield head + tail; // deletion
      if (i + 1 < name.length) yield head + name[i + 1] + name[i] + name.slice(i + 2); // swap
      for (const c of alphabet) yield head + c + tail; // substitution
    }
    for (const c of alphabet) yield head + c + name.slice(i); // insertion
  }
}
