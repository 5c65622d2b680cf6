import { deriveHandleKeys, isUuidV4, openRecord, sealRecord, type Owner } from "./crypto.js";
import { ResultHandlesConfigurationError, ResultQueryError } from "./errors.js";
import { toJsonBytes } from "./size.js";
import type { NamespacedStorage } from "./storage/types.js";

const decoder = new TextDecoder();

/**
 * Keeps folded answers, encrypted, for `ttlSeconds` (S2, S8). Handles and owners never reach the
 * storage: only derived keys and sealed records do.
 */
export class ResultHandleStore {
  constructor(
    private readonly storage: NamespacedStorage,
    readonly ttlSeconds: number,
  ) {
    if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1) {
      throw new ResultHandlesConfigurationError([{ path: "ttlSeconds", message: "must be a positive whole number" }]);
    }
  }

  /** A new random UUID v4, never derived from the answer (S8.2). */
  newHandle(): string {
    return globalThis.crypto.randomUUID();
  }

  async save(handle: string, value: unknown, owner: Owner): Promise<void> {
    await this.saveJson(handle, toJsonBytes(value), owner);
  }

  /** `save` for a value already measured as UTF-8 JSON, so a fold serializes its answer once. */
  async saveJson(handle: string, json: Uint8Array, owner: Owner): Promise<void> {
    if (!isUuidV4(handle)) throw new ResultQueryError("INVALID_INPUT", "handle must be a UUID v4 from newHandle()");
    const keys = await deriveHandleKeys(handle, owner);
    const record = await sealRecord(keys, json, Date.now() + this.ttlSeconds * 1000);
    await this.storage.set(keys.storageKey, record, this.ttlSeconds);
  }

  /** The value saved for this handle and owner; missing, expired, tampered and foreign handles read as undefined. */
  async read(handle: string, owner: Owner): Promise<{ value: unknown } | undefined> {
    if (!isUuidV4(handle)) return undefined;
    const keys = await deriveHandleKeys(handle, owner);
    const record = await this.storage.get(keys.storageKey);
    if (!record) return undefined;
    const plain = await openRecord(keys, record, Date.now());
    if (!plain) return undefined;
    return { value: JSON.parse(decoder.decode(plain)) };
  }

  async onShutdown(): Promise<void> {
    await this.storage.close();
  }
}
