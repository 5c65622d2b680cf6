import type { FoldContext, Logger } from "../fold/fold.js";
import type { ResultHandlesConfig } from "./options.js";
import type { HandleSource } from "../query/tool/result-query-tool.js";
import type { ResultHandleStore } from "../records/store.js";

/**
 * What a host needs of one plugin instance: its resolved options, its lazily opened store, and a place
 * for warnings. `PluginCore` implements it; hosts (MCP, WebMCP) depend on this interface
 * only, so the plugin class and the hosts do not import each other. It is at once the fold's
 * `FoldContext` and the query tool's `HandleSource`.
 *
 * `logger` on `warn`/`warnOnce` is the installation's logger: a logger given to one `install` belongs to
 * that installation, not to the whole plugin. Without it the plugin's own logger is used.
 */
export interface PluginInstance extends FoldContext, HandleSource {
  readonly config: ResultHandlesConfig;
  store(): Promise<ResultHandleStore>;
  warn(message: string, logger?: Logger): void;
  /** Once per key and plugin instance (S4.6: once per tool), however many installations share it. */
  warnOnce(key: string, message: string, logger?: Logger): void;
}

/**
 * The instance as one installation's fold sees it: the same config, store and once-keys, that installation's logger.
 */
export function foldContextFor(instance: PluginInstance, logger: Logger | undefined): FoldContext {
  if (!logger) return instance;
  return {
    config: instance.config,
    pieceBytes: instance.pieceBytes,
    store: () => instance.store(),
    sealAhead: instance.sealAhead && ((owner, minBytes) => instance.sealAhead!(owner, minBytes)),
    warn: (message) => instance.warn(message, logger),
    warnOnce: (key, message) => instance.warnOnce(key, message, logger),
  };
}
