/**
 * A long string of a pieced answer as far as it is read (S16.4): its full length from the index, and the
 * batches read so far. A query whose path ends at the string reads only the batches its window touches and
 * slices them here; `total` is still the string's whole length. It stands where the string is in the
 * answer read for that query; nothing else sees it (searches, nodelists and references read the answer
 * whole). Its state is private (`#`), so no path can name a key of it: it has no own keys.
 */
export class PiecedString {
  readonly #length: number;
  /** Character offset where each batch starts, ascending, the first 0. */
  readonly #starts: readonly number[];
  readonly #texts: (string | undefined)[];

  constructor(length: number, starts: readonly number[]) {
    this.#length = length;
    this.#starts = starts;
    this.#texts = new Array<string | undefined>(starts.length);
  }

  /** Its length in UTF-16 units, as a string's. */
  get length(): number {
    return this.#length;
  }

  /** The batches holding characters `from` to `to - 1` (clamped), as [first, end) batch numbers. */
  batchesOf(from: number, to: number): [number, number] {
    const start = Math.max(0, Math.min(from, this.#length));
    const end = Math.max(start, Math.min(to, this.#length));
    const first = Math.max(0, lastAtOrBefore(this.#starts, start));
    let last = first + 1;
    while (last < this.#starts.length && this.#starts[last]! < end) last++;
    return [first, last];
  }

  /** Whether batches `first` to `end - 1` are all read. */
  has(first: number, end: number): boolean {
    for (let batch = first; batch < end; batch++) if (this.#texts[batch] === undefined) return false;
    return true;
  }

  /** The text of batches `first` to `end - 1`, read together: cut at the batch starts. */
  fill(first: number, end: number, text: string): void {
    let at = 0;
    for (let batch = first; batch < end; batch++) {
      const length = (this.#starts[batch + 1] ?? this.#length) - this.#starts[batch]!;
      this.#texts[batch] = text.slice(at, at + length);
      at += length;
    }
  }

  charCodeAt(at: number): number {
    const batch = lastAtOrBefore(this.#starts, at);
    const text = this.#texts[batch];
    if (text === undefined || at < 0 || at >= this.#length) return Number.NaN;
    return text.charCodeAt(at - this.#starts[batch]!);
  }

  /** Characters `start` to `end - 1`; the batches they lie in must have been read. */
  slice(start: number, end = this.#length): string {
    start = Math.max(0, Math.min(start, this.#length));
    end = Math.max(start, Math.min(end, this.#length));
    if (start === end) return "";
    const [first, last] = this.batchesOf(start, end);
    const parts: string[] = [];
    for (let batch = first; batch < last; batch++) {
      const text = this.#texts[batch];
      // a planner bug, never input
      if (text === undefined) throw new Error("PiecedString: a slice outside the batches read");
      parts.push(text);
    }
    const offset = this.#starts[first]!;
    return parts.join("").slice(start - offset, end - offset);
  }

  /** What it holds in memory, about (S16.3): two bytes per character read, plus its tables. */
  get heapBytes(): number {
    let bytes = 64 + 16 * this.#starts.length;
    for (const text of this.#texts) if (text !== undefined) bytes += 16 + 2 * text.length;
    return bytes;
  }
}

/** A string, or a long string of a pieced answer read in part: both slice by character (S7.3). */
export function isText(value: unknown): value is string | PiecedString {
  return typeof value === "string" || value instanceof PiecedString;
}

/** Index of the last entry of ascending `sorted` at or before `value` (-1 when none). */
function lastAtOrBefore(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length - 1;
  if (high < 0 || sorted[0]! > value) return -1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (sorted[mid]! <= value) low = mid;
    else high = mid - 1;
  }
  return low;
}
