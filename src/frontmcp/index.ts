/**
 * `mcp-result-handles/frontmcp` (S22.1): the Node build's API, with `ResultHandlesPlugin` and
 * `ResultQueryTool` as FrontMCP classes. Only this entry imports `@frontmcp/sdk` (an optional peer). The
 * package is bundled without decorator metadata, so FrontMCP's decorators are applied by call
 * (`Plugin({...})(Class)`), which is what the `@` form does; no constructor here takes injected arguments.
 */
import { DynamicPlugin, FrontMcpConfig, Plugin, Tool, ToolContext, ToolHook, type Token } from "@frontmcp/sdk";
import {
  ResultHandlesConfigToken as configToken,
  ResultHandlesPlugin as NodeResultHandlesPlugin,
  ResultHandleStoreToken as storeToken,
  ResultHandleStore as CoreResultHandleStore,
  type NamespacedStorage,
  ResultQueryTool as ResultQueryCore,
  RESULT_QUERY_TOOL_NAME,
  type ResultHandlesConfig,
  type ResultHandlesOptions,
  type ToolResult,
} from "../runtimes/node/index.js";
import {
  contextSessionId,
  foldInFlow,
  frontMcpClientName,
  frontMcpOwner,
  resolveInFlow,
  frontMcpServerInstances,
  joinFrontMcpServer,
  type FrontMcpCallFlowLike,
  type FrontMcpToolLike,
} from "../hosts/frontmcp.js";
import { refusalResult } from "../query/tool/result-query-tool.js";
import { ANNOTATIONS, INPUT_JSON_SCHEMA, OUTPUT_JSON_SCHEMA } from "../query/tool/listing.js";
import { ResultQueryError } from "../errors.js";
import { nodeBase64 } from "../runtimes/node/base64.js";
import { fromFrontMcpStorage, isFrontMcpStorage, type FrontMcpStorageLike } from "../storage/frontmcp-storage.js";

export * from "../runtimes/node/index.js";

/**
 * The plugin's store as a FrontMCP provider: `await this.get(ResultHandleStoreToken)` in a tool of the app
 * (FrontMCP's `get` is synchronous: the store opens on first use, S2.1). The same symbol as the main entry's.
 */
export const ResultHandleStoreToken: Token<PromiseLike<CoreResultHandleStore>> = storeToken;
/** The plugin's resolved options as a FrontMCP provider: `this.get(ResultHandlesConfigToken)`. */
export const ResultHandlesConfigToken: Token<ResultHandlesConfig> = configToken;

/** How a FrontMCP tool names the providers it reads (FrontMCP's `Token`). */
type ProviderRecord = Record<string, unknown> & { provide: unknown };

/**
 * The store over an open storage (S2, S22.3): this package's `NamespacedStorage`, or a storage FrontMCP's
 * `@frontmcp/utils` `createStorage()` opened (memory, Redis, …; `.namespace(name)` gives it a prefix), whose
 * string values carry the encrypted records as base64. `onShutdown()` disconnects it.
 */
export class ResultHandleStore extends CoreResultHandleStore {
  constructor(storage: NamespacedStorage | FrontMcpStorageLike, ttlSeconds: number) {
    super(isFrontMcpStorage(storage) ? fromFrontMcpStorage(storage, nodeBase64) : storage, ttlSeconds);
  }
}

/**
 * The plugin on FrontMCP: `@App({ plugins: [ResultHandlesPlugin.init(options)] })`. `init` checks the
 * options as S3 says (throwing one `ResultHandlesConfigurationError` naming every problem) and opens
 * nothing. Each instance folds the answers of its own app's tools (S22.2) from a `tools:call-tool` hook
 * before FrontMCP's `finalize` stage; the plugin lists `result_query` once per server.
 *
 * A tool of the app reads the plugin's providers: `await this.get(ResultHandleStoreToken)` is the store
 * (opened on first use), `this.get(ResultHandlesConfigToken)` the resolved options.
 */
export class ResultHandlesPlugin extends DynamicPlugin<ResultHandlesConfig, ResultHandlesOptions> {
  /** The host-neutral instance: its options, its store, its warnings. */
  readonly instance: NodeResultHandlesPlugin;
  /** This instance's own provider: the app registry that holds it is the app that registered this instance. */
  private readonly appToken = Symbol("mcp-result-handles/frontmcp-app");
  private server: object | undefined;

  /** Use `ResultHandlesPlugin.init(options)`, which FrontMCP registers; this checks the options the same way. */
  constructor(options?: ResultHandlesOptions) {
    super();
    this.instance = NodeResultHandlesPlugin.init(options);
  }

  /** The resolved options (S3). */
  get config(): ResultHandlesConfig {
    return this.instance.config;
  }

  /**
   * Checks the options (S3.1: throws `ResultHandlesConfigurationError` naming every problem; S3.3: opens
   * nothing) and returns what `@App({ plugins })` registers: this instance with its providers.
   */
  static override init(options?: ResultHandlesOptions): ReturnType<typeof DynamicPlugin.init> {
    const plugin = new ResultHandlesPlugin(options);
    return { provide: ResultHandlesPlugin, useValue: plugin, providers: plugin.providers() } as unknown as ReturnType<
      typeof DynamicPlugin.init
    >;
  }

  /** The store and the options as providers, and the one through which this instance learns its server and app. */
  private providers(): ProviderRecord[] {
    const instance = this.instance;
    // FrontMCP's `get` is synchronous: the store is a promise-like that opens it on first `await` (S2.1).
    const store: PromiseLike<CoreResultHandleStore> = {
      then: (resolve, reject) => instance.store().then(resolve, reject),
    };
    return [
      { name: "result-handles:config", provide: ResultHandlesConfigToken, useValue: instance.config },
      { name: "result-handles:store", provide: ResultHandleStoreToken, useValue: store },
      {
        name: "result-handles:app",
        provide: this.appToken,
        inject: () => [FrontMcpConfig],
        useFactory: (server: object) => {
          this.server = server;
          joinFrontMcpServer(server, instance);
          return instance;
        },
      },
    ];
  }

  /** S22.2: the fold, in the `tools:call-tool` flow before `finalize` (set up below, as `@ToolHook.Will`). */
  async foldAnswer(flow: FrontMcpCallFlowLike): Promise<void> {
    const instances = this.server && frontMcpServerInstances(this.server);
    if (!instances) return;
    try {
      await foldInFlow(instances, this.instance, flow, (tool) => this.ownsTool(tool));
    } catch (error) {
      // S4.7: nothing in the fold fails the call; the answer goes out as FrontMCP built it.
      this.instance.warn(
        `result-handles: could not fold an answer on FrontMCP ` +
          `(${error instanceof Error ? error.message : String(error)}); sent it whole`,
      );
    }
  }

  /**
   * S15.1, S22.5: references in a tool's arguments resolve before FrontMCP validates them (set up below, as
   * `@ToolHook.Will("validateInput")`). Every instance's hook runs for every call: the server's first
   * instance resolves, once.
   */
  async resolveReferences(
    flow: FrontMcpCallFlowLike & { state: { toolContext?: { respond?(value: unknown): never } } },
  ): Promise<void> {
    const instances = this.server && frontMcpServerInstances(this.server);
    if (!instances || instances.sources()[0] !== this.instance) return;
    const respond = flow.state.toolContext?.respond;
    if (typeof respond !== "function") return;
    await resolveInFlow(instances, flow, (refusal) => respond.call(flow.state.toolContext, refusal));
  }

  /** Whether a tool is of this instance's app: its app's provider registry holds this instance's own token. */
  private ownsTool(tool: FrontMcpToolLike): boolean {
    const registry = tool.providers;
    if (typeof registry?.getProviderInfo !== "function") return false;
    try {
      registry.getProviderInfo(this.appToken);
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * `result_query` on FrontMCP (S7): listed once per server, it reads the handles of every instance on it
 * (S10.1). Its arguments are listed as JSON Schema and checked by the tool itself (S7.6's codes, S22.2),
 * never by a strict schema that FrontMCP would refuse with an uncoded error of its own.
 */
export class ResultQueryTool extends ToolContext {
  override async execute(input: unknown): Promise<ToolResult> {
    const instances = frontMcpServerInstances(this.get<object>(FrontMcpConfig));
    if (!instances)
      return refusalResult(
        new ResultQueryError("RESULT_HANDLE_NOT_FOUND", "No result handles plugin is registered on this server."),
      );
    const sessionId = contextSessionId(this);
    const owner = frontMcpOwner(sessionId, this.authInfo);
    return instances.query(input, { owner }, frontMcpClientName(this.scope, sessionId, this.authInfo.sessionId));
  }
}

const hook = (stage: string, method: "foldAnswer" | "resolveReferences") =>
  ToolHook.Will(stage)(
    ResultHandlesPlugin.prototype,
    method,
    Object.getOwnPropertyDescriptor(ResultHandlesPlugin.prototype, method)!,
  );
hook("validateInput", "resolveReferences");
hook("finalize", "foldAnswer");

Tool({
  name: RESULT_QUERY_TOOL_NAME,
  description: new ResultQueryCore(() => []).descriptionFor(true),
  inputSchema: {},
  annotations: { title: "Read part of a folded answer", ...ANNOTATIONS },
  // FrontMCP lists these JSON Schemas as they are and passes the arguments through unchanged.
  rawInputSchema: INPUT_JSON_SCHEMA,
  rawOutputSchema: OUTPUT_JSON_SCHEMA,
} as never)(ResultQueryTool);

Plugin({
  name: "result-handles",
  description: "Folds large tool answers into { preview, shape, handle } and serves result_query",
  tools: [ResultQueryTool],
} as never)(ResultHandlesPlugin);

export default ResultHandlesPlugin;
