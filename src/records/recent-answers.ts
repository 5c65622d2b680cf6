/**
 * What `result_query` keeps in memory between reads, never in a storage:
 * - `RecentAnswers`: the last few answers it decrypted and parsed (whole, or the parts of a pieced answer
 *   read so far), so paging through a large answer does not decrypt and parse it on every page. Keyed by
 *   the derived storage key, so only a caller who could read the record finds its entry; an entry is used
 *   only while the storage still holds the very same main record, byte for byte (S8.5: a record changed
 *   anywhere reads as not found, from memory as from the storage), and it has not expired, so eviction,
 *   expiry and tampering behave exactly as without it. The compare is cheap: a pieced answer's main record
 *   is its small index, and a whole record is at most one piece.
 *   Entries count what they hold in memory (`heapEstimate`), not their JSON length, against one memory cap for
 *   the whole process (S16.3: `DEFAULT_RECENT_ANSWERS_BYTES`), shared by every store and plugin instance:
 *   past it the least recently used entry of any store goes, and an answer larger than it is not kept.
 * - `RecentKeys`: the keys derived for recent (handle, owner) pairs, so a repeated query skips HKDF.
 * Values are shared: callers must treat them as read-only.
 */
import { DEFAULT_RECENT_ANSWERS_BYTES } from "../defaults.js";
import type { AnswerKeys, Owner } from "./crypto/keys.js";

interface Entry<T> {
  readonly key: string;
  readonly owner: RecentAnswers<T>;
  state: T;
  /** A private copy of the main record the state was read from. */
  record: Uint8Array;
  expiresAt: number;
  bytes: number;
}

/** One memory cap for every store's recent answers in this process, least recently used first. */
class SharedCap {
  private readonly order = new Set<Entry<unknown>>();
  used = 0;

  constructor(readonly limit: number) {}

  add(entry: Entry<unknown>): void {
    this.order.add(entry);
    this.used += entry.bytes;
    this.trim();
  }

  touch(entry: Entry<unknown>): void {
    this.order.delete(entry);
    this.order.add(entry);
  }

  grow(entry: Entry<unknown>, bytes: number): void {
    this.used += bytes - entry.bytes;
    entry.bytes = bytes;
    this.trim();
  }

  remove(entry: Entry<unknown>): void {
    if (this.order.delete(entry)) this.used -= entry.bytes;
  }

  private trim(): void {
    for (const oldest of this.order) {
      if (this.used <= this.limit) return;
      oldest.owner.remove(oldest.key);
    }
  }
}

const processCap = new SharedCap(DEFAULT_RECENT_ANSWERS_BYTES);

export class RecentAnswers<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    private readonly maxEntries = 4,
    private readonly cap: SharedCap = processCap,
  ) {}

  /** The most the process keeps; an entry of more is not kept at all. */
  get limit(): number {
    return this.cap.limit;
  }

  get(storageKey: string, record: Uint8Array, now: number): T | undefined {
    const entry = this.entries.get(storageKey);
    if (!entry) return undefined;
    if (entry.expiresAt <= now || !sameBytes(entry.record, record)) {
      this.remove(storageKey);
      return undefined;
    }
    this.entries.delete(storageKey); // most recently used goes last
    this.entries.set(storageKey, entry);
    this.cap.touch(entry as Entry<unknown>);
    return entry.state;
  }

  /** Keeps `state`, which holds about `bytes` in memory (`heapEstimate`). */
  set(storageKey: string, record: Uint8Array, state: T, expiresAt: number, bytes: number): void {
    this.remove(storageKey);
    bytes += record.byteLength; // the copy kept to compare against counts too
    if (bytes > this.cap.limit || this.maxEntries === 0) return;
    const entry: Entry<T> = { key: storageKey, owner: this, state, record: record.slice(), expiresAt, bytes };
    this.entries.set(storageKey, entry);
    while (this.entries.size > this.maxEntries) this.remove(this.entries.keys().next().value as string);
    this.cap.add(entry as Entry<unknown>);
  }

  /** An entry grew (more of its answer was read): `bytes` is its new estimate; it goes when it no longer fits. */
  resize(storageKey: string, state: T, bytes: number): void {
    const entry = this.entries.get(storageKey);
    if (!entry || entry.state !== state) return;
    bytes += entry.record.byteLength;
    if (bytes > this.cap.limit) return this.remove(storageKey);
    this.cap.grow(entry as Entry<unknown>, bytes);
  }

  remove(storageKey: string): void {
    const entry = this.entries.get(storageKey);
    if (!entry) return;
    this.entries.delete(storageKey);
    this.cap.remove(entry as Entry<unknown>);
  }

  clear(): void {
    for (const key of [...this.entries.keys()]) this.remove(key);
  }
}

/** Whole-record equality; compares 4 bytes at a time where both arrays are aligned for it. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  let i = 0;
  if (a.byteOffset % 4 === 0 && b.byteOffset % 4 === 0) {
    const words = a.byteLength >> 2;
    const wa = new Uint32Array(a.buffer, a.byteOffset, words);
    const wb = new Uint32Array(b.buffer, b.byteOffset, words);
    for (; i < words; i++) if (wa[i] !== wb[i]) return false;
    i = words << 2;
  }
  for (; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Derived keys of recent (handle, owner) pairs, least recently used dropped first. */
export class RecentKeys {
  private readonly entries = new Map<string, Promise<AnswerKeys>>();

  constructor(private readonly maxEntries = 256) {}

  get(handle: string, owner: Owner, derive: () => Promise<AnswerKeys>): Promise<AnswerKeys> {
    const id = JSON.stringify([handle, owner.session ?? null, owner.caller ?? null]);
    let keys = this.entries.get(id);
    if (keys) {
      this.entries.delete(id);
    } else {
      keys = derive();
      keys.catch(() => this.entries.get(id) === keys && this.entries.delete(id));
    }
    this.entries.set(id, keys);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    return keys;
  }

  clear(): void {
    this.entries.clear();
  }
}
