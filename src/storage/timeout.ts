import { StoreTimeoutError } from "../errors.js";
import type { NamespacedStorage } from "./types.js";

/** Bounds a promise so a hung store cannot hang a tool call (S9.1). */
export function withinTimeout<T>(promise: Promise<T>, ms: number, operation: string, message?: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreTimeoutError(operation, ms, message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * A write bounded by `bound`: when the bound gives up on it first, the records it wrote once it ends are
 * deleted again (S26.3), so nothing is kept for an answer that was sent whole meanwhile. A storage whose
 * connection keeps order (Redis) deletes right behind the write; others once the write has ended.
 */
function boundedWrite(
  storage: NamespacedStorage,
  keys: readonly string[],
  writing: Promise<void>,
  bound: (writing: Promise<void>) => Promise<void>,
): Promise<void> {
  return bound(writing).catch((error: unknown) => {
    if (error instanceof StoreTimeoutError) {
      const undo = () => void Promise.allSettled(keys.map((key) => storage.delete(key)));
      undo(); // at once: queued behind the write where the storage keeps order
      writing.then(undo, () => {}); // and once the write has ended, if it did
    }
    throw error;
  });
}

/** The same storage, with every call bounded by `ms` (S9.1); a write that ends later is undone (S26.3). */
export function withTimeout(storage: NamespacedStorage, ms: number): NamespacedStorage {
  const bound =
    <T>(operation: string) =>
    (promise: Promise<T>) =>
      withinTimeout(promise, ms, operation);
  return {
    get: (key) => withinTimeout(storage.get(key), ms, "get"),
    set: (key, value, ttl) => boundedWrite(storage, [key], storage.set(key, value, ttl), bound("set")),
    delete: (key) => withinTimeout(storage.delete(key), ms, "delete"),
    close: () => withinTimeout(storage.close(), ms, "close"),
    ...(storage.setTogether && {
      setTogether: (records, ttl, owner) =>
        boundedWrite(
          storage,
          records.map((record) => record.key),
          storage.setTogether!(records, ttl, owner),
          bound("set"),
        ),
    }),
  };
}

/**
 * What one tool call has waited for its stores (S26.3): the time during which at least one of its store
 * calls was under way, across every store, piece and reference it reads. Work between store calls (a
 * filter evaluating a batch) does not count: the cost meter bounds that (S21.1).
 */
export class StoreCall {
  private spent = 0;
  private pending = 0;
  private since = 0;

  /** Milliseconds waited so far. */
  waited(): number {
    return this.spent + (this.pending > 0 ? Date.now() - this.since : 0);
  }

  /** Runs `promise` as one of this call's store calls: counted while under way. */
  track<T>(promise: Promise<T>): Promise<T> {
    if (this.pending++ === 0) this.since = Date.now();
    const end = () => {
      if (--this.pending === 0) this.spent += Date.now() - this.since;
    };
    promise.then(end, end);
    return promise;
  }
}

/**
 * The same storage for the store calls of one tool call (S26.3): together they wait at most `deadlineMs`
 * (`call` counts what was waited), whatever `timeoutMs` each may take; once it is spent, a store call
 * fails at once. A write it gives up on is undone when it ends, as with the timeout. Deletes pass as they
 * are: they undo writes.
 */
export function withinDeadline(storage: NamespacedStorage, call: StoreCall, deadlineMs: number): NamespacedStorage {
  const message = (operation: string) =>
    `this tool call has waited ${deadlineMs} ms for its store in all (storage deadlineMs); ${operation} not done`;
  const refused = (operation: string) => Promise.reject(new StoreTimeoutError(operation, 0, message(operation)));
  const left = () => deadlineMs - call.waited();
  const bound =
    <T>(operation: string) =>
    (promise: Promise<T>): Promise<T> =>
      withinTimeout(call.track(promise), Math.max(1, left()), operation, message(operation));
  return {
    get: (key) => (left() <= 0 ? refused("get") : bound<Uint8Array | undefined>("get")(storage.get(key))),
    set: (key, value, ttl) =>
      left() <= 0 ? refused("set") : boundedWrite(storage, [key], storage.set(key, value, ttl), bound("set")),
    delete: (key) => storage.delete(key),
    close: () => storage.close(),
    ...(storage.setTogether && {
      setTogether: (records, ttl, owner) =>
        left() <= 0
          ? refused("set")
          : boundedWrite(
              storage,
              records.map((record) => record.key),
              storage.setTogether!(records, ttl, owner),
              bound("set"),
            ),
    }),
  };
}
