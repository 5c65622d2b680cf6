import type { OptionsRuntime, StorageConfig } from "./options.js";
import type { NamespacedStorage } from "./storage/types.js";

/** What a build (Node or page) supplies to the core: how to read options and how to open storage. */
export interface Runtime extends OptionsRuntime {
  openStorage(config: StorageConfig, namespace: string): Promise<NamespacedStorage>;
}
