/**
 * The last few answers `result_query` decrypted and parsed, so paging through a large answer does not
 * decrypt and parse all of it on every page. Keyed by the derived storage key, so only a caller who
 * could read the record finds its entry; an entry is used only while the storage still holds the very
 * same record (same IV and tag) and it has not expired, so eviction and expiry behave exactly as without it.
 * Values are shared: callers must treat them as read-only.
 */
interface Entry {
  value: unknown;
  fingerprint: string;
  expiresAt: number;
  bytes: number;
}

export class RecentAnswers {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(
    private readonly maxEntries = 4,
    private readonly maxBytes = 32 * 1024 * 1024,
  ) {}

  get(storageKey: string, record: Uint8Array, now: number): { value: unknown } | undefined {
    const entry = this.entries.get(storageKey);
    if (!entry) return undefined;
    if (entry.expiresAt <= now || entry.fingerprint !== fingerprint(record)) {
      this.remove(storageKey);
      return undefined;
    }
    this.entries.delete(storageKey); // most recently used goes last
    this.entries.set(storageKey, entry);
    return { value: entry.value };
  }

  set(storageKey: string, record: Uint8Array, value: unknown, expiresAt: number, bytes: number): void {
    this.remove(storageKey);
    if (bytes > this.maxBytes || this.maxEntries === 0) return;
    this.entries.set(storageKey, { value, fingerprint: fingerprint(record), expiresAt, bytes });
    this.bytes += bytes;
    while (this.entries.size > this.maxEntries || this.bytes > this.maxBytes) this.remove(this.entries.keys().next().value as string);
  }

  remove(storageKey: string): void {
    const entry = this.entries.get(storageKey);
    if (!entry) return;
    this.bytes -= entry.bytes;
    this.entries.delete(storageKey);
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}

/** Header and IV at the start, GCM tag at the end: any new record under the key differs in them. */
function fingerprint(record: Uint8Array): string {
  const head = record.subarray(0, 21);
  const tail = record.subarray(Math.max(21, record.byteLength - 16));
  return `${record.byteLength}:${Array.from(head).join(",")}:${Array.from(tail).join(",")}`;
}
