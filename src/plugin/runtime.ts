import { ResultHandlesError } from "../errors.js";
import type { ResolvedStorageConfig, RuntimeKind, StorageEnvironment, StorageTypeIn } from "../storage/config.js";
import type { NamespacedStorage } from "../storage/types.js";
import type { CryptoBackend } from "../records/crypto.js";

/** What a build (Node or page) supplies to the core: where it runs, its environment, and how it opens storage. */
export interface Runtime extends StorageEnvironment {
  openStorage(config: ResolvedStorageConfig, namespace: string): Promise<NamespacedStorage>;
  /** The encryption a build pins (the edge build: WebCrypto, S17.1); else `node:crypto` where it exists, else WebCrypto. */
  readonly crypto?: CryptoBackend;
}

/** One opener for each storage type the table of storage types lets this build run: leaving one out is a type error. */
export type StorageOpeners<K extends RuntimeKind> = {
  [T in StorageTypeIn<K>]: (config: Extract<ResolvedStorageConfig, { type: T }>, namespace: string) => Promise<NamespacedStorage>;
};

/** A build's runtime from its openers. */
export function defineRuntime<K extends RuntimeKind>(
  kind: K,
  env: (name: string) => string | undefined,
  openers: StorageOpeners<K>,
  pinned: { crypto?: CryptoBackend } = {},
): Runtime {
  const table: Partial<Record<string, (config: never, namespace: string) => Promise<NamespacedStorage>>> = openers;
  return {
    kind,
    env,
    ...pinned,
    async openStorage(config, namespace) {
      const open = table[config.type];
      // Options are checked against the same table at init, so only a hand-made config gets here.
      if (!open) throw new ResultHandlesError("STORAGE_UNAVAILABLE", `storage type "${config.type}" does not run in this build`);
      return open(config as never, namespace);
    },
  };
}
