import { createStore, del, delMany, get, promisifyRequest, set, type UseStore } from "idb-keyval";
import { z } from "zod";
import { DEFAULT_INDEXEDDB_DATABASE, SWEEP_INTERVAL_MS } from "../defaults.js";
import { ResultHandlesError } from "../errors.js";
import { text } from "../util/option-schema-parts.js";
import { defineDriver } from "./driver.js";
import type { NamespacedStorage } from "./types.js";

interface Row {
  value: Uint8Array;
  /** Epoch ms after which the value never reads back. */
  expiresAt: number;
}

const OBJECT_STORE = "answers";
/** The database a page store uses unless `storage.indexeddb.database` names another. */

/** `{ type: "indexeddb", indexeddb?: { database? } }`: pages only; answers survive a reload for their TTL. */
export const indexedDbDriver = defineDriver({
  type: "indexeddb",
  runsIn: ["browser"],
  options: { indexeddb: z.strictObject({ database: text().optional() }).optional() },
  resolve: ({ indexeddb }) => ({ indexeddb: { database: indexeddb?.database ?? DEFAULT_INDEXEDDB_DATABASE } }),
  open: ({ indexeddb }) => openIndexedDbStorage(indexeddb.database),
});

/**
 * IndexedDB in pages, through idb-keyval, in a database of its own (S9.1): answers survive a reload for
 * their TTL. Expiry is checked on every read and an expired record is removed; records left by earlier
 * page loads are swept once at open, and those this page wrote are swept as they expire.
 */
async function openIndexedDbStorage(database: string): Promise<NamespacedStorage> {
  if (typeof indexedDB === "undefined")
    throw new ResultHandlesError(
      "STORAGE_UNAVAILABLE",
      'IndexedDB is not available here: use storage: { type: "memory" }',
    );
  const store = createStore(database, OBJECT_STORE);
  await sweepAll(store);
  return new IndexedDbStorage(store, SWEEP_INTERVAL_MS.indexeddb);
}

/** One pass over every record, deleting the expired ones. */
function sweepAll(store: UseStore): Promise<void> {
  const now = Date.now();
  return store("readwrite", (objects) => {
    objects.openCursor().onsuccess = function () {
      const cursor = this.result;
      if (!cursor) return;
      if (!((cursor.value as Row).expiresAt > now)) cursor.delete();
      cursor.continue();
    };
    return promisifyRequest(objects.transaction);
  });
}

class IndexedDbStorage implements NamespacedStorage {
  /** When each record this page wrote expires, so the sweep deletes by key without reading values. */
  private readonly written = new Map<string, number>();
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly store: UseStore,
    sweepIntervalMs: number,
  ) {
    this.sweeper = setInterval(() => void this.sweep().catch(() => {}), sweepIntervalMs);
  }

  async get(id: string): Promise<Uint8Array | undefined> {
    const row = await get<Row>(id, this.store);
    if (!row) return undefined;
    if (!(row.expiresAt > Date.now())) {
      await del(id, this.store);
      this.written.delete(id);
      return undefined;
    }
    return row.value;
  }

  async set(id: string, value: Uint8Array, ttlSeconds: number): Promise<void> {
    const expiresAt = Date.now() + ttlSeconds * 1000;
    // Structured clone copies a view's whole buffer: store exactly the bytes.
    const bytes = value.byteOffset === 0 && value.byteLength === value.buffer.byteLength ? value : value.slice();
    await set(id, { value: bytes, expiresAt } satisfies Row, this.store);
    this.written.set(id, expiresAt);
  }

  async delete(id: string): Promise<void> {
    await del(id, this.store);
    this.written.delete(id);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    this.written.clear();
    await this.store("readonly", (objects) => objects.transaction.db.close());
  }

  private async sweep(): Promise<void> {
    const now = Date.now();
    const expired = [...this.written].filter(([, expiresAt]) => expiresAt <= now).map(([id]) => id);
    if (expired.length === 0) return;
    await delMany(expired, this.store);
    for (const id of expired) this.written.delete(id);
  }
}
