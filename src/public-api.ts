/**
 * The API every build shares (S2), each name listed: a name added here is public API. Each runtime's entry adds
 * its `ResultHandlesPlugin` and `createResultHandleStore`; test/package/surface.test.ts pins what the built
 * entries export, values and types, so a change here fails it until its list says the same.
 */
export {
  DEFAULT_MEMORY_MAX_ENTRIES,
  MIN_THRESHOLD_BYTES,
  RESULT_HANDLE_META_KEY,
  RESULT_QUERY_TOOL_NAME,
} from "./defaults.js";
export type { Owner } from "./records/crypto/keys.js";
export {
  BrowserStoreUnavailableError,
  EdgeStoreUnavailableError,
  ResultHandlesConfigurationError,
  ResultHandlesError,
  ResultQueryError,
  WebMcpUnavailableError,
  StorageClientMissingError,
  StoreTimeoutError,
  UnsupportedMcpServerError,
  type ConfigurationIssue,
  type ResultHandlesErrorCode,
  type ResultQueryErrorCode,
} from "./errors.js";
export { foldToolResult, type FoldContext, type FoldInput, type Logger, type StandardSchemaLike } from "./fold/fold.js";
export { foldedAnswerSchema, type FoldedAnswer } from "./fold/folded-answer.js";
export {
  defaultOwner,
  installOnMcpServer,
  type McpHostOptions,
  type McpRequestContextLike,
  type McpServerLike,
  type OwnerResolver,
} from "./hosts/mcp.js";
export {
  findModelContext,
  installOnWebMcp,
  pageLoadOwner,
  type ModelContextLike,
  type WebMcpHost,
  type WebMcpHostOptions,
  type WebMcpRegisterOptions,
  type WebMcpTool,
} from "./hosts/webmcp.js";
export type { ViewerOption } from "./hosts/viewer.js";
export { loadViewerHtml, RESULT_VIEW_TOOL_NAME, VIEWER_RESOURCE_URI } from "./viewer/html.js";
export type { PluginInstance } from "./plugin/instance.js";
export type { CreateResultHandleStoreOptions } from "./plugin/open-store.js";
export type {
  FoldPolicy,
  FoldPolicyContext,
  HostLimit,
  HostLimitOption,
  OptionsRuntime,
  ResolvedStorageConfig,
  ResultHandlesConfig,
  ResultHandlesOptions,
  StorageConfig,
  StorageType,
} from "./plugin/options.js";
export { ResultHandlesConfigToken, ResultHandleStoreToken } from "./plugin/tokens.js";
export { ResultHandlesPluginCore } from "./plugin-with-hosts.js";
export type { QueryArguments, QueryResult } from "./query/query.js";
export type { Runtime } from "./plugin/runtime.js";
export { ResultQueryTool, type HandleSource, type OwnerOf } from "./query/tool/result-query-tool.js";
export type { Shape } from "./fold/shape.js";
export { MemoryStorage } from "./storage/memory-storage.js";
export type { MemoryStorageOptions } from "./storage/memory.js";
export type { NamespacedStorage } from "./storage/types.js";
export { ResultHandleStore } from "./records/store.js";
export type { ContentBlock, ToolResult } from "./util/tool-result.js";
