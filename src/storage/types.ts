/**
 * The one interface every backend implements (S9.0). Keys are the derived storage keys of S8.3; the
 * namespace prefix is applied inside the storage. An expired value never reads back.
 * Bytes pass without copying: a storage may keep the array it is given and hand it back as it is, so
 * neither side modifies an array after passing it.
 */
export interface NamespacedStorage {
  get(key: string): Promise<Uint8Array | undefined>;
  set(key: string, value: Uint8Array, ttlSeconds: number): Promise<void>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
  /**
   * True for a storage that drops its oldest records to make room (the memory store): after storing an
   * answer in several records the store then reads the first back, in case the others pushed it out.
   * Other storages are spared that read (a round trip on a remote one).
   */
  readonly evictsOldest?: boolean;
}

export function namespacedKey(namespace: string, key: string): string {
  return `${namespace}:${key}`;
}
