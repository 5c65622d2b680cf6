import { ResultHandlesConfigurationError } from "./errors.js";
import { resolveOptions, storageTimeoutMs, type StorageConfig } from "./options.js";
import type { Runtime } from "./runtime.js";
import { withinTimeout, withTimeout } from "./storage/timeout.js";
import { ResultHandleStore } from "./store.js";

export interface CreateResultHandleStoreOptions {
  storage: StorageConfig;
  namespace: string;
  ttlSeconds: number;
}

/** Opens a store outside any plugin (S2). All three options are required and checked like `init`'s. */
export async function openResultHandleStore(runtime: Runtime, options: CreateResultHandleStoreOptions): Promise<ResultHandleStore> {
  const given = (options ?? {}) as Partial<CreateResultHandleStoreOptions>;
  const missing = (["storage", "namespace", "ttlSeconds"] as const).filter((key) => given[key] === undefined);
  if (missing.length > 0) throw new ResultHandlesConfigurationError(missing.map((path) => ({ path, message: "required" })));
  const config = resolveOptions(options, runtime);
  const timeoutMs = storageTimeoutMs(config.storage);
  const storage = await withinTimeout(runtime.openStorage(config.storage, config.namespace), timeoutMs, "open");
  return new ResultHandleStore(withTimeout(storage, timeoutMs), config.ttlSeconds);
}
