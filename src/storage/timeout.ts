import { StoreTimeoutError } from "../errors.js";
import type { NamespacedStorage } from "./types.js";

/** Bounds a promise so a hung store cannot hang a tool call (S9.1). */
export function withinTimeout<T>(promise: Promise<T>, ms: number, operation: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreTimeoutError(operation, ms)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The same storage, with every call bounded by `ms`. */
export function withTimeout(storage: NamespacedStorage, ms: number): NamespacedStorage {
  return {
    get: (key) => withinTimeout(storage.get(key), ms, "get"),
    set: (key, value, ttl) => withinTimeout(storage.set(key, value, ttl), ms, "set"),
    delete: (key) => withinTimeout(storage.delete(key), ms, "delete"),
    close: () => withinTimeout(storage.close(), ms, "close"),
    ...(storage.setTogether && { setTogether: (records, ttl) => withinTimeout(storage.setTogether!(records, ttl), ms, "set") }),
  };
}
