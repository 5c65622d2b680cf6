import { MemoryStore, type MemoryStorageOptions } from "./memory.js";
import { namespacedKey } from "./namespace.js";

/**
 * The memory backend used bare, as the namespaced storage `new ResultHandleStore` takes (S2, S9.0): it
 * applies its namespace inside, by the same key rule as the wrapper every opened store has.
 */
export class MemoryStorage extends MemoryStore {
  constructor(
    private readonly namespace: string,
    options: MemoryStorageOptions = {},
  ) {
    super(options);
  }

  override get(key: string): Promise<Uint8Array | undefined> {
    return super.get(namespacedKey(this.namespace, key));
  }
  override set(key: string, value: Uint8Array, ttlSeconds: number): Promise<void> {
    return super.set(namespacedKey(this.namespace, key), value, ttlSeconds);
  }
  override setTogether(
    records: readonly { key: string; value: Uint8Array }[],
    ttlSeconds: number,
    owner?: string,
  ): Promise<void> {
    return super.setTogether(
      records.map(({ key, value }) => ({ key: namespacedKey(this.namespace, key), value })),
      ttlSeconds,
      owner,
    );
  }
  override delete(key: string): Promise<void> {
    return super.delete(namespacedKey(this.namespace, key));
  }
}
