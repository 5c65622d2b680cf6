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
}

export function namespacedKey(namespace: string, key: string): string {
  return `${namespace}:${key}`;
}
