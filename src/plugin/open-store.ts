import { ResultHandlesConfigurationError } from "../errors.js";
import { resolveOptions, type ResolvedStorageConfig, type ResultHandlesConfig, type StorageConfig } from "./options.js";
import type { Runtime } from "./runtime.js";
import { withinTimeout, withTimeout } from "../storage/timeout.js";
import { ResultHandleStore } from "../records/store.js";

export interface CreateResultHandleStoreOptions {
  storage: StorageConfig;
  namespace: string;
  ttlSeconds: number;
}

/** What opening a store needs, already checked and resolved. */
interface ResolvedStoreOptions {
  readonly storage: ResolvedStorageConfig;
  readonly namespace: string;
  readonly ttlSeconds: number;
  /** A plugin instance's `instanceTag`: its store finds only the answers it folded (S16.6). */
  readonly instance?: string;
}

/**
 * What tells plugin instances sharing a store and namespace apart (S16.6): the rules a handle is answered
 * under (its slice limit and its preview). Bound into the keys of every record (`AnswerKeys`), so only an
 * instance of the same rules finds a handle: `result_query` asks every instance and the one that folded it
 * answers. Equal configs give equal tags, so processes of one deployment still read each other's handles
 * (S9.6). The tag's text is as it was when the slice limit was named `thresholdBytes`: records kept before
 * are still found.
 */
export function instanceTag(config: Pick<ResultHandlesConfig, "sliceLimitBytes" | "preview">): string {
  return JSON.stringify({
    thresholdBytes: config.sliceLimitBytes,
    preview: [config.preview.items, config.preview.chars],
  });
}

const STORE_OPTIONS = ["storage", "namespace", "ttlSeconds"] as const;

/**
 * `createResultHandleStore` (S2): all three options are required, no other is taken (an `init` option
 * such as `thresholdBytes` here is a mistake, not something to check as a threshold), and each is checked
 * like `init`'s.
 */
export async function openResultHandleStore(
  runtime: Runtime,
  options: CreateResultHandleStoreOptions,
): Promise<ResultHandleStore> {
  const given = (options ?? {}) as Partial<CreateResultHandleStoreOptions>;
  const missing = STORE_OPTIONS.filter((key) => given[key] === undefined).map((path) => ({
    path,
    message: "required",
  }));
  const unknown = Object.keys(given)
    .filter((key) => !(STORE_OPTIONS as readonly string[]).includes(key))
    .map((path) => ({
      path,
      message: "unknown option: createResultHandleStore takes storage, namespace and ttlSeconds",
    }));
  if (missing.length + unknown.length > 0) throw new ResultHandlesConfigurationError([...missing, ...unknown]);
  return openStore(runtime, resolveOptions(options, runtime));
}

/**
 * Opens the storage of a resolved config, with every call bounded by its `timeoutMs` (S9.1) and each tool call's by
 * `deadlineMs` (S26.3).
 */
export async function openStore(
  runtime: Runtime,
  { storage: config, namespace, ttlSeconds, instance }: ResolvedStoreOptions,
): Promise<ResultHandleStore> {
  const opening = runtime.openStorage(config, namespace);
  const storage = await withinTimeout(opening, config.timeoutMs, "open").catch((error: unknown) => {
    // An open that finishes after its deadline must not leave a connection or a timer behind.
    opening.then((late) => late.close()).catch(() => {});
    throw error;
  });
  const sealThread = runtime.sealThread?.();
  return new ResultHandleStore(withTimeout(storage, config.timeoutMs), ttlSeconds, {
    crypto: runtime.crypto,
    namespace,
    deadlineMs: config.deadlineMs,
    ...(instance !== undefined && { instance }),
    ...(sealThread && { sealThread }),
  });
}
