// The one contract every storage backend keeps (S9.0, S9.3), shaped like unstorage's testDriver: each
// backend's test file calls testStorage with a way to open it, against a real server, file or database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NamespacedStorage } from "mcp-result-handles";
import type { AnyStorageDriver, StorageEnvironment } from "../../src/storage/driver.js";
import { withNamespace } from "../../src/storage/namespace.js";

export interface StorageContext {
  /** The storage under test, opened in `namespace`. */
  readonly storage: NamespacedStorage;
  readonly namespace: string;
}

export interface TestStorageOptions {
  name: string;
  /** Opens the backend in a namespace; persistent backends reach the same data for the same namespace. */
  open: (namespace: string) => Promise<NamespacedStorage>;
  /** The data outlives `close()`: a new instance reads what a closed one wrote. */
  persistent?: boolean;
  /** More tests against the same open storage. */
  additionalTests?: (context: () => StorageContext) => void;
}

/** A derived storage key, as the store hands them over (S8.3): 64 hex digits. */
export function storageKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** `size` bytes covering every byte value, in an order no two sizes share. */
export function binaryValue(size: number): Uint8Array {
  const value = new Uint8Array(size);
  for (let offset = 0; offset < size; offset += 65536)
    crypto.getRandomValues(value.subarray(offset, Math.min(size, offset + 65536)));
  for (let i = 0; i < Math.min(size, 256); i++) value[i] = i; // 0x00 … 0xff, NUL and invalid UTF-8 included
  return value;
}

/** Byte equality without toEqual, which is very slow on megabytes; runs in pages too (no Buffer). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

const inPage = typeof window === "object";
const noEnvironment: StorageEnvironment = { kind: inPage ? "browser" : "node", env: () => undefined };

/**
 * Opens a driver as a build does: its config resolved (defaults applied), opened, and behind the one
 * namespace wrapper. `block` is the config beside `type`, such as `{ redis: { url } }`.
 */
export async function openDriver(
  driver: AnyStorageDriver,
  block: object,
  namespace: string,
  timeoutMs = 3000,
): Promise<NamespacedStorage> {
  const resolved = driver.resolve({ type: driver.type, ...block }, noEnvironment);
  return withNamespace(await driver.open({ ...resolved, timeoutMs }), namespace);
}

/**
 * The contract run over a driver: a new backend's test is this call and what is special about it.
 * `config` (its block beside `type`) may be a function, for a server the test starts in `beforeAll`.
 */
export function testDriver({
  driver,
  config,
  ...rest
}: Omit<TestStorageOptions, "open"> & { driver: AnyStorageDriver; config: object | (() => object) }): void {
  testStorage({
    ...rest,
    open: (namespace) => openDriver(driver, typeof config === "function" ? config() : config, namespace),
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function testStorage(options: TestStorageOptions): void {
  describe(`S9.0 storage contract: ${options.name}`, () => {
    const namespace = `contract-${storageKey().slice(0, 8)}`;
    let storage: NamespacedStorage;
    const context = () => ({ storage, namespace });

    beforeAll(async () => {
      storage = await options.open(namespace);
    });
    afterAll(async () => {
      await storage?.close();
    });

    it("set then get returns the same bytes; a key never set reads as undefined", async () => {
      const key = storageKey();
      const value = binaryValue(1000);
      await storage.set(key, value, 60);
      expect(await storage.get(key)).toEqual(value);
      expect(await storage.get(storageKey())).toBeUndefined();
    });

    it("delete removes a value; deleting a missing key is not an error", async () => {
      const key = storageKey();
      await storage.set(key, binaryValue(10), 60);
      await storage.delete(key);
      expect(await storage.get(key)).toBeUndefined();
      await expect(storage.delete(storageKey())).resolves.toBeUndefined();
    });

    it("overwrite replaces the value, also with a shorter one", async () => {
      const key = storageKey();
      await storage.set(key, binaryValue(5000), 60);
      const shorter = new Uint8Array([9, 8, 7]);
      await storage.set(key, shorter, 60);
      expect(await storage.get(key)).toEqual(shorter);
    });

    it.each([0, 1, 255, 256, 4097, 65_537, 1024 * 1024, 4 * 1024 * 1024])(
      "binary round trip of %i bytes",
      async (size) => {
        const key = storageKey();
        const value = binaryValue(size);
        await storage.set(key, value, 60);
        const read = await storage.get(key);
        expect(read).toBeInstanceOf(Uint8Array);
        expect(read!.byteLength).toBe(size);
        expect(sameBytes(read!, value)).toBe(true);
      },
    );

    it(
      "a view into a larger buffer keeps only its own bytes (a " + "piece is stored as a view of the cipher's output)",
      async () => {
        const key = storageKey();
        const whole = binaryValue(70_000);
        const view = whole.subarray(13, 13 + 65_537);
        await storage.set(key, view, 60);
        const read = await storage.get(key);
        expect(read!.byteLength).toBe(view.byteLength);
        expect(sameBytes(read!, whole.slice(13, 13 + 65_537))).toBe(true);
      },
    );

    it(
      "S9.0 S9.3 expiry is kept to the millisecond: never early, " + "and gone right after the TTL, not a second later",
      async () => {
        // The store's clock (Date.now in Node's stores, Redis's own) against this test's performance.now: on a
        // loaded 2-core VM they part by more than the 5 ms this allowed once (the wall clock is slewed, timers
        // coarsen). 50 ms still tells a store that keeps the TTL from one that rounds it to whole seconds.
        const CLOCKS_MS = 50;
        const key = storageKey();
        const lasting = storageKey();
        await storage.set(lasting, binaryValue(4), 60);
        const before = performance.now();
        await storage.set(key, binaryValue(4), 1);
        const after = performance.now();
        let seen = false;
        let goneAt: number | undefined;
        await sleep(Math.max(0, before + 800 - performance.now()));
        // Polls until 400 ms past the TTL: a store that rounds expiry up to whole seconds still holds it then.
        while (performance.now() < after + 1400) {
          const started = performance.now();
          const value = await storage.get(key);
          const ended = performance.now();
          if (value) {
            // Still there: this read began before the TTL ran out after the set ended.
            expect(started).toBeLessThanOrEqual(after + 1000 + CLOCKS_MS);
            seen = true;
          } else {
            // Gone: this read ended after the TTL counted from when the set began.
            expect(ended).toBeGreaterThanOrEqual(before + 1000 - CLOCKS_MS);
            goneAt ??= ended;
          }
          await sleep(20);
        }
        expect(seen).toBe(true);
        expect(goneAt).toBeDefined();
        expect(await storage.get(lasting)).toEqual(binaryValue(4));
      },
    );

    it("S9.0 applies its namespace inside: another namespace never sees the keys", async () => {
      const key = storageKey();
      await storage.set(key, binaryValue(8), 60);
      const other = await options.open(`${namespace}-other`);
      try {
        expect(await other.get(key)).toBeUndefined();
        await other.set(key, new Uint8Array([1]), 60);
        expect(await storage.get(key)).toEqual(binaryValue(8));
      } finally {
        await other.close();
      }
    });

    const reopened = options.persistent ? ", and a new instance reads what the closed one wrote" : "";
    it(`close resolves${reopened}`, async () => {
      const second = await options.open(namespace);
      const key = storageKey();
      await second.set(key, binaryValue(16), 60);
      await expect(second.close()).resolves.toBeUndefined();
      if (options.persistent) expect(await storage.get(key)).toEqual(binaryValue(16));
      const third = await options.open(namespace);
      if (options.persistent) expect(await third.get(key)).toEqual(binaryValue(16));
      await third.close();
    });

    options.additionalTests?.(context);
  });
}
