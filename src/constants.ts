/** `_meta` key of a folded answer: `{ handle, bytes, ttlSeconds }` (S5.3). Kept from the reference's wire form. */
export const RESULT_HANDLE_META_KEY = "frontmcp/result-handle";
/** Name of the tool that reads a folded answer back (S7). */
export const RESULT_QUERY_TOOL_NAME = "result_query";
/** Answers a memory store keeps unless `storage.memory.maxEntries` says otherwise (S9.3). */
export const DEFAULT_MEMORY_MAX_ENTRIES = 1000;
/** Smallest allowed `thresholdBytes` (S3). */
export const MIN_THRESHOLD_BYTES = 1024;

export const DEFAULT_THRESHOLD_BYTES = 16384;
export const DEFAULT_TTL_SECONDS = 600;
export const DEFAULT_PREVIEW = Object.freeze({ items: 5, chars: 500 });
export const DEFAULT_NAMESPACE = "result-handles";
/** A store call slower than this counts as failed (S9.1). */
export const DEFAULT_STORE_TIMEOUT_MS = 3000;
