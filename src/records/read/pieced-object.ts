/**
 * A wide object of a pieced answer as far as it is read (S16.4): its key count from the index, and the
 * batches of members read so far, by position in key order (S7.4 pages an object's keys in that order).
 * A query whose path ends at the object reads only the batches its window of keys touches; one that
 * steps through it by name reads only the batches that may hold the name (`candidates`, from the index).
 * `total` is still the object's whole key count. It stands where the object is in the answer read for
 * that query; nothing else sees it (searches, nodelists and references read the answer whole). Its state
 * is private (`#`), so no path can name a key of it: it has no own keys.
 */
import { keptFields } from "../../util/json.js";

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
  /** Batches not read yet: at 0 a key not read is not a member, and the index is not asked. */
  #unread: number;
  /** Names every batch was sifted for (`sift`): one of them not among the members read is not a member. */
  readonly #sifted: ReadonlySet<string>[] = [];

  constructor(length: number, starts: readonly number[], candidates: (name: string) => readonly number[]) {
    this.#length = length;
    this.#starts = starts;
    this.#batches = new Array(starts.length);
    this.#unread = starts.length;
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

  /** How many batches it is stored in. */
  get batchCount(): number {
    return this.#starts.length;
  }

  /** Whether batch `batch` is read. */
  has(batch: number): boolean {
    return this.#batches[batch] !== undefined;
  }

  /**
   * The members of batches `first` to `end - 1`, read together as one parsed object (its keys in order); a batch
   * another call read meanwhile (the state is shared) is left as it is, and what it holds not counted twice.
   */
  fill(first: number, end: number, members: Record<string, unknown>, heapBytes: number): void {
    const keys = Object.keys(members);
    let at = 0;
    let filled = 0;
    for (let batch = first; batch < end; batch++) {
      const count = (this.#starts[batch + 1] ?? this.#length) - this.#starts[batch]!;
      if (this.#batches[batch] === undefined) {
        const batchKeys = keys.slice(at, at + count);
        this.#unread--;
        this.#batches[batch] = { keys: batchKeys, values: batchKeys.map((key) => members[key]) };
        for (const key of batchKeys) this.#named.set(key, members[key]);
        filled += batchKeys.length;
      }
      at += count;
    }
    if (filled > 0) this.#heapBytes += Math.ceil((heapBytes * filled) / keys.length) + 24 * filled;
  }

  /**
   * Of the members of some batches (`members`, parsed), keeps only those `names` (a Set) holds (`textLength`:
   * their JSON's, for what they take); once every batch not read is sifted so, `sifted(names)` marks the names
   * as looked for everywhere. S26.1: 100,000 `fields` of a million keys keep 100,000 members, not a million
   * (filling every batch held the thread 0.9 s in Map growth).
   */
  sift(members: Record<string, unknown>, names: ReadonlySet<string>, textLength: number): void {
    const keys = Object.keys(members);
    let kept = 0;
    for (const key of keys)
      if (names.has(key) && !this.#named.has(key)) {
        this.#named.set(key, members[key]);
        kept++;
      }
    // What the members kept take, about: their share of the text (two bytes a character) and their Map entries.
    if (kept > 0) this.#heapBytes += Math.ceil((2 * textLength * kept) / keys.length) + 48 * kept;
  }

  /** Every batch not read was sifted for `names` (`sift`). */
  sifted(names: ReadonlySet<string>): void {
    this.#sifted.push(names);
    for (const name of names) this.#heapBytes += 2 * name.length + 48; // kept while the answer is
  }

  /** Whether every batch was read, or sifted for each of `names`. */
  siftedFor(names: readonly string[]): boolean {
    return this.#unread === 0 || this.#sifted.some((sifted) => names.every((name) => sifted.has(name)));
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
    if (this.#unread === 0 || this.#sifted.some((sifted) => sifted.has(key))) return false;
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
   * The keys `fields` (distinct) keep of it (S7.4), in their order (`keptFields`); their batches must have been
   * read (or sifted for them).
   */
  pickedKeys(fields: readonly string[]): string[] {
    return keptFields(fields, (field) => {
      const value = this.#named.get(field); // one lookup a field: 100,000 fields are one loop (S26.1)
      // not read: a planner bug unless sifted for
      if (value === undefined && !this.#named.has(field)) this.hasKey(field);
      return value;
    });
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
