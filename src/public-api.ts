/** The API both builds share (S2). Each entry adds its `ResultHandlesPlugin` and `createResultHandleStore`. */
export {
  DEFAULT_MEMORY_MAX_ENTRIES,
  MIN_THRESHOLD_BYTES,
  RESULT_HANDLE_META_KEY,
  RESULT_QUERY_TOOL_NAME,
} from "./plugin/defaults.js";
export type { Owner } from "./records/crypto.js";
export {
  BrowserStoreUnavailableError,
  EdgeStoreUnavailableError,
  ResultHandlesConfigurationError,
  ResultHandlesError,
  ResultQueryError,
  WebMcpUnavailableError,
  StorageClientMissingError,
  type ConfigurationIssue,
  type ResultHandlesErrorCode,
  type ResultQueryErrorCode,
} from "./errors.js";
export type { FoldedAnswer } from "./fold/fit.js";
export { foldToolResult, type FoldContext, type FoldInput, type Logger, type StandardSchemaLike } from "./fold/fold.js";
export { foldedAnswerSchema } from "./fold/folded-answer.js";
export { defaultOwner, type McpHostOptions, type McpRequestContextLike, type McpServerLike, type OwnerResolver } from "./hosts/mcp.js";
export { UnsupportedMcpServerError } from "./hosts/mcp-sdk-internals.js";
export {
  findModelContext,
  pageLoadOwner,
  type ModelContextLike,
  type WebMcpHost,
  type WebMcpHostOptions,
  type WebMcpRegisterOptions,
  type WebMcpTool,
} from "./hosts/webmcp.js";
export type { PluginInstance } from "./plugin/instance.js";
export type { CreateResultHandleStoreOptions } from "./plugin/open-store.js";
export type {
  FoldPolicy,
  FoldPolicyContext,
  OptionsRuntime,
  ResolvedStorageConfig,
  ResultHandlesConfig,
  ResultHandlesOptions,
  StorageConfig,
  StorageType,
} from "./plugin/options.js";
export { ResultHandlesPluginCore, ResultHandlesConfigToken, ResultHandleStoreToken } from "./plugin/plugin.js";
export type { QueryArguments, QueryResult } from "./query/query.js";
export type { Runtime } from "./plugin/runtime.js";
export { ResultQueryTool, type HandleSource, type OwnerOf } from "./query/result-query-tool.js";
export type { Shape } from "./fold/shape.js";
export { MemoryStorage, type MemoryStorageOptions } from "./storage/memory.js";
export type { NamespacedStorage } from "./storage/types.js";
export { StoreTimeoutError } from "./storage/timeout.js";
export { ResultHandleStore } from "./records/store.js";
export type { ContentBlock, ToolResult } from "./util/tool-result.js";
