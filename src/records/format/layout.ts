/**
 * How the index lays out a part read by window (S8.5, S16.4): a list's item batches, a wide object's member
 * batches and a long string's batches are each flat pairs, in order, of the batch's first unit (item,
 * member, character) and the byte offset its JSON starts at; `end` is the offset just past the part's last
 * unit. What every such part is asked, answered once here: the whole arithmetic of the layouts.
 */
import type { ListLayout } from "./serialize.js";
import type { StringLayout } from "./string-layout.js";

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
 * two batches (1 for the comma of lists and objects, 0 for a string's batches), or to the part's end.
 */
export function byteSpan(
  pairs: readonly number[],
  end: number,
  first: number,
  past: number,
  separator: number,
): { start: number; end: number } {
  return { start: pairs[2 * first + 1]!, end: past < pairs.length / 2 ? pairs[2 * past + 1]! - separator : end };
}

/**
 * Batch `batch` of a list: its first item, the item past its last, and its JSON's bytes (before the comma, or before
 * `]`).
 */
export function batchAt(
  layout: ListLayout,
  batch: number,
): { first: number; last: number; start: number; end: number } {
  const next = batch + 1 < layout.batches.length / 2;
  return {
    first: layout.batches[2 * batch]!,
    last: next ? layout.batches[2 * batch + 2]! : layout.length,
    ...byteSpan(layout.batches, layout.end, batch, batch + 1, 1),
  };
}

/** Byte range of the batches holding items `from` to `to - 1` of a list, and the items they hold. */
interface ItemSpan {
  firstBatch: number;
  endBatch: number;
  start: number;
  end: number;
  firstItem: number;
}

export function itemSpan(list: ListLayout, from: number, to: number): ItemSpan | undefined {
  const count = list.batches.length / 2;
  if (from >= to || count === 0) return undefined;
  // Last batch starting at or before `from`, then the first batch starting at or after `to`.
  let low = 0;
  let high = count - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (list.batches[2 * mid]! <= from) low = mid;
    else high = mid - 1;
  }
  const firstBatch = low;
  let endBatch = firstBatch + 1;
  while (endBatch < count && list.batches[2 * endBatch]! < to) endBatch++;
  return {
    firstBatch,
    endBatch,
    ...byteSpan(list.batches, list.end, firstBatch, endBatch, 1),
    firstItem: list.batches[2 * firstBatch]!,
  };
}

/** Byte range of the batches holding characters `from` to `to - 1`, and the batches (first, end) it spans. */
interface CharSpan {
  firstBatch: number;
  endBatch: number;
  start: number;
  end: number;
}

export function charSpan(layout: StringLayout, firstBatch: number, endBatch: number): CharSpan {
  return { firstBatch, endBatch, ...byteSpan(layout.batches, layout.end, firstBatch, endBatch, 0) };
}
