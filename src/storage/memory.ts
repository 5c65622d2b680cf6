import { DEFAULT_MEMORY_MAX_BYTES, DEFAULT_MEMORY_MAX_ENTRIES, SWEEP_INTERVAL_MS } from "../defaults.js";
import { ResultHandlesError } from "../errors.js";
import { z } from "zod";
import { whole } from "../util/option-schema-parts.js";
import { defineDriver } from "./driver.js";
import type { NamespacedStorage } from "./types.js";
import { unref } from "../util/unref.js";

export interface MemoryStorageOptions {
  /**
   * Answers kept at most (default `DEFAULT_MEMORY_MAX_ENTRIES`, 1000); the oldest is dropped past it. 0 means no limit.
   */
  maxEntries?: number;
  /**
   * Stored bytes kept at most; the oldest are dropped past it. 0 means no limit. Left out: the default of
   * S9.3 where it runs, 256 MiB in Node and 64 MiB in a page.
   */
  maxBytes?: number;
  /** How often expired answers are swept out (ms). */
  sweepIntervalMs?: number;
}

interface Entry {
  value: Uint8Array;
  expiresAt: number;
  answer: Answer;
}

/** The records of one answer (one record, or an index and its pieces): kept, counted and dropped together. */
interface Answer {
  ids: Set<string>;
  bytes: number;
  owner: Holder;
}

/** What one owner's answers hold (S26.5): its answers, oldest first (a Set keeps insertion order), and their bytes. */
interface Holder {
  readonly tag: string;
  readonly answers: Set<Answer>;
  bytes: number;
}

/**
 * In-process storage (S9.3). It counts answers, not records: the records an answer is stored in come
 * through `setTogether` and are dropped together. Runs in Node and in pages alike.
 *
 * Room is shared fairly among owners (S26.5): `setTogether` is told an opaque tag of each answer's owner.
 * Past `maxEntries` or `maxBytes`, the answers that go are those of the owner holding the most of what is
 * over its limit (answers, or bytes), its oldest first; an owner holding the most
 * must hold at least its fair share (the limits over the owners holding answers). When the owner of the
 * answer being kept holds as much as any, its own older answers go first, and when it has none the new
 * answer is refused (`STORE_FULL`, and the fold sends it whole): a newcomer never pushes out an owner who
 * holds no more than it does. So 1,200 sessions folding 1.4 MB each no longer push out alice's answer.
 * Answers given without a tag (`set`, or `setTogether` without `owner`) count as one owner's.
 */
export class MemoryStore implements NamespacedStorage {
  private readonly entries = new Map<string, Entry>();
  private readonly holders = new Map<string, Holder>();
  private answers = 0;
  private bytes = 0;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(options: MemoryStorageOptions = {}) {
    this.maxEntries = options.maxEntries ?? DEFAULT_MEMORY_MAX_ENTRIES;
    this.maxBytes = options.maxBytes ?? DEFAULT_MEMORY_MAX_BYTES[runsInNode() ? "node" : "browser"];
    this.sweeper = unref(setInterval(() => this.sweep(), options.sweepIntervalMs ?? SWEEP_INTERVAL_MS.memory));
  }

  /** Records kept. */
  get size(): number {
    return this.entries.size;
  }

  /** Answers kept (what `maxEntries` counts). */
  get answerCount(): number {
    return this.answers;
  }

  get storedBytes(): number {
    return this.bytes;
  }

  async get(id: string): Promise<Uint8Array | undefined> {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.remove(id);
      return undefined;
    }
    return entry.value;
  }

  /** One record as an answer of its own. */
  async set(key: string, value: Uint8Array, ttlSeconds: number): Promise<void> {
    this.keep([{ key, value }], ttlSeconds, UNTAGGED);
  }

  /**
   * The records of one answer, kept and dropped together; refused together when larger than `maxBytes`,
   * or when its owner (`owner`, an opaque tag) holds as much as any other and has no older answer to drop (S26.5).
   */
  async setTogether(
    records: readonly { key: string; value: Uint8Array }[],
    ttlSeconds: number,
    owner = UNTAGGED,
  ): Promise<void> {
    this.keep(records, ttlSeconds, owner);
  }

  async delete(key: string): Promise<void> {
    this.remove(key);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    this.entries.clear();
    this.holders.clear();
    this.answers = 0;
    this.bytes = 0;
  }

  private keep(records: readonly { key: string; value: Uint8Array }[], ttlSeconds: number, tag: string): void {
    const values = new Map(records.map(({ key, value }) => [key, value])); // a key given twice: the last
    let bytes = 0;
    for (const value of values.values()) bytes += value.byteLength;
    if (this.maxBytes > 0 && bytes > this.maxBytes) {
      throw new ResultHandlesError(
        "STORE_FULL",
        `an answer of ${bytes} bytes exceeds memory maxBytes ${this.maxBytes}`,
      );
    }
    if (values.size === 0) return;
    // An answer one of whose records is replaced can no longer be read (S8.5): it goes whole.
    for (const id of values.keys()) {
      const replaced = this.entries.get(id)?.answer;
      if (replaced) for (const other of replaced.ids) this.remove(other);
    }
    let holder = this.holders.get(tag);
    if (!holder) this.holders.set(tag, (holder = { tag, answers: new Set(), bytes: 0 }));
    const answer: Answer = { ids: new Set(values.keys()), bytes, owner: holder };
    const expiresAt = Date.now() + ttlSeconds * 1000;
    for (const [id, value] of values) this.entries.set(id, { value, expiresAt, answer });
    holder.answers.add(answer);
    holder.bytes += bytes;
    this.answers++;
    this.bytes += bytes;
    if (this.overLimits()) this.sweep(); // expired answers go before any that can still be read
    while (this.overLimits()) {
      const oldest = this.evictable(holder).answers.values().next().value!;
      if (oldest === answer) {
        this.drop(answer);
        throw new ResultHandlesError(
          "STORE_FULL",
          `memory is full (maxEntries ${this.maxEntries}, maxBytes ${this.maxBytes}) ` +
            `and this answer's owner holds as much as any other: ` +
            `it is not kept, and no other owner's answer is dropped for it (S26.5)`,
        );
      }
      this.drop(oldest);
    }
  }

  /**
   * The owner whose oldest answer goes (S26.5): the one holding the most of what is over its limit (its
   * share of the answers, of the bytes, or the larger of both when both are over); `keeping` (the owner of
   * the answer being kept) when it holds as much as any other. Only the limit that is passed counts: past
   * `maxEntries`, an owner of one large answer holds less than one of many small ones.
   */
  private evictable(keeping: Holder): Holder {
    const entries = this.maxEntries > 0 && this.answers > this.maxEntries;
    const bytes = this.maxBytes > 0 && this.bytes > this.maxBytes;
    const load = (holder: Holder) =>
      Math.max(entries ? holder.answers.size / this.maxEntries : 0, bytes ? holder.bytes / this.maxBytes : 0);
    let most = keeping;
    let mostLoad = load(keeping);
    for (const holder of this.holders.values()) {
      const held = load(holder);
      if (held > mostLoad) {
        most = holder;
        mostLoad = held;
      }
    }
    return most;
  }

  private overLimits(): boolean {
    return (this.maxEntries > 0 && this.answers > this.maxEntries) || (this.maxBytes > 0 && this.bytes > this.maxBytes);
  }

  private drop(answer: Answer): void {
    for (const id of answer.ids) this.remove(id);
  }

  private remove(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.bytes -= entry.value.byteLength;
    const { answer } = entry;
    answer.ids.delete(id);
    answer.bytes -= entry.value.byteLength;
    answer.owner.bytes -= entry.value.byteLength;
    if (answer.ids.size === 0) {
      const holder = answer.owner;
      holder.answers.delete(answer);
      this.answers--;
      if (holder.answers.size === 0) this.holders.delete(holder.tag);
    }
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, entry] of this.entries) if (entry.expiresAt <= now) this.remove(id);
  }
}

/** `{ type: "memory", memory?: { maxEntries?, maxBytes? } }`: this process only (S9.3), in every build. */
export const memoryDriver = defineDriver({
  type: "memory",
  runsIn: ["node", "browser", "edge"],
  options: { memory: z.strictObject({ maxEntries: whole(0).optional(), maxBytes: whole(0).optional() }).optional() },
  resolve: ({ memory }, { kind }) => ({
    memory: {
      maxEntries: memory?.maxEntries ?? DEFAULT_MEMORY_MAX_ENTRIES,
      maxBytes: memory?.maxBytes ?? DEFAULT_MEMORY_MAX_BYTES[kind],
    } as const,
  }),
  open: async ({ memory }) => new MemoryStore(memory),
});

/** The owner of answers given without a tag (S26.5): they share one owner's room. */
const UNTAGGED = "";

/** For a storage used bare, outside a build's config: Node has `process.versions.node`, a page does not. */
function runsInNode(): boolean {
  return typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === "string";
}
