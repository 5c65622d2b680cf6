// SQLite through better-sqlite3 on a temporary database file (S9, S8.3).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Sqlite from "better-sqlite3";
import { afterAll, describe, expect, it, vi } from "vitest";
import { ResultHandlesPlugin } from "mcp-result-handles";
import { SWEEP_INTERVAL_MS } from "../../src/defaults.js";
import { sqliteDriver } from "../../src/storage/sqlite.js";
import { binaryValue, openDriver, storageKey, testDriver } from "./contract.js";
import { expectNoSecrets, foldMarkedAnswers } from "./secrets.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const dir = mkdtempSync(join(tmpdir(), "result-handles-sqlite-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const path = join(dir, "contract.sqlite");

testDriver({ name: "sqlite", driver: sqliteDriver, config: { sqlite: { path } }, persistent: true });

/** The file's storage behind the namespace wrapper, as a build opens it. */
const openSqliteStorage = (file: string, namespace: string) =>
  openDriver(sqliteDriver, { sqlite: { path: file } }, namespace);

describe("sqlite specifics", () => {
  it("uses WAL and keeps expires_at in milliseconds", async () => {
    const storage = await openSqliteStorage(path, "wal");
    const key = storageKey();
    const before = Date.now();
    await storage.set(key, binaryValue(3), 7);
    const raw = new Sqlite(path, { readonly: true });
    try {
      expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
      const row = raw.prepare("SELECT expires_at FROM result_handles WHERE key = ?").get(`wal:${key}`) as {
        expires_at: number;
      };
      expect(row.expires_at).toBeGreaterThanOrEqual(before + 7000);
      expect(row.expires_at).toBeLessThanOrEqual(Date.now() + 7000);
    } finally {
      raw.close();
      await storage.close();
    }
  });

  it("the sweep deletes expired rows without anyone reading them, and its timer stops at close", async () => {
    // The store's clock and timers are faked: its sweep runs every SWEEP_INTERVAL_MS.sqlite (a minute).
    vi.useFakeTimers({ toFake: ["Date", "setInterval", "clearInterval"] });
    const storage = await openSqliteStorage(path, "sweep");
    const expiring = storageKey();
    const lasting = storageKey();
    await storage.set(expiring, binaryValue(3), 1);
    await storage.set(lasting, binaryValue(3), 3600);
    const raw = new Sqlite(path, { readonly: true });
    const count = (key: string) =>
      (raw.prepare("SELECT count(*) AS n FROM result_handles WHERE key = ?").get(`sweep:${key}`) as { n: number }).n;
    try {
      expect(count(expiring)).toBe(1);
      vi.advanceTimersByTime(SWEEP_INTERVAL_MS.sqlite - 1);
      expect(count(expiring)).toBe(1); // expired, but no sweep ran yet
      vi.advanceTimersByTime(1);
      expect(count(expiring)).toBe(0);
      expect(count(lasting)).toBe(1);
      await storage.close();
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      raw.close();
      vi.useRealTimers();
    }
  });

  it("S9.6 another process on the same file reads what this one wrote, and the other way round", async () => {
    const file = join(dir, "shared.sqlite");
    const mine = await openSqliteStorage(file, "shared");
    const key = storageKey();
    await mine.set(key, binaryValue(200), 60);
    const script = `
      import { nodeRuntime } from "./src/runtimes/node/runtime.ts";
      const config = { type: "sqlite", sqlite: { path: ${JSON.stringify(file)} }, timeoutMs: 3000 };
      const storage = await nodeRuntime.openStorage(config, "shared");
      const read = await storage.get(${JSON.stringify(key)});
      await storage.set("from-child", new Uint8Array([4, 2]), 60);
      await storage.close();
      console.log(read ? read.byteLength : "missing");`;
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: root,
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(child.stderr).toBe("");
    expect(child.stdout.trim()).toBe("200");
    expect(await mine.get("from-child")).toEqual(new Uint8Array([4, 2]));
    await mine.close();
  });

  it("S9.5 an unopenable path fails on first use, not at init", async () => {
    const plugin = ResultHandlesPlugin.init({
      storage: { type: "sqlite", sqlite: { path: join(dir, "missing-dir", "x.sqlite") } },
    });
    await expect(plugin.store()).rejects.toThrow(/directory does not exist|unable to open/i);
  });

  it("S8.3 the database file holds no handle, session, caller or marker after folds", async () => {
    const file = join(dir, "s83.sqlite");
    const plugin = ResultHandlesPlugin.init({
      thresholdBytes: 1024,
      storage: { type: "sqlite", sqlite: { path: file } },
    });
    const secrets = await foldMarkedAnswers(plugin, 4);
    const files = () =>
      readdirSync(dir)
        .filter((name) => name.startsWith("s83.sqlite"))
        .map((name) => ({ where: name, bytes: new Uint8Array(readFileSync(join(dir, name))) }));
    const open = files(); // the file, its -wal and -shm while in use
    // the sealed answers are in there
    expect(open.reduce((sum, f) => sum + f.bytes.byteLength, 0)).toBeGreaterThan(4 * 2000);
    expectNoSecrets(open, secrets);
    await plugin.onShutdown();
    expectNoSecrets(files(), secrets); // and after the WAL is checkpointed into the file at close
  });
});
