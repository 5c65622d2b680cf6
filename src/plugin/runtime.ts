import { ResultHandlesError } from "../errors.js";
import type { ResolvedStorageConfig, RuntimeKind, StorageCatalog, StorageEnvironment, StorageSetting } from "../storage/config.js";
import { withNamespace } from "../storage/namespace.js";
import type { NamespacedStorage } from "../storage/types.js";
import type { CryptoBackend } from "../records/crypto/backend.js";
import type { BatchWorkers } from "../query/workers/pool.js";

/** What a build (Node, page) supplies to the core: where it runs, its environment, its storage drivers, and how it opens them. */
export interface Runtime extends StorageEnvironment {
  /** The storage drivers it opens; left out (a runtime made by hand), memory and custom storage. */
  readonly storage?: StorageCatalog;
  openStorage(config: ResolvedStorageConfig, namespace: string): Promise<NamespacedStorage>;
  /** The crypto backend stores of this build seal with (S8.4); WebCrypto when left out. */
  readonly crypto?: CryptoBackend;
  /** Threads that count filters' batches (S14.6), shared by the build's plugin instances; none when left out. */
  workers?(): BatchWorkers | undefined;
}

/**
 * A build's runtime from its catalog of drivers. Every store it opens gets the namespace through the
 * one wrapper (S9.0, S17.3); no driver applies it itself. `crypto` is what its stores seal with (S8.4).
 */
export function defineRuntime(
  kind: RuntimeKind,
  env: (name: string) => string | undefined,
  storage: StorageCatalog,
  crypto?: CryptoBackend,
  startWorkers?: () => BatchWorkers | undefined,
): Runtime & StorageSetting {
  let workers: BatchWorkers | undefined;
  return {
    kind,
    env,
    storage,
    crypto,
    workers: startWorkers && (() => (workers ??= startWorkers())), // made on first use, once per build
    async openStorage(config, namespace) {
      const driver = storage.drivers.find((candidate) => candidate.type === config.type);
      // Options are checked against the same catalog at init, so only a hand-made config gets here.
      if (!driver) throw new ResultHandlesError("STORAGE_UNAVAILABLE", `storage type "${config.type}" does not run in this build`);
      return withNamespace(await driver.open(config), namespace);
    },
  };
}
