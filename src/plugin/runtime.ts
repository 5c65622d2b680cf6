import { ResultHandlesError } from "../errors.js";
import type { ResolvedStorageConfig, RuntimeKind, StorageCatalog, StorageEnvironment, StorageSetting } from "../storage/config.js";
import { withNamespace } from "../storage/namespace.js";
import type { NamespacedStorage } from "../storage/types.js";
import type { CryptoBackend } from "../records/crypto.js";

/** What a build (Node, page) supplies to the core: where it runs, its environment, its storage drivers, and how it opens them. */
export interface Runtime extends StorageEnvironment {
  /** The storage drivers it opens; left out (a runtime made by hand), memory and custom storage. */
  readonly storage?: StorageCatalog;
  openStorage(config: ResolvedStorageConfig, namespace: string): Promise<NamespacedStorage>;
  /** The encryption a build pins (the edge build: WebCrypto, S17.1); else `node:crypto` where it exists, else WebCrypto. */
  readonly crypto?: CryptoBackend;
}

/**
 * A build's runtime from its catalog of drivers. Every store it opens gets the namespace through the
 * one wrapper (S9.0, S17.3); no driver applies it itself.
 */
export function defineRuntime(
  kind: RuntimeKind,
  env: (name: string) => string | undefined,
  storage: StorageCatalog,
  pinned: { crypto?: CryptoBackend } = {},
): Runtime & StorageSetting {
  return {
    kind,
    env,
    storage,
    ...pinned,
    async openStorage(config, namespace) {
      const driver = storage.drivers.find((candidate) => candidate.type === config.type);
      // Options are checked against the same catalog at init, so only a hand-made config gets here.
      if (!driver) throw new ResultHandlesError("STORAGE_UNAVAILABLE", `storage type "${config.type}" does not run in this build`);
      return withNamespace(await driver.open(config), namespace);
    },
  };
}
