import type { Database, Statement } from "better-sqlite3";
import { z } from "zod";
import { DEFAULT_STORE_TIMEOUT_MS, SQLITE_BUSY_RETRY_MS, SQLITE_PAGE_BYTES, SWEEP_INTERVAL_MS } from "../defaults.js";
import { StoreTimeoutError } from "../errors.js";
import { text } from "../util/option-schema-parts.js";
import { defineDriver } from "./driver.js";
import { loadClient } from "./load-client.js";
import type { NamespacedStorage } from "./types.js";
import { unref } from "../util/unref.js";

interface SqliteStorageOptions {
  /**
   * How long a call keeps trying while another process holds the database's lock (ms); the store's
   * `timeoutMs` when opened by a config, else `DEFAULT_STORE_TIMEOUT_MS`. It waits between tries on a
   * timer, never on the calling thread (S26.4).
   */
  busyTimeoutMs?: number;
}

const TABLE = "result_handles";

/** `{ type: "sqlite", sqlite: { path } }`: one file shared by the processes of one machine, Node only. */
export const sqliteDriver = defineDriver({
  type: "sqlite",
  runsIn: ["node"],
  options: { sqlite: z.strictObject({ path: text() }) },
  resolve: ({ sqlite }) => ({ sqlite }),
  open: ({ sqlite, timeoutMs }) => openSqliteStorage(sqlite.path, { busyTimeoutMs: timeoutMs }),
});

/**
 * SQLite through better-sqlite3 (S9): one file, WAL so readers never wait for a writer and several
 * processes can share it, an `expires_at` column (ms) checked on every read, and a sweep that deletes
 * expired rows on a timer that never keeps the process alive.
 *
 * better-sqlite3 runs on the calling thread, so two things it would do there are turned off (S26.4):
 * - waiting for another process's lock (`busy_timeout`, which sleeps on the calling thread: 4 s held
 *   under a writer that kept `BEGIN IMMEDIATE`): it is 0, and a call that finds the database locked tries
 *   again on a timer (`whenUnlocked`) until `busyTimeoutMs`, then fails, as a store call that timed out;
 * - reading through a memory map (`mmap_size`): a file truncated under a running server then raised
 *   SIGBUS and killed the process. Read with `read()`, the same file fails the call with
 *   `SQLITE_IOERR_SHORT_READ` or `SQLITE_CORRUPT`, and the server goes on. (The map read large pieces
 *   faster; 64 KB pages (`SQLITE_PAGE_BYTES`) in a new file make up for it.)
 * The WAL's index (the `-shm` file) is still mapped, as SQLite requires for several processes.
 */
async function openSqliteStorage(path: string, options: SqliteStorageOptions = {}): Promise<NamespacedStorage> {
  const { default: Sqlite } = await loadClient("better-sqlite3", "sqlite", () => import("better-sqlite3"));
  const busyMs = options.busyTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  const db = new Sqlite(path, { timeout: 0 });
  try {
    const until = Date.now() + busyMs;
    // A new file gets large pages (before WAL, which fixes them): a piece of 256–512 KB is then 4–8 page
    // reads instead of 64–128, which matters without a memory map (below): a 10 MB answer's pieces read in
    // about 20 ms instead of 60, written in 35 ms instead of 250. An existing file keeps its pages.
    db.pragma(`page_size = ${SQLITE_PAGE_BYTES}`);
    await whenUnlocked(() => db.pragma("journal_mode = WAL"), until, "open");
    db.pragma("mmap_size = 0");
    await whenUnlocked(
      () =>
        db.exec(
          `CREATE TABLE IF NOT EXISTS ${TABLE} ` +
            `(key TEXT PRIMARY KEY, value BLOB NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID; ` +
            `CREATE INDEX IF NOT EXISTS ${TABLE}_expires_at ON ${TABLE} (expires_at);`,
        ),
      until,
      "open",
    );
  } catch (error) {
    db.close();
    throw error;
  }
  return new SqliteStorage(db, busyMs, SWEEP_INTERVAL_MS.sqlite);
}

/**
 * SQLite's answer when another connection holds the lock a statement needs (`SQLITE_BUSY`, `SQLITE_LOCKED` and their
 * extended codes).
 */
function locked(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^SQLITE_(BUSY|LOCKED)/.test(code);
}

/**
 * Runs `statement` (synchronous, never waiting for a lock: `busy_timeout` is 0); while the database is
 * locked by another connection it tries again after a pause on a timer, so the calling thread serves
 * others meanwhile, until `until` (epoch ms). Then it fails as a store call that timed out (S26.4).
 */
async function whenUnlocked<T>(statement: () => T, until: number, operation: string): Promise<T> {
  for (let pause: number = SQLITE_BUSY_RETRY_MS.first; ; pause = Math.min(2 * pause, SQLITE_BUSY_RETRY_MS.longest)) {
    try {
      return statement();
    } catch (error) {
      if (!locked(error)) throw error;
      const left = until - Date.now();
      if (left <= 0)
        throw new StoreTimeoutError(
          operation,
          0,
          `SQLite ${operation}: the database stayed locked by another connection (${describeCode(error)})`,
        );
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
    }
  }
}

function describeCode(error: unknown): string {
  return String((error as { code?: unknown }).code);
}

class SqliteStorage implements NamespacedStorage {
  private readonly select: Statement<[string], { value: Buffer; expires_at: number }>;
  private readonly upsert: Statement<[string, Buffer, number]>;
  private readonly remove: Statement<[string]>;
  private readonly removeExpired: Statement<[number]>;
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly db: Database,
    /** How long one call keeps trying a locked database (ms). */
    private readonly busyMs: number,
    sweepIntervalMs: number,
  ) {
    this.select = db.prepare(`SELECT value, expires_at FROM ${TABLE} WHERE key = ?`);
    this.upsert = db.prepare(
      `INSERT INTO ${TABLE} (key, value, expires_at) VALUES (?, ?, ?) ` +
        `ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
    );
    this.remove = db.prepare(`DELETE FROM ${TABLE} WHERE key = ?`);
    this.removeExpired = db.prepare(`DELETE FROM ${TABLE} WHERE expires_at <= ?`);
    this.sweeper = unref(setInterval(() => this.sweep(), sweepIntervalMs));
  }

  async get(id: string): Promise<Uint8Array | undefined> {
    const until = Date.now() + this.busyMs;
    const row = await whenUnlocked(() => this.select.get(id), until, "get");
    if (!row) return undefined;
    if (row.expires_at <= Date.now()) {
      await whenUnlocked(() => this.remove.run(id), until, "delete");
      return undefined;
    }
    return new Uint8Array(row.value.buffer, row.value.byteOffset, row.value.byteLength);
  }

  async set(key: string, value: Uint8Array, ttlSeconds: number): Promise<void> {
    const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    await whenUnlocked(
      () => this.upsert.run(key, bytes, Date.now() + ttlSeconds * 1000),
      Date.now() + this.busyMs,
      "set",
    );
  }

  async delete(key: string): Promise<void> {
    await whenUnlocked(() => this.remove.run(key), Date.now() + this.busyMs, "delete");
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    if (this.db.open) this.db.close();
  }

  private sweep(): void {
    try {
      this.removeExpired.run(Date.now());
    } catch {
      // A busy or closed database: the next sweep tries again, and reads check expiry anyway.
    }
  }
}
