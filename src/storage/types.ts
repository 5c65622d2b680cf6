/**
 * The one interface every backend implements (S9.0). Keys are the derived storage keys of S8.3; a store
 * that `init` opens gets them with the namespace prefix already applied (`withNamespace`), and a storage
 * passed bare to \`new ResultHandleStore\` applies it inside. An expired value never reads back.
 * Bytes pass without copying: a storage may keep the array it is given and hand it back as it is, so
 * neither side modifies an array after passing it.
 */
export interface NamespacedStorage {
  get(key: string): Promise<Uint8Array | undefined>;
  set(key: string, value: Uint8Array, ttlSeconds: number): Promise<void>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
  /**
   * Optional: stores the records of one answer together. An in-process storage that counts or drops
   * entries (the memory store, S9.3) should have it: it counts them as one answer, drops them together, and
   * refuses them together when they are larger than it may hold. Only an in-process storage may have it: a
   * storage elsewhere must not learn which keys belong to one answer (S8.5). Without it, each record goes
   * through `set`.
   *
   * `owner`: an opaque tag of the answer's owner (S26.5), the same for every answer of one owner in this
   * process and telling nothing of who it is (derived from the owner under a key drawn when the process
   * starts). A storage that evicts shares its room fairly among owners by it: one owner's answers never
   * push out another's while that one keeps within its share. Left out: all such answers count as one owner.
   */
  setTogether?(
    records: readonly { key: string; value: Uint8Array }[],
    ttlSeconds: number,
    owner?: string,
  ): Promise<void>;
}
