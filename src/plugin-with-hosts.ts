/**
 * The plugin class every runtime's entry extends with its `Runtime` (S2): one plugin instance, its options,
 * its lazily opened store and its warnings, and the sugar that installs it on a host (`install`, `webmcp`).
 * It lives here, beside the entries and above the hosts, so the dependency arrow runs one way: entries →
 * hosts → plugin. The hosts know the instance by its interface only (`PluginInstance`, plugin/instance.ts),
 * and are installers in their own right (`installOnMcpServer`, `installOnWebMcp`, exported).
 */
import { ResultHandlesError } from "./errors.js";
import { MIN_OPEN_RETRY_MS } from "./defaults.js";
import type { Logger } from "./fold/fold.js";
import type { PluginInstance } from "./plugin/instance.js";
import { instanceTag, openStore } from "./plugin/open-store.js";
import { resolveOptions, type ResultHandlesConfig, type ResultHandlesOptions } from "./plugin/options.js";
import type { Runtime } from "./plugin/runtime.js";
import type { ResultHandleStore } from "./records/store.js";
import type { SealAhead } from "./records/seal-ahead.js";
import type { Owner } from "./records/crypto/keys.js";
import type { BatchWorkers } from "./query/workers/pool.js";
import { ResultHandlesConfigToken, ResultHandleStoreToken } from "./plugin/tokens.js";
import { installOnMcpServer, type McpHostOptions, type McpServerLike } from "./hosts/mcp.js";
import { installOnWebMcp, type WebMcpHost, type WebMcpHostOptions } from "./hosts/webmcp.js";

/**
 * One plugin instance (`PluginInstance`): its options, its lazily opened store and its warnings, and the
 * installers' sugar. Each build (Node, page, edge) subclasses it to supply its `Runtime`; `init` opens
 * nothing (S2.1, S3.3, S9.5).
 */
export class ResultHandlesPluginCore implements PluginInstance {
  protected static runtime: Runtime;
  readonly config: ResultHandlesConfig;
  /** Where warnings go when an installation has no logger of its own. */
  logger: Logger = console;
  private opening: Promise<ResultHandleStore> | undefined;
  /** The last failed open and until when calls get its error instead of a new attempt. */
  private openFailure: { error: unknown; until: number } | undefined;
  /** Counts open attempts: only the latest may settle `opening` and `openFailure`. */
  private openAttempt = 0;
  private readonly warned = new Set<string>();
  /** The store once it is open, for what must know it without waiting (`sealAhead`). */
  private opened: ResultHandleStore | undefined;

  /** Use `init(options)`: it checks and resolves the options this takes. */
  constructor(
    config: ResultHandlesConfig,
    private readonly runtime: Runtime,
  ) {
    this.config = config;
  }

  /** Checks options (S3) and returns an instance. Throws `ResultHandlesConfigurationError` naming every problem. */
  static init<T extends ResultHandlesPluginCore>(
    this: new (config: ResultHandlesConfig, runtime: Runtime) => T,
    options?: ResultHandlesOptions,
  ): T {
    const runtime = (this as unknown as typeof ResultHandlesPluginCore).runtime;
    if (!runtime)
      throw new ResultHandlesError(
        "INVALID_USAGE",
        "Use ResultHandlesPlugin from mcp-result-handles: the core class has no storage of its own",
      );
    return new this(resolveOptions(options, runtime), runtime);
  }

  /** Its runtime's crypto backend's piece size (S8.5), so a fold serialises at the size its store seals. */
  get pieceBytes(): number | undefined {
    return this.runtime.crypto?.pieceBytes;
  }

  /**
   * A sealer for `owner`'s next fold, once the store is open (S21.7, `ResultHandleStore.sealAhead`): the
   * first fold of an instance opens the store and seals as usual.
   * @internal
   */
  sealAhead(owner: Owner, minBytes: number): SealAhead | undefined {
    return this.opened?.sealAhead(owner, minBytes);
  }

  /** Its runtime's batch workers (S14.6), started on the first query that uses them. */
  get workers(): BatchWorkers | undefined {
    return this.runtime.workers?.();
  }

  get(token: typeof ResultHandleStoreToken): Promise<ResultHandleStore>;
  get(token: typeof ResultHandlesConfigToken): ResultHandlesConfig;
  get(token: symbol): Promise<ResultHandleStore> | ResultHandlesConfig {
    if (token === ResultHandleStoreToken) return this.store();
    if (token === ResultHandlesConfigToken) return this.config;
    throw new ResultHandlesError(
      "INVALID_USAGE",
      `Unknown token ${String(token)}: use ResultHandleStoreToken or ResultHandlesConfigToken`,
    );
  }

  /**
   * The store, opened on first use. A failed open is remembered for `storage.timeoutMs` (at least 1 s):
   * calls in that window get the same error at once (the fold sends the answer whole, S4.7) instead of
   * each waiting up to `timeoutMs` for a storage that is down; the first call after it tries again.
   */
  store(): Promise<ResultHandleStore> {
    if (this.openFailure && Date.now() < this.openFailure.until) return Promise.reject(this.openFailure.error);
    if (this.opening) return this.opening;
    // Only the latest attempt may settle the plugin's state: one that `onShutdown` has let go of must not
    // clear a newer attempt, nor set a pause after the shutdown.
    const attempt = ++this.openAttempt;
    // From the config `init` already checked and resolved; only `createResultHandleStore` checks raw input.
    // Its instance tag keeps another instance's handles out of reach on a shared store (S16.6).
    const opening = openStore(this.runtime, { ...this.config, instance: instanceTag(this.config) }).then(
      (store) => {
        if (attempt === this.openAttempt) {
          this.openFailure = undefined;
          this.opened = store;
        }
        return store;
      },
      (error: unknown) => {
        if (attempt === this.openAttempt) {
          this.opening = undefined;
          this.opened = undefined;
          this.openFailure = { error, until: Date.now() + Math.max(MIN_OPEN_RETRY_MS, this.config.storage.timeoutMs) };
        }
        throw error;
      },
    );
    this.opening = opening;
    return opening;
  }

  /**
   * Closes the store's connections and timers, if it was opened; also a store that a call in flight opens
   * while this waits. A later fold or query opens a new one.
   */
  async onShutdown(): Promise<void> {
    this.openFailure = undefined;
    this.opened = undefined;
    while (this.opening) {
      const opening = this.opening;
      this.opening = undefined;
      this.openAttempt++; // let go of it: its outcome no longer touches this plugin's state
      const store = await opening.catch(() => undefined);
      await store?.onShutdown();
    }
  }

  warn(message: string, logger: Logger = this.logger): void {
    logger.warn(message);
  }

  warnOnce(key: string, message: string, logger: Logger = this.logger): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    logger.warn(message);
  }

  /** Folds this server's tool answers and registers `result_query` once per server (S10.1); see `McpHostOptions`. */
  install(server: McpServerLike, hostOptions?: McpHostOptions): this {
    installOnMcpServer(this, server, hostOptions);
    return this;
  }

  /**
   * Exposes tools through WebMCP (`document.modelContext`) with folding, and registers `result_query` beside
   * them (S10.2). Register the page's tools on the returned host: `await host.registerTool(tool, { signal })`.
   * Calls count as one verified session per page load unless `hostOptions.owner` says otherwise.
   */
  webmcp(hostOptions?: WebMcpHostOptions): WebMcpHost {
    return installOnWebMcp(this, hostOptions);
  }
}
