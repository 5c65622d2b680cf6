import { setOwn } from "../../util/json.js";

/**
 * A wide object of a pieced answer as far as it is read (S16.4): its key count from the index, and the
 * batches of members read so far, by position in key order (S7.4 pages an object's keys in that order).
 * A query whose path ends at the object reads only the batches its window of keys touches; one that
 * steps through it by name reads only the batches that may hold the name (`candidates`, from the index).
 * `total` is still the object's whole key count. It stands where the object is in the answer read for
 * that query; nothing else sees it (searches, nodelists and references read the answer whole). Its state
 * is private (`#`), so no path can name a key of it: it has no own keys.
 */
export class PiecedObject {
  readonly #length: number;
  /** Member position where each batch starts, ascending, the first 0. */
  readonly #starts: readonly number[];
  /** Per batch read: its keys and values, in order. */
  readonly #batches: ({ keys: string[]; values: unknown[] } | undefined)[];
  /** Every member read, by key. */
  readonly #named = new Map<string, unknown>();
  readonly #candidates: (name: string) => readonly number[];
  #heapBytes: number;

  constructor(length: number, starts: readonly number[], candidates: (name: string) => readonly number[]) {
    this.#length = length;
    this.#starts = starts;
    this.#batches = new Array(starts.length);
    this.#candidates = candidates;
    this.#heapBytes = 64 + 16 * starts.length;
  }

  /** Its key count (what `total` says for it). */
  get size(): number {
    return this.#length;
  }

  /** The batches holding members `from` to `to - 1` (clamped), as [first, end) batch numbers. */
  batchesOf(from: number, to: number): [number, number] {
    const start = Math.max(0, Math.min(from, this.#length));
    const end = Math.max(start, Math.min(to, this.#length));
    let first = 0; // the last batch starting at or before `start`
    let high = this.#starts.length - 1;
    while (first < high) {
      const mid = (first + high + 1) >> 1;
      if (this.#starts[mid]! <= start) first = mid;
      else high = mid - 1;
    }
    let last = first + 1;
    while (last < this.#starts.length && this.#starts[last]! < end) last++;
    return [first, last];
  }

  /** The batches that may hold the key `name` (from the index: every other batch lacks it). */
  candidates(name: string): readonly number[] {
    return this.#candidates(name);
  }

  /** Whether batch `batch` is read. */
  has(batch: number): boolean {
    return this.#batches[batch] !== undefined;
  }

  /** The members of batches `first` to `end - 1`, read together as one parsed object (its keys in order). */
  fill(first: number, end: number, members: Record<string, unknown>, heapBytes: number): void {
    const keys = Object.keys(members);
    let at = 0;
    for (let batch = first; batch < end; batch++) {
      const count = (this.#starts[batch + 1] ?? this.#length) - this.#starts[batch]!;
      const batchKeys = keys.slice(at, at + count);
      this.#batches[batch] = { keys: batchKeys, values: batchKeys.map((key) => members[key]) };
      for (const key of batchKeys) this.#named.set(key, members[key]);
      at += count;
    }
    this.#heapBytes += heapBytes + 24 * keys.length;
  }

  /** Member `at` (in key order) as [key, value]; its batch must have been read. */
  memberAt(at: number): readonly [string, unknown] {
    const [batch] = this.batchesOf(at, at + 1);
    const read = this.#batches[batch];
    if (!read) throw new Error("PiecedObject: a member outside the batches read"); // a planner bug, never input
    const offset = at - this.#starts[batch]!;
    return [read.keys[offset]!, read.values[offset]];
  }

  /** Whether `key` is a member: known from the batches read, which must include every candidate for it. */
  hasKey(key: string): boolean {
    if (this.#named.has(key)) return true;
    if (this.#candidates(key).every((batch) => this.has(batch))) return false;
    throw new Error("PiecedObject: a key looked up outside the batches read"); // a planner bug, never input
  }

  /** Whether `key` is known to be a member (false when it is not, or its batches are not read). */
  knows(key: string): boolean {
    return this.#named.has(key);
  }

  get(key: string): unknown {
    return this.#named.get(key);
  }

  /**
   * The members `fields` name (S7.4), in the order they first name them, as `fieldPicker` keeps them; their batches
   * must have been read.
   */
  pick(fields: readonly string[]): Record<string, unknown> {
    const picked: Record<string, unknown> = {};
    for (const field of new Set(fields)) if (this.hasKey(field)) setOwn(picked, field, this.get(field));
    return picked;
  }

  /** The keys read, in key order (batch by batch). */
  keysRead(): string[] {
    return this.#batches.flatMap((read) => read?.keys ?? []);
  }

  /** The first keys in key order, as far as the batches from the first are read, at most `count`. */
  leadingKeys(count: number): string[] {
    const keys: string[] = [];
    for (let batch = 0; batch < this.#batches.length && keys.length < count; batch++) {
      const read = this.#batches[batch];
      if (!read) break;
      keys.push(...read.keys.slice(0, count - keys.length));
    }
    return keys;
  }

  /** The members read from the first on, in order, while their batches are read (what a walk for large parts sees). */
  *leadingMembers(): Generator<readonly [string, unknown]> {
    for (const read of this.#batches) {
      if (!read) return;
      for (let i = 0; i < read.keys.length; i++) yield [read.keys[i]!, read.values[i]];
    }
  }

  /** What it holds in memory, about (S16.3). */
  get heapBytes(): number {
    return this.#heapBytes;
  }
}
