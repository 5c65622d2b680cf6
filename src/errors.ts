/** Every error this package throws or answers with carries a stable `code`. */
export type ResultHandlesErrorCode =
  /** `init` or `createResultHandleStore` refused its options (S3.1). */
  | "RESULT_HANDLES_CONFIGURATION"
  /** A server-only storage type was asked for in the page build (S9.4). */
  | "BROWSER_STORE_UNAVAILABLE"
  /** A storage type this build or install cannot open (for example a missing client library, S9.5). */
  | "STORAGE_UNAVAILABLE"
  /** A store call took longer than `storage.timeoutMs` (S9.1). */
  | "STORE_TIMEOUT"
  /**
   * A store has no room for an answer: a memory store was given one (its records together) larger than
   * its `maxBytes` (S9.3). A fold then sends the answer whole.
   */
  | "STORE_FULL"
  /** `install` met an `McpServer` without the members the adapter hooks into (S10.1). */
  | "UNSUPPORTED_MCP_SERVER"
  /** No WebCrypto (`globalThis.crypto.subtle`) in this runtime (S8.4). */
  | "WEBCRYPTO_UNAVAILABLE"
  /** The API was called in a way it does not support (an unknown token, the core class used directly). */
  | "INVALID_USAGE"
  /** `plugin.webmcp()` found no WebMCP model context in the page and was given none (S10.2). */
  | "WEBMCP_UNAVAILABLE"
  /**
   * A tool's own answer cannot be sent as JSON (a cycle, a BigInt, a throwing `toJSON`: S16.7). Never
   * thrown: the call gets an `isError` result whose text starts with this code (`unsendableResult`).
   */
  | "ANSWER_NOT_SERIALIZABLE"
  | ResultQueryErrorCode;

/**
 * The codes a `result_query` call can answer with (S7.6), in one list: the type below is derived from it,
 * and the tool's `outputSchema` lists it as the enum of `error.code` (S7.9).
 */
export const RESULT_QUERY_ERROR_CODES = [
  /** Expired, evicted, never issued, or issued to another owner: indistinguishable (S8.2). */
  "RESULT_HANDLE_NOT_FOUND",
  /** The path has no form of S7.2 / S14.1, or names nothing in the answer. */
  "RESULT_PATH_NOT_FOUND",
  /** The slice would be larger than the folding instance's slice limit (its `thresholdBytes`, S7.6). */
  "RESULT_SLICE_TOO_LARGE",
  /** A refused argument: what an input-schema check would refuse, and more. */
  "INVALID_INPUT",
  /** The store could not be read; try again later (S12). */
  "RESULT_STORE_UNAVAILABLE",
] as const;

/** The codes a `result_query` call can answer with (S7.6). */
export type ResultQueryErrorCode = (typeof RESULT_QUERY_ERROR_CODES)[number];

/**
 * The one base class of every error this package throws (S13.4): test `error instanceof ResultHandlesError`, then
 * `error.code`.
 */
export class ResultHandlesError extends Error {
  readonly code: ResultHandlesErrorCode;
  constructor(code: ResultHandlesErrorCode, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

export interface ConfigurationIssue {
  /** Option path, such as `preview.items` or `storage.redis.url`. */
  path: string;
  message: string;
}

/** `init` refused its options; `issues` names every problem (S3.1). */
export class ResultHandlesConfigurationError extends ResultHandlesError {
  readonly issues: readonly ConfigurationIssue[];
  constructor(issues: readonly ConfigurationIssue[]) {
    const lines = issues.map((issue) => `- ${issue.path}: ${issue.message}`);
    super(
      "RESULT_HANDLES_CONFIGURATION",
      `Invalid result-handles options (${issues.length} problem${issues.length === 1 ? "" : "s"}):\n` +
        lines.join("\n"),
    );
    this.issues = issues;
  }
}

/** A storage type that cannot run in a web page was asked for in the page build (S9.4). */
export class BrowserStoreUnavailableError extends ResultHandlesError {
  readonly storageType: string;
  constructor(storageType: string) {
    super(
      "BROWSER_STORE_UNAVAILABLE",
      `Storage type "${storageType}" cannot run in a web page: a page has no TCP sockets or files, and ` +
        `store tokens must not ship to a browser. Use storage: { type: "memory" } or { type: "indexeddb" }.`,
    );
    this.storageType = storageType;
  }
}

/**
 * A storage type that cannot run in an edge runtime (Cloudflare Workers, Vercel Edge) was asked for in the
 * edge build (S17.1): Redis needs TCP sockets and SQLite a file. The message names the types that run there.
 */
export class EdgeStoreUnavailableError extends ResultHandlesError {
  readonly storageType: string;
  constructor(storageType: string, runHere: readonly string[]) {
    super(
      "STORAGE_UNAVAILABLE",
      `Storage type "${storageType}" cannot run in an edge runtime such as Cloudflare Workers: it needs TCP ` +
        `sockets or files. Storage types that run there: ${runHere.map((type) => `"${type}"`).join(", ")}.`,
    );
    this.storageType = storageType;
  }
}

/** A Node store's client library, an optional peer dependency, is not installed (S9.5). */
export class StorageClientMissingError extends ResultHandlesError {
  readonly packageName: string;
  constructor(packageName: string, storageType: string) {
    super(
      "STORAGE_UNAVAILABLE",
      `Storage type "${storageType}" needs the package "${packageName}", which is not installed. ` +
        `Install it next to mcp-result-handles: npm install ${packageName}`,
    );
    this.packageName = packageName;
  }
}

/** A refused `result_query` call (S7.6). Hosts turn it into an `isError` tool result. */
export class ResultQueryError extends ResultHandlesError {
  declare readonly code: ResultQueryErrorCode;
  constructor(code: ResultQueryErrorCode, message: string) {
    super(code, message);
  }
}

/** A store call outlived `storage.timeoutMs` (code `STORE_TIMEOUT`); it counts as a failed call (S4.7, S9.1). */
export class StoreTimeoutError extends ResultHandlesError {
  constructor(operation: string, ms: number, message = `store ${operation} took longer than ${ms} ms`) {
    super("STORE_TIMEOUT", message);
  }
}

/** `install` met a server without the SDK members it hooks into (code `UNSUPPORTED_MCP_SERVER`, S10.1). */
export class UnsupportedMcpServerError extends ResultHandlesError {
  constructor(missing: string) {
    super(
      "UNSUPPORTED_MCP_SERVER",
      `mcp-result-handles cannot attach to this McpServer: ${missing}. Pass the McpServer of ` +
        `@modelcontextprotocol/server >=2.3.0 <3 (tested with 2.3.1 and 2.4.0), not the low-level Server.`,
    );
  }
}

/** `plugin.webmcp()` found no `document.modelContext` (nor `navigator.modelContext`) and was given none (S10.2). */
export class WebMcpUnavailableError extends ResultHandlesError {
  constructor() {
    super(
      "WEBMCP_UNAVAILABLE",
      "This page has no document.modelContext: the browser has no WebMCP. Pass hostOptions.modelContext, or load " +
        "a WebMCP polyfill (such as @mcp-b/webmcp-polyfill) before calling plugin.webmcp().",
    );
  }
}

/** An error's message for a log line or a refusal; anything else thrown, as text. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
