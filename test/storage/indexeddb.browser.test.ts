// IndexedDB through idb-keyval inside Chromium (browser project): the contract, expiry on read, S8.3 on raw records.
import { describe, expect, it } from "vitest";
import { ResultHandlesConfigToken, ResultHandlesPlugin } from "mcp-result-handles";
import { indexedDbDriver } from "../../src/storage/indexeddb.js";
import { binaryValue, openDriver, storageKey, testDriver } from "./contract.js";
import { expectNoSecrets, foldMarkedAnswers } from "./secrets.js";

const database = `contract-${crypto.randomUUID()}`;
testDriver({ name: "indexeddb", driver: indexedDbDriver, config: { indexeddb: { database } }, persistent: true });

/** The database's storage behind the namespace wrapper, as the page build opens it. */
const openIndexedDbStorage = (name: string, namespace: string) =>
  openDriver(indexedDbDriver, { indexeddb: { database: name } }, namespace);

/** Every record of a database, read with the plain IndexedDB API: what anyone with the page's origin sees. */
async function rawRecords(name: string): Promise<{ key: IDBValidKey; value: unknown }[]> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const request = indexedDB.open(name);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  try {
    const objects = db.transaction("answers", "readonly").objectStore("answers");
    const [keys, values] = await Promise.all(
      [objects.getAllKeys(), objects.getAll()].map(
        (request) =>
          new Promise<unknown[]>(
            (resolve, reject) => (
              (request.onsuccess = () => resolve(request.result)),
              (request.onerror = () => reject(request.error))
            ),
          ),
      ),
    );
    return keys!.map((key, i) => ({ key: key as IDBValidKey, value: values![i] }));
  } finally {
    db.close();
  }
}

describe("indexeddb specifics", () => {
  it("an expired record does not read back and is removed from the database", async () => {
    const name = `expiry-${crypto.randomUUID()}`;
    const storage = await openIndexedDbStorage(name, "ns");
    const key = storageKey();
    await storage.set(key, binaryValue(5), 1);
    expect(await rawRecords(name)).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 1050));
    expect(await storage.get(key)).toBeUndefined();
    expect(await rawRecords(name)).toHaveLength(0);
    await storage.close();
  });

  it("records left expired by an earlier page load are swept when the store opens", async () => {
    const name = `sweep-${crypto.randomUUID()}`;
    const first = await openIndexedDbStorage(name, "ns");
    await first.set(storageKey(), binaryValue(5), 1);
    await first.set(storageKey(), binaryValue(5), 60);
    await first.close();
    await new Promise((resolve) => setTimeout(resolve, 1050));
    const second = await openIndexedDbStorage(name, "ns");
    expect(await rawRecords(name)).toHaveLength(1);
    await second.close();
  });

  it("S9.1 the plugin opens indexeddb in its own database, by default mcp-result-handles", async () => {
    expect(ResultHandlesPlugin.init({ storage: { type: "indexeddb" } }).get(ResultHandlesConfigToken).storage).toEqual({
      type: "indexeddb",
      indexeddb: { database: "mcp-result-handles" },
      timeoutMs: 3000,
      deadlineMs: 1500, // S26.3: storage.deadlineMs, whatever timeoutMs is below it
    });
  });

  it("S8.3 the records hold no handle, session, caller or marker after folds", async () => {
    const name = `s83-${crypto.randomUUID()}`;
    const plugin = ResultHandlesPlugin.init({
      thresholdBytes: 1024,
      storage: { type: "indexeddb", indexeddb: { database: name } },
    });
    const secrets = await foldMarkedAnswers(plugin, 3);
    await plugin.onShutdown();
    const records = await rawRecords(name);
    expect(records.length).toBeGreaterThanOrEqual(3);
    const blobs = records.flatMap(({ key, value }) => {
      const row = value as { value: Uint8Array; expiresAt: number };
      expect(row.value).toBeInstanceOf(Uint8Array);
      return [
        { where: `key ${String(key)}`, bytes: new TextEncoder().encode(String(key)) },
        { where: `value of ${String(key)}`, bytes: row.value },
      ];
    });
    expectNoSecrets(blobs, secrets);
  });
});
