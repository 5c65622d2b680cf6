import { ResultHandlesConfigurationError } from "./errors.js";
import { resolveOptions, type ResolvedStorageConfig, type StorageConfig } from "./options.js";
import type { Runtime } from "./runtime.js";
import { withinTimeout, withTimeout } from "./storage/timeout.js";
import { ResultHandleStore } from "./store.js";

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

/** `createResultHandleStore` (S2): all three options are required and checked like `init`'s. */
export async function openResultHandleStore(runtime: Runtime, options: CreateResultHandleStoreOptions): Promise<ResultHandleStore> {
  const given = (options ?? {}) as Partial<CreateResultHandleStoreOptions>;
  const missing = (["storage", "namespace", "ttlSeconds"] as const).filter((key) => given[key] === undefined);
  if (missing.length > 0) throw new ResultHandlesConfigurationError(missing.map((path) => ({ path, message: "required" })));
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
  return new ResultHandleStore(withTimeout(storage, config.timeoutMs), ttlSeconds);
}
