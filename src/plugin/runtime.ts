import { ResultHandlesError } from "../errors.js";
import type {
  ResolvedStorageConfig,
  RuntimeKind,
  StorageCatalog,
  StorageEnvironment,
  StorageSetting,
} from "../storage/config.js";
import { withNamespace } from "../storage/namespace.js";
import type { NamespacedStorage } from "../storage/types.js";
import type { CryptoBackend } from "../records/crypto/backend.js";
import type { BatchWorkers } from "../query/workers/pool.js";
import type { SealThread } from "../records/crypto/seal-thread.js";
import { useUtf8Codec, type Utf8Codec } from "../util/utf8.js";

/**
 * What a build (Node, page) supplies to the core: where it runs, its environment, its storage drivers, and how it opens
 * them.
 */
export interface Runtime extends StorageEnvironment {
  /** The storage drivers it opens; left out (a runtime made by hand), memory and custom storage. */
  readonly storage?: StorageCatalog;
  openStorage(config: ResolvedStorageConfig, namespace: string): Promise<NamespacedStorage>;
  /** The crypto backend stores of this build seal with (S8.4); WebCrypto when left out. */
  readonly crypto?: CryptoBackend;
  /** Threads that count filters' batches (S14.6), shared by the build's plugin instances; none when left out. */
  workers?(): BatchWorkers | undefined;
  /**
   * The thread its stores seal pieces on while a fold serialises (S21.7), shared by the build's stores; none when left
   * out.
   */
  sealThread?(): SealThread | undefined;
}

/** What else differs per build: how it seals (S8.4), whether it has batch workers (S14.6), its UTF-8 codec. */
interface RuntimeParts {
  /** What its stores seal with; WebCrypto when left out. */
  readonly crypto?: CryptoBackend;
  /** Starts the build's batch workers, once, on first use; none when left out. */
  readonly startWorkers?: () => BatchWorkers | undefined;
  /** A faster UTF-8 codec than the Web platform's, used by the whole core from the runtime's definition on. */
  readonly codec?: Utf8Codec;
  /** Makes the build's seal thread, once, when the first store opens; none when left out. */
  readonly startSealThread?: () => SealThread | undefined;
}

/**
 * A build's runtime from its catalog of drivers. Every store it opens gets the namespace through the
 * one wrapper (S9.0, S17.3); no driver applies it itself.
 */
export function defineRuntime(
  kind: RuntimeKind,
  env: (name: string) => string | undefined,
  storage: StorageCatalog,
  { crypto, startWorkers, codec, startSealThread }: RuntimeParts = {},
): Runtime & StorageSetting {
  if (codec) useUtf8Codec(codec);
  let workers: BatchWorkers | undefined;
  let sealThread: { thread: SealThread | undefined } | undefined;
  return {
    kind,
    env,
    storage,
    crypto,
    workers: startWorkers && (() => (workers ??= startWorkers())), // made on first use, once per build
    sealThread: startSealThread && (() => (sealThread ??= { thread: startSealThread() }).thread),
    async openStorage(config, namespace) {
      const driver = storage.drivers.find((candidate) => candidate.type === config.type);
      // Options are checked against the same catalog at init, so only a hand-made config gets here.
      if (!driver)
        throw new ResultHandlesError("STORAGE_UNAVAILABLE", `storage type "${config.type}" does not run in this build`);
      return withNamespace(await driver.open(config), namespace);
    },
  };
}
