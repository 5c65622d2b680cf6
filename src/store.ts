import { deriveHandleKeys, isUuidV4, openRecord, recordExpiry, sealRecord, type Owner } from "./crypto.js";
import { RecentAnswers } from "./recent-answers.js";
import { ResultHandlesConfigurationError, ResultQueryError } from "./errors.js";
import { toJsonBytes } from "./size.js";
import type { NamespacedStorage } from "./storage/types.js";

const decoder = new TextDecoder();

/** An encrypted answer and the derived key it goes under: all a storage ever sees. */
export interface SealedAnswer {
  readonly storageKey: string;
  readonly record: Uint8Array;
}

/**
 * Keeps folded answers, encrypted, for `ttlSeconds` (S2, S8). Handles and owners never reach the
 * storage: only derived keys and sealed records do.
 */
export class ResultHandleStore {
  private readonly recent = new RecentAnswers();

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
    await this.put(await this.seal(handle, toJsonBytes(value), owner));
  }

  /**
   * Encrypts an answer already measured as UTF-8 JSON without storing it yet, so a fold serializes its
   * answer once and encrypts while it builds the preview; `put` stores it.
   */
  async seal(handle: string, json: Uint8Array, owner: Owner): Promise<SealedAnswer> {
    if (!isUuidV4(handle)) throw new ResultQueryError("INVALID_INPUT", "handle must be a UUID v4 from newHandle()");
    const keys = await deriveHandleKeys(handle, owner);
    return { storageKey: keys.storageKey, record: await sealRecord(keys, json, Date.now() + this.ttlSeconds * 1000) };
  }

  async put(sealed: SealedAnswer): Promise<void> {
    this.recent.remove(sealed.storageKey);
    await this.storage.set(sealed.storageKey, sealed.record, this.ttlSeconds);
  }

  /** The value saved for this handle and owner; missing, expired, tampered and foreign handles read as undefined. */
  async read(handle: string, owner: Owner): Promise<{ value: unknown } | undefined> {
    return this.load(handle, owner, false);
  }

  /**
   * `read` for `result_query`: a recent answer may be served from memory instead of being decrypted and
   * parsed again. The value may be shared with other calls and must be treated as read-only.
   */
  async readShared(handle: string, owner: Owner): Promise<{ value: unknown } | undefined> {
    return this.load(handle, owner, true);
  }

  private async load(handle: string, owner: Owner, shared: boolean): Promise<{ value: unknown } | undefined> {
    if (!isUuidV4(handle)) return undefined;
    const keys = await deriveHandleKeys(handle, owner);
    const record = await this.storage.get(keys.storageKey);
    if (!record) return undefined;
    const now = Date.now();
    const recent = shared ? this.recent.get(keys.storageKey, record, now) : undefined;
    if (recent) return recent;
    const plain = await openRecord(keys, record, now);
    if (!plain) return undefined;
    const value = JSON.parse(decoder.decode(plain)) as unknown;
    if (shared) this.recent.set(keys.storageKey, record, value, recordExpiry(record), plain.byteLength);
    return { value };
  }

  async onShutdown(): Promise<void> {
    this.recent.clear();
    await this.storage.close();
  }
}
