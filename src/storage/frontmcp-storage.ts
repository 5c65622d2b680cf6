/**
 * S22.3: a storage that FrontMCP's `@frontmcp/utils` `createStorage()` opened (memory, Redis, …), namespaced
 * or not, as this package's `NamespacedStorage`: FrontMCP's storages hold strings, so records travel as
 * base64 (as they do over REST stores, S9), with the same derived keys and encryption as every store (S8.3).
 */
import type { Base64Codec } from "./base64.js";
import type { NamespacedStorage } from "./types.js";

/** The members of FrontMCP's `StorageAdapter` / `NamespacedStorage` (1.5.2) used here. */
export interface FrontMcpStorageLike {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, options?: { ttlSeconds?: number }): Promise<void>;
  delete(key: string): Promise<unknown>;
  disconnect(): Promise<void>;
}

/** Whether a storage is FrontMCP's (string values, `disconnect`) rather than this package's (bytes, `close`). */
export function isFrontMcpStorage(storage: object): storage is FrontMcpStorageLike {
  const candidate = storage as Partial<FrontMcpStorageLike> & { close?: unknown };
  return (
    typeof candidate.disconnect === "function" &&
    typeof candidate.close !== "function" &&
    typeof candidate.get === "function"
  );
}

export function fromFrontMcpStorage(storage: FrontMcpStorageLike, base64: Base64Codec): NamespacedStorage {
  return {
    async get(key) {
      const text = await storage.get(key);
      return text === null || text === undefined ? undefined : base64.decode(text);
    },
    set: (key, value, ttlSeconds) => storage.set(key, base64.encode(value), { ttlSeconds }),
    async delete(key) {
      await storage.delete(key);
    },
    close: () => storage.disconnect(),
  };
}
