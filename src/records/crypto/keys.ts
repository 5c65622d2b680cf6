/**
 * Key derivation (S8.3, S8.5). From the handle (a random UUID, the only secret) and the owner,
 * HKDF-SHA256 derives the AES-256-GCM key of the answer, the storage key of its main record, and one
 * storage key per piece (with the piece index in the HKDF info). HKDF output is pseudorandom: no key shows
 * the handle, the owner, or that two keys belong to one answer. A record read under another owner is
 * simply not found. The store's scope (its namespace, S16.5, and its instance tag, S16.6) is in every
 * HKDF info too: the same handle and owner give other keys in another namespace or instance, so a
 * record copied there is not found, and one instance never opens another's answers.
 */
import { DEFAULT_NAMESPACE } from "../../defaults.js";
import { toJsonBytes } from "../../util/size.js";
import { FORMAT_VERSION } from "./backend.js";
import { toHex, type AesKey, type CryptoBackend, type Hkdf } from "./backend.js";
import { webCryptoBackend } from "./webcrypto.js";

export interface Owner {
  session?: string;
  caller?: string;
}

/** Where a store's records belong: its storage namespace and, for a plugin's store, the instance's rules. */
export interface RecordScope {
  readonly namespace: string;
  /** Tells plugin instances sharing a store and namespace apart (S16.6); none for a bare store. */
  readonly instance?: string;
}

const encoder = new TextEncoder();

/**
 * Longest HKDF info the backends take (node:crypto, and Node's WebCrypto, refuse more than 1024 bytes). A
 * longer info (an OAuth `sub` of a thousand characters, S16.2) is bound by its SHA-256 instead: a list of
 * four, which no info of six or seven parts can equal.
 */
const MAX_INFO_BYTES = 1024;

/**
 * The HKDF info of `purpose` as JSON (which keeps namespace, instance, session and caller apart whatever characters
 * they hold).
 */
function plainInfo(purpose: string, scope: RecordScope, owner: Owner, piece?: number): Uint8Array {
  const parts: unknown[] = [
    purpose,
    FORMAT_VERSION,
    scope.namespace,
    scope.instance ?? null,
    owner.session ?? null,
    owner.caller ?? null,
  ];
  if (piece !== undefined) parts.push(piece);
  return toJsonBytes(parts);
}

/** The info as it is, or undefined when it is too long to use so (`info` then binds its digest). */
function shortInfo(purpose: string, scope: RecordScope, owner: Owner, piece?: number): Uint8Array | undefined {
  const bytes = plainInfo(purpose, scope, owner, piece);
  return bytes.byteLength <= MAX_INFO_BYTES ? bytes : undefined;
}

async function info(purpose: string, scope: RecordScope, owner: Owner, piece?: number): Promise<Uint8Array> {
  const bytes = plainInfo(purpose, scope, owner, piece);
  if (bytes.byteLength <= MAX_INFO_BYTES) return bytes;
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return toJsonBytes([purpose, FORMAT_VERSION, "sha-256", toHex(digest)]);
}

/** Everything derived from one (handle, owner) pair. Kept in memory only (never in a storage). */
export class AnswerKeys {
  private readonly pieceKeys = new Map<number, Promise<string>>();

  private constructor(
    readonly backend: CryptoBackend,
    readonly storageKey: string,
    readonly aesKey: AesKey,
    /** The scope as bound into associated data (`sealRecord`, `sealPiece`). */
    readonly scope: Uint8Array,
    private readonly hkdf: Hkdf,
    private readonly owner: Owner,
    private readonly recordScope: RecordScope,
  ) {}

  static async derive(
    handle: string,
    owner: Owner,
    backend: CryptoBackend = webCryptoBackend,
    scope: RecordScope = DEFAULT_SCOPE,
  ): Promise<AnswerKeys> {
    const hkdf = await backend.hkdf(encoder.encode(handle));
    const [storageInfo, aesInfo] = await Promise.all([
      info("storage-key", scope, owner),
      info("aes-256-gcm", scope, owner),
    ]);
    const [storage, aes] = await Promise.all([hkdf(storageInfo), backend.aesKey(hkdf, aesInfo)]);
    return new AnswerKeys(
      backend,
      toHex(storage),
      aes,
      boundScope(scope),
      hkdf,
      { session: owner.session, caller: owner.caller },
      fixedScope(scope),
    );
  }

  /**
   * The same keys on the calling thread, for a backend with `hkdfNow` (S21.7: in the middle of a
   * serialisation); undefined where that cannot be (WebCrypto, or an owner whose info must be hashed first).
   */
  static deriveNow(
    handle: string,
    owner: Owner,
    backend: CryptoBackend,
    scope: RecordScope = DEFAULT_SCOPE,
  ): AnswerKeys | undefined {
    const now = backend.hkdfNow?.(encoder.encode(handle));
    const storageInfo = shortInfo("storage-key", scope, owner);
    const aesInfo = shortInfo("aes-256-gcm", scope, owner);
    if (!now || !storageInfo || !aesInfo) return undefined;
    const hkdf: Hkdf = async (bytes) => now(bytes);
    return new AnswerKeys(
      backend,
      toHex(now(storageInfo)),
      now(aesInfo),
      boundScope(scope),
      hkdf,
      { session: owner.session, caller: owner.caller },
      fixedScope(scope),
    );
  }

  /**
   * The HKDF info piece `index`'s storage key is derived from (`pieceKey`), for a seal thread that derives
   * it there (S21.7); undefined where it must be hashed first (`info`).
   */
  pieceInfoNow(index: number): Uint8Array | undefined {
    return shortInfo("piece-storage-key", this.recordScope, this.owner, index);
  }

  /** The storage key of piece `index`, derived on first use and then remembered. */
  pieceKey(index: number): Promise<string> {
    let key = this.pieceKeys.get(index);
    if (!key) {
      key = info("piece-storage-key", this.recordScope, this.owner, index).then(this.hkdf).then(toHex);
      this.pieceKeys.set(index, key);
    }
    return key;
  }
}

/** Drawn when the process starts: owner tags (`ownerTag`) mean nothing outside it. */
let ownerTagKey: Promise<Hkdf> | undefined;

/**
 * An opaque tag of `owner` within `scope` (S26.5), for a storage in this process that shares its room
 * among owners (the memory store): the same for every answer of one owner, and, derived under a key drawn
 * when the process starts, telling nothing of the session or caller it stands for.
 */
export async function ownerTag(
  owner: Owner,
  backend: CryptoBackend,
  scope: RecordScope = DEFAULT_SCOPE,
): Promise<string> {
  ownerTagKey ??= backend.hkdf(globalThis.crypto.getRandomValues(new Uint8Array(32)));
  const hkdf = await ownerTagKey;
  return toHex(await hkdf(await info("owner-tag", scope, owner)));
}

function fixedScope(scope: RecordScope): RecordScope {
  return { namespace: scope.namespace, ...(scope.instance !== undefined && { instance: scope.instance }) };
}

/** The scope as associated data binds it (namespace and instance, as JSON). */
function boundScope(scope: RecordScope): Uint8Array {
  return toJsonBytes([scope.namespace, scope.instance ?? null]);
}

/** The namespace of a store given none (`new ResultHandleStore(storage, ttl)`): the plugin's default one. */
export const DEFAULT_STORE_NAMESPACE = DEFAULT_NAMESPACE;
const DEFAULT_SCOPE: RecordScope = { namespace: DEFAULT_STORE_NAMESPACE };

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
export function isUuidV4(value: unknown): value is string {
  return typeof value === "string" && UUID_V4.test(value);
}
