/** `_meta` key of a folded answer: `{ handle, bytes, ttlSeconds }` (S5.3). Kept from the reference's wire form. */
export const RESULT_HANDLE_META_KEY = "frontmcp/result-handle";
/** Name of the tool that reads a folded answer back (S7). */
export const RESULT_QUERY_TOOL_NAME = "result_query";
/**
 * Memory store defaults (S9.3), the one place both a plugin's resolved config and a bare
 * `new MemoryStorage(namespace)` read them. Answers a memory store keeps unless `storage.memory.maxEntries`
 * (or the `maxEntries` option) says otherwise.
 */
export const DEFAULT_MEMORY_MAX_ENTRIES = 1000;
/**
 * Bytes a memory store keeps unless `storage.memory.maxBytes` says otherwise: 256 MiB in Node, 64 MiB in
 * a page, which has less to spare (S9.3), 32 MiB in an edge isolate (a Cloudflare Worker has 128 MB in all,
 * S17.1). A build's config passes its own figure; a bare
 * `new MemoryStorage(namespace)` takes the figure of the runtime it finds itself in.
 */
export const DEFAULT_MEMORY_MAX_BYTES = { node: 256 * 1024 * 1024, browser: 64 * 1024 * 1024, edge: 32 * 1024 * 1024 } as const;
/** Smallest allowed `thresholdBytes` (S3). */
export const MIN_THRESHOLD_BYTES = 1024;

export const DEFAULT_THRESHOLD_BYTES = 16384;
export const DEFAULT_TTL_SECONDS = 600;
export const DEFAULT_PREVIEW = Object.freeze({ items: 5, chars: 500 });
export const DEFAULT_NAMESPACE = "result-handles";
/** A store call slower than this counts as failed (S9.1). */
export const DEFAULT_STORE_TIMEOUT_MS = 3000;
