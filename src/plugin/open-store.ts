import { ResultHandlesConfigurationError } from "../errors.js";
import { resolveOptions, type ResolvedStorageConfig, type StorageConfig } from "./options.js";
import type { Runtime } from "./runtime.js";
import { withinTimeout, withTimeout } from "../storage/timeout.js";
import { ResultHandleStore } from "../records/store.js";

export interface CreateResultHandleStoreOptions {
  storage: StorageConfig;
  namespace: string;
  ttlSeconds: number;
}

/** What opening a store needs, already checked and resolved. */
export interface ResolvedStoreOptions {
  readonly storage: ResolvedStorageConfig;
  readonly namespace: string;
  readonly ttlSeconds: number;
}

const STORE_OPTIONS = ["storage", "namespace", "ttlSeconds"] as const;

/**
 * `createResultHandleStore` (S2): all three options are required, no other is taken (an `init` option
 * such as `thresholdBytes` here is a mistake, not something to check as a threshold), and each is checked
 * like `init`'s.
 */
export async function openResultHandleStore(runtime: Runtime, options: CreateResultHandleStoreOptions): Promise<ResultHandleStore> {
  const given = (options ?? {}) as Partial<CreateResultHandleStoreOptions>;
  const missing = STORE_OPTIONS.filter((key) => given[key] === undefined).map((path) => ({ path, message: "required" }));
  const unknown = Object.keys(given)
    .filter((key) => !(STORE_OPTIONS as readonly string[]).includes(key))
    .map((path) => ({ path, message: "unknown option: createResultHandleStore takes storage, namespace and ttlSeconds" }));
  if (missing.length + unknown.length > 0) throw new ResultHandlesConfigurationError([...missing, ...unknown]);
  return openStore(runtime, resolveOptions(options, runtime));
}

/** Opens the storage of a resolved config, with every call bounded by its `timeoutMs` (S9.1). */
export async function openStore(runtime: Runtime, { storage: config, namespace, ttlSeconds }: ResolvedStoreOptions): Promise<ResultHandleStore> {
  const opening = runtime.openStorage(config, namespace);
  const storage = await withinTimeout(opening, config.timeoutMs, "open").catch((error: unknown) => {
    // An open that finishes after its deadline must not leave a connection or a timer behind.
    opening.then((late) => late.close()).catch(() => {});
    throw error;
  });
  return new ResultHandleStore(withTimeout(storage, config.timeoutMs), ttlSeconds, runtime.crypto ? { crypto: runtime.crypto } : {});
}
