import { DEFAULT_MEMORY_MAX_BYTES, DEFAULT_MEMORY_MAX_ENTRIES } from "../constants.js";
import { ResultHandlesError } from "../errors.js";
import { namespacedKey, type NamespacedStorage } from "./types.js";

export interface MemoryStorageOptions {
  /** Records kept at most (default `DEFAULT_MEMORY_MAX_ENTRIES`, 1000); the oldest is dropped past it. 0 means no limit. */
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
}

/**
 * In-process storage (S9.3). A Map keeps insertion order, so its first entry is always the oldest.
 * Runs in Node and in pages alike.
 */
export class MemoryStorage implements NamespacedStorage {
  readonly evictsOldest = true;
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly namespace: string,
    options: MemoryStorageOptions = {},
  ) {
    this.maxEntries = options.maxEntries ?? DEFAULT_MEMORY_MAX_ENTRIES;
    this.maxBytes = options.maxBytes ?? DEFAULT_MEMORY_MAX_BYTES[runsInNode() ? "node" : "browser"];
    this.sweeper = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 30_000);
    // A sweep timer must never keep a Node process alive.
    (this.sweeper as { unref?: () => void }).unref?.();
  }

  get size(): number {
    return this.entries.size;
  }

  get storedBytes(): number {
    return this.bytes;
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const id = namespacedKey(this.namespace, key);
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.remove(id);
      return undefined;
    }
    return entry.value;
  }

  async set(key: string, value: Uint8Array, ttlSeconds: number): Promise<void> {
    if (this.maxBytes > 0 && value.byteLength > this.maxBytes) {
      throw new ResultHandlesError("STORE_FULL", `record of ${value.byteLength} bytes exceeds memory maxBytes ${this.maxBytes}`);
    }
    const id = namespacedKey(this.namespace, key);
    this.remove(id);
    this.entries.set(id, { value, expiresAt: Date.now() + ttlSeconds * 1000 });
    this.bytes += value.byteLength;
    while ((this.maxEntries > 0 && this.entries.size > this.maxEntries) || (this.maxBytes > 0 && this.bytes > this.maxBytes)) {
      this.remove(this.entries.keys().next().value as string);
    }
  }

  async delete(key: string): Promise<void> {
    this.remove(namespacedKey(this.namespace, key));
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    this.entries.clear();
    this.bytes = 0;
  }

  private remove(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.bytes -= entry.value.byteLength;
    this.entries.delete(id);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, entry] of this.entries) if (entry.expiresAt <= now) this.remove(id);
  }
}

/** For a storage used bare, outside a build's config: Node has `process.versions.node`, a page does not. */
function runsInNode(): boolean {
  return typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === "string";
}
