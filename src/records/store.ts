import { boundCount, decodeIndex } from "./format/answer-index.js";
import { shouldYieldSince, yieldToLoop } from "../util/yield.js";
import type { AnswerState, ReadCharge } from "./read/answer-state.js";
import { AnswerReader, ReadFailed } from "./read/answer-reader.js";
import { randomBytes, type CryptoBackend } from "./crypto/backend.js";
import {
  AnswerKeys,
  DEFAULT_STORE_NAMESPACE,
  isUuidV4,
  ownerTag,
  type Owner,
  type RecordScope,
} from "./crypto/keys.js";
import { webCryptoBackend } from "./crypto/webcrypto.js";
import { openRecord } from "./format/format.js";
import { sealAnswer, type SealedAnswer } from "./seal-answer.js";
import { SealAhead } from "./seal-ahead.js";
import type { SealThread } from "./crypto/seal-thread.js";
import { ResultHandlesConfigurationError, ResultHandlesError } from "../errors.js";
import { RecentAnswers, RecentKeys } from "./recent-answers.js";
import { heapEstimate } from "./heap-size.js";
import { dropSpareBuffers } from "./buffer-pool.js";
import { serializeAnswerYielding, type PieceOptions, type SerializedAnswer } from "./format/serialize.js";

import type { NamespacedStorage } from "../storage/types.js";
import { StoreCall, withinDeadline } from "../storage/timeout.js";

export { StoreCall } from "../storage/timeout.js";
import { decodeUtf8 } from "../util/utf8.js";

export type { SealedAnswer } from "./seal-answer.js";

/** Internals a test or benchmark may pin; defaults suit production. */
interface StoreOptions extends Pick<PieceOptions, "pieceBytes"> {
  /**
   * A thread that seals pieces while a fold serialises the rest (S21.7: `nodeSealThread`); none when left
   * out, and then every piece is sealed once the serialisation ends.
   * @internal
   */
  sealThread?: SealThread;
  /**
   * The runtime's backend (`Runtime.crypto`: node:crypto in the Node build where it exists); WebCrypto
   * when left out. Both write the same bytes (S8.4).
   */
  crypto?: CryptoBackend;
  /**
   * The storage namespace, bound into key derivation and associated data (S16.5): a record copied into
   * another namespace does not decrypt there. `DEFAULT_STORE_NAMESPACE` ("result-handles") when left out.
   */
  namespace?: string;
  /**
   * Tells apart stores that share a storage and namespace but answer under other rules (a plugin passes
   * a tag of its instance's rules, S16.6): each finds only the answers it saved. None when left out.
   */
  instance?: string;
  /**
   * How long one tool call may wait for this store in all (S26.3, the storage's `deadlineMs`), counted by
   * the `StoreCall` a method is given (one per tool call), else by one of its own. None when left out.
   */
  deadlineMs?: number;
}

/** Longest a record outlives its handle in the storage (S16.5), in whole seconds (what `set` takes). */
const MAX_EXTRA_SECONDS = 59;

/**
 * Keeps folded answers, encrypted, for `ttlSeconds` (S2, S8). Handles and owners never reach the
 * storage: only derived keys and sealed records do. An answer larger than one piece is stored as pieces
 * plus an index (S8.5), so a query reads only what it touches (`open`: the answer's reader).
 */
export class ResultHandleStore {
  private readonly recent = new RecentAnswers<AnswerState>();
  private readonly keys = new RecentKeys();

  constructor(
    private readonly storage: NamespacedStorage,
    readonly ttlSeconds: number,
    private readonly options: StoreOptions = {},
  ) {
    if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1) {
      throw new ResultHandlesConfigurationError([{ path: "ttlSeconds", message: "must be a positive whole number" }]);
    }
  }

  /** A new random UUID v4, never derived from the answer (S8.2). */
  newHandle(): string {
    return globalThis.crypto.randomUUID();
  }

  private get scope(): RecordScope {
    const { namespace = DEFAULT_STORE_NAMESPACE, instance } = this.options;
    return instance === undefined ? { namespace } : { namespace, instance };
  }

  /** The crypto backend this store seals with. */
  get crypto(): CryptoBackend {
    return this.options.crypto ?? webCryptoBackend;
  }

  /** The piece size answers for this store are cut at (S8.5): the option, else what its backend seals fastest. */
  get pieceBytes(): number {
    return this.options.pieceBytes ?? this.crypto.pieceBytes;
  }

  async save(handle: string, value: unknown, owner: Owner): Promise<void> {
    const json = await serializeAnswerYielding(value, { pieceBytes: this.pieceBytes });
    const sealed = await this.seal(handle, json, owner);
    json.release(); // encrypted: its buffers may take the next answer
    await this.put(sealed);
  }

  /**
   * The storage as one tool call (`call`) uses it: all the store calls it makes wait at most `deadlineMs`
   * together, and none starts once that is spent (S26.3).
   */
  private storageFor(call: StoreCall | undefined): NamespacedStorage {
    const { deadlineMs } = this.options;
    return deadlineMs === undefined ? this.storage : withinDeadline(this.storage, call ?? new StoreCall(), deadlineMs);
  }

  /**
   * Encrypts an answer without storing it yet, so a fold encrypts while it checks the output schema;
   * `put` stores it. Pass what the fold serialised with `serializeAnswerYielding(value)`, and the sealer that
   * serialisation was handed, if any (`sealAhead`: what it sealed is used when it was made by this store
   * for this handle and owner).
   */
  async seal(handle: string, json: SerializedAnswer, owner: Owner, ahead?: SealAhead): Promise<SealedAnswer> {
    // a caller's bug, not a refused query
    if (!isUuidV4(handle)) throw new ResultHandlesError("INVALID_USAGE", "handle must be a UUID v4 from newHandle()");
    const made = ahead && this.aheads.get(ahead);
    // A storage in this process that shares its room among owners is told whose answer it is (S26.5).
    const tag = this.storage.setTogether ? ownerTag(owner, this.crypto, this.scope).catch(() => undefined) : undefined;
    let sealed: SealedAnswer | undefined;
    if (
      ahead &&
      made?.handle === handle &&
      made.owner.session === owner.session &&
      made.owner.caller === owner.caller
    ) {
      this.aheads.delete(ahead);
      sealed = await ahead.finish(json);
    }
    sealed ??= await sealAnswer(await this.keysFor(handle, owner), json, Date.now() + this.ttlSeconds * 1000);
    const tagged = await tag;
    return tagged === undefined ? sealed : { ...sealed, owner: tagged };
  }

  /**
   * A sealer for the next answer `owner`'s call folds, to hand the serialiser (`onPiece`): once `minBytes`
   * are written it seals pieces on the store's seal thread while the rest is written (S21.7). Undefined
   * where that cannot be (no thread; a backend without `hkdfNow`). Save the answer under its `handle`, with
   * `seal(handle, json, owner, ahead)`; what it sealed is used only there, and only for that owner.
   * @internal
   */
  sealAhead(owner: Owner, minBytes = 0): SealAhead | undefined {
    const thread = this.options.sealThread;
    const crypto = this.crypto;
    if (!thread || !crypto.hkdfNow) return undefined;
    const handle = this.newHandle();
    const scope = this.scope;
    const ahead = new SealAhead(
      handle,
      thread,
      () => AnswerKeys.deriveNow(handle, owner, crypto, scope),
      this.ttlSeconds * 1000,
      this.pieceBytes,
      minBytes,
    );
    this.aheads.set(ahead, { handle, owner: { session: owner.session, caller: owner.caller } });
    return ahead;
  }

  /**
   * The sealers this store made, for whom: `seal` takes only its own, for the same handle and owner (another's keys
   * differ).
   */
  private readonly aheads = new WeakMap<SealAhead, { handle: string; owner: Owner }>();

  /**
   * Stores a sealed answer, as one answer where the storage can take its records together (the memory
   * store keeps, counts and drops them as one, S9.3). Throws when the storage refuses any record (one
   * larger than it may hold among them): the fold then sends the answer whole (S4.7).
   *
   * Each record's stored lifetime is drawn on its own, 1 to 59 s past the handle's (S16.5), so the
   * records of one answer share no exact expiry an observer could link them by; the expiry sealed inside
   * the index or whole record still ends reads at the TTL. A storage that takes an answer's records
   * together (in-process memory) keeps one lifetime for them, drawn the same way.
   */
  async put(sealed: SealedAnswer, call?: StoreCall): Promise<void> {
    const main = sealed.records[0]!.key;
    this.recent.remove(main);
    const extra = randomBytes(sealed.records.length);
    const ttl = (at: number) => this.ttlSeconds + 1 + (extra[at]! % MAX_EXTRA_SECONDS);
    const storage = this.storageFor(call);
    try {
      if (storage.setTogether) await storage.setTogether(sealed.records, ttl(0), sealed.owner);
      else {
        // S21.4: a client copies each record as it is handed one (ioredis builds the command's bytes): the
        // records of a 10 MB answer handed over in one go held the loop 30-60 ms. Between them it yields.
        // A write that failed meanwhile is seen there: the rest are not handed over, the answer goes out whole (S4.7).
        const writes: Promise<void>[] = [];
        let failed = false;
        let since = performance.now();
        for (let at = 0; at < sealed.records.length; at++) {
          if (at > 0 && shouldYieldSince(since)) {
            await yieldToLoop();
            if (failed) break;
            since = performance.now();
          }
          const record = sealed.records[at]!;
          const write = storage.set(record.key, record.value, ttl(at));
          write.catch(() => (failed = true)); // seen by Promise.all below; not unhandled while this yields
          writes.push(write);
        }
        await Promise.all(writes);
      }
    } catch (error) {
      // Best effort, not awaited (a hung storage must not hold the fold longer): no orphan pieces left
      // behind. A write that ends after this is undone when it ends (`withTimeout`, `withinDeadline`).
      void Promise.allSettled(sealed.records.map((record) => storage.delete(record.key)));
      throw error;
    }
  }

  /**
   * The value saved for this handle and owner, read afresh (the caller may change it); missing, expired, tampered and
   * foreign handles read as undefined.
   */
  async read(handle: string, owner: Owner): Promise<{ value: unknown } | undefined> {
    return this.readAll(handle, owner, false);
  }

  /**
   * `read` as `result_query` reads: a recent answer may be served from memory instead of being decrypted and
   * parsed again. The value may be shared with other calls: treat it as read-only.
   */
  async readShared(handle: string, owner: Owner): Promise<{ value: unknown } | undefined> {
    return this.readAll(handle, owner, true);
  }

  private async readAll(handle: string, owner: Owner, shared: boolean): Promise<{ value: unknown } | undefined> {
    const reader = await this.open(handle, owner, { shared });
    try {
      return reader && { value: await reader.all() };
    } catch (error) {
      if (error instanceof ReadFailed) return undefined; // a piece lost: the handle reads as not found (S8.5)
      throw error;
    }
  }

  /**
   * The reader of the answer saved for this handle and owner (its main record read: the answer whole, or its
   * index), or undefined when missing, expired, tampered or foreign: a query then reads from it only the
   * parts it needs (S8.5), and pulls lists and wide objects batch by batch (S14.6). `shared`: a recent
   * answer may be served from memory, and what is read is kept there for the next query (S16.3); the value
   * may be shared with other calls: treat it as read-only. `charge` is told what the reads decrypt and parse
   * before they do (S21.1); what it throws ends the read and comes out of the reader's call. Its store
   * calls, those of later batches included, count against the tool call's `call` (S26.3).
   */
  async open(
    handle: string,
    owner: Owner,
    { shared = false, charge, call }: { shared?: boolean; charge?: ReadCharge; call?: StoreCall } = {},
  ): Promise<AnswerReader | undefined> {
    if (!isUuidV4(handle)) return undefined;
    const storage = this.storageFor(call);
    const keys = await this.keysFor(handle, owner);
    const main = await storage.get(keys.storageKey);
    if (!main) return undefined;
    const now = Date.now();
    let state = shared ? this.recent.get(keys.storageKey, main, now) : undefined;
    if (!state) {
      const opened = await openRecord(keys, keys.storageKey, main, now);
      if (!opened) return undefined;
      const { header, plaintext } = opened;
      charge?.("decrypted", plaintext.byteLength); // decrypted already: at most one piece, told before it is parsed
      charge?.("parsed", plaintext.byteLength);
      const counted = shared;
      if (header.kind === "whole") {
        const value = JSON.parse(decodeUtf8(plaintext, header.ascii)) as unknown;
        state = {
          expiresAt: header.expiresAt,
          whole: { value },
          lists: new Map(),
          strings: new Map(),
          objects: new Map(),
          counted,
          indexBytes: 0,
          bytes: counted ? this.estimate(value) : 0,
        };
      } else if (header.kind === "index") {
        const index = decodeIndex(plaintext);
        if (!index || boundCount(index) !== header.pieceCount) return undefined;
        const indexBytes = counted ? this.estimate(index) : 0;
        state = {
          expiresAt: header.expiresAt,
          index,
          lists: new Map(),
          strings: new Map(),
          objects: new Map(),
          counted,
          indexBytes,
          bytes: indexBytes,
        };
      } else {
        return undefined;
      }
      if (shared) this.recent.set(keys.storageKey, main, state, state.expiresAt, state.bytes);
    }
    const read = {
      storage,
      keys,
      state,
      now,
      estimate: (value: unknown, counted = 0) => this.estimate(value, counted),
      charge,
    };
    const kept = state;
    return new AnswerReader(read, {
      lost: () => this.recent.remove(keys.storageKey),
      grown: () => shared && this.recent.resize(keys.storageKey, kept, kept.bytes),
    });
  }

  private keysFor(handle: string, owner: Owner): Promise<AnswerKeys> {
    return this.keys.get(handle, owner, () => AnswerKeys.derive(handle, owner, this.crypto, this.scope));
  }

  /** What a parsed value holds in memory, counted only as far as the cache could keep it (S16.3). */
  private estimate(value: unknown, counted = 0): number {
    return heapEstimate(value, this.recent.limit - counted);
  }

  async onShutdown(): Promise<void> {
    this.recent.clear();
    this.keys.clear();
    dropSpareBuffers(); // they hold the plaintext of the last answers folded
    await this.storage.close();
  }
}
