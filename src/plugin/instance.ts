import type { FoldContext, Logger } from "../fold/fold.js";
import type { ResultHandlesConfig } from "./options.js";
import type { HandleSource } from "../query/tool/result-query-tool.js";
import type { ResultHandleStore } from "../records/store.js";

/**
 * One plugin instance, the one type name for it: its resolved options, its lazily opened store, and a place
 * for warnings. `ResultHandlesPluginCore` implements it; hosts (MCP, WebMCP, FrontMCP) depend on this
 * interface only, so the plugin class and the hosts do not import each other. The fold and the query tool
 * sit below plugin/ and cannot name it: each declares the part it reads (`FoldContext`, `HandleSource`),
 * and this type is both.
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
