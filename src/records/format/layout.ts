/**
 * How the index lays out a part read by window (S8.5, S16.4): a list's item batches, a wide object's member
 * batches and a long string's chunks are each flat pairs, in order, of the batch's first unit (item,
 * member, character) and the byte offset its JSON starts at; `end` is the offset just past the part's last
 * unit. What every such part is asked, answered once here.
 */

/** Each batch's first unit, in order (where a pieced read cuts). */
export function unitStarts(pairs: readonly number[]): number[] {
  const starts: number[] = [];
  for (let i = 0; i < pairs.length; i += 2) starts.push(pairs[i]!);
  return starts;
}

/** JSON size in bytes of the whole part, its brackets, braces or quotes included: known without reading it. */
export function partJsonBytes(pairs: readonly number[], end: number): number {
  return end - (pairs[1] ?? end) + 2;
}

/**
 * Bytes of batches `first` to `past - 1`: to the next batch's start, less the `separator` bytes between
 * two batches (1 for the comma of lists and objects, 0 for a string's chunks), or to the part's end.
 */
export function byteSpan(pairs: readonly number[], end: number, first: number, past: number, separator: number): { start: number; end: number } {
  return { start: pairs[2 * first + 1]!, end: past < pairs.length / 2 ? pairs[2 * past + 1]! - separator : end };
}
