import { ResultHandlesError } from "../errors.js";
import { memoryLimits, type StorageConfig } from "../options.js";
import type { Runtime } from "../runtime.js";
import { MemoryStorage } from "../storage/memory.js";
import type { NamespacedStorage } from "../storage/types.js";

/** A page has memory (and IndexedDB); `auto` means memory there (S9.2). Server stores are refused at init (S9.4). */
async function openStorage(config: StorageConfig, namespace: string): Promise<NamespacedStorage> {
  if (config.type === "memory" || config.type === "auto") return new MemoryStorage(namespace, memoryLimits(config));
  throw new ResultHandlesError("STORAGE_UNAVAILABLE", `storage type "${config.type}" is not in this release's page build yet; use { type: "memory" }`);
}

export const browserRuntime: Runtime = { kind: "browser", env: () => undefined, openStorage };
