/** The MCP SDK v2 `McpServer` host (S10.1): a small adapter over the host-neutral registry (`HostInstances`). */
import type { Owner } from "../records/crypto/keys.js";
import type { Logger } from "../fold/fold.js";
import type { PluginInstance } from "../plugin/instance.js";
import { withConnectionSession } from "./connection-session.js";
import { ownerOfCall, type McpRequestContextLike } from "./mcp-owner.js";
import { joinHost, type HostInstances } from "../plugin/host-instances.js";
import { admitReferences, withShortValidationErrors } from "../plugin/references.js";
import { serveHandleResources } from "./resources.js";
import { serveViewer, type ViewerOption } from "./viewer.js";
import { assertSupportedServer, clientName, decorateList, interceptToolCalls } from "./mcp-sdk-internals.js";

export { defaultOwner, type McpRequestContextLike } from "./mcp-owner.js";

/** An MCP SDK v2 `McpServer`, described by the one public method used; the rest is checked at `install`. */
export interface McpServerLike {
  registerTool(name: string, config: Record<string, unknown>, callback: (...args: never[]) => unknown): unknown;
}

/** Who owns a call, from the SDK's request context (S8.1). */
export type OwnerResolver = (ctx: McpRequestContextLike) => Owner;

/** Options of `plugin.install(server, hostOptions)`. */
export interface McpHostOptions {
  /** Tools this instance folds. Default: every tool that no other installed instance names (S10.1). */
  tools?: readonly string[];
  /**
   * Who owns a call; a handle reads back only for the same owner. Default `defaultOwner`: `ctx.sessionId`
   * (a stdio or in-process connection has one of its own) and the authenticated subject
   * (`authInfo.extra.sub` when a non-empty string or a finite number, else `authInfo.clientId`; a `sub` of any
   * other kind makes the call anonymous, S16.2). A call with neither is anonymous and never folds (S8.1).
   */
  owner?: OwnerResolver;
  /**
   * Where this installation's warnings go (schema mismatches, store failures, anonymous calls); the plugin's logger
   * (`console`) by default.
   */
  logger?: Logger;
  /**
   * `{ "$result": handle, "path"?: … }` in any other tool's arguments is replaced by the data it names
   * (S15.1), and the folded hint says so (S15.3). Default true; `false` on any install turns both off on the server.
   */
  references?: boolean;
  /**
   * Folded answers end with a `resource_link`, and the server serves `result-handle://{handle}` (S15.4). Default false.
   */
  resources?: boolean;
  /**
   * MCP Apps hosts (Claude, ChatGPT, VS Code…) show this installation's answers to the person in the
   * result viewer (S19): `true` for every tool it folds, `{ tools }` for some. Adds the resource
   * `ui://result-handles/viewer`, the app-only tool `result_view`, and `_meta.ui.resourceUri` on those tools'
   * `tools/list` entries (a tool's own UI is kept). Other hosts see no difference. Default false.
   */
  viewer?: ViewerOption;
}

/**
 * Who owns a call on this server, for one installation (S8.1): the host's resolver, else `defaultOwner`,
 * both seeing a stdio or in-process connection's minted session id when the connection has none.
 */
function mcpOwnerResolver(instance: PluginInstance, server: McpServerLike, options: McpHostOptions): OwnerResolver {
  const resolve = options.owner;
  if (resolve) return (ctx) => resolve(withConnectionSession(server, ctx));
  return (ctx) => {
    const { owner, unusable } = ownerOfCall(withConnectionSession(server, ctx));
    if (unusable !== undefined) {
      // S16.2: never fall back to the client id, shared by every user of one OAuth client. Once per kind.
      instance.warnOnce(
        `unusable-sub:${unusable}`,
        `result-handles: a call's authInfo.extra.sub is ${unusable}, which names no user; ` +
          `the call is anonymous and its answers go out whole. ` +
          `Give tokens a non-empty string or numeric sub, or pass hostOptions.owner`,
        options.logger,
      );
    }
    return owner;
  };
}

/**
 * Attaches a plugin instance to an `McpServer`. The first instance on a server hooks `tools/call` and
 * registers `result_query`; later ones only join, so the server lists one `result_query` that reads every
 * instance's handles (S10.1). Cheap enough to run per request under `createMcpHandler`.
 */
export function installOnMcpServer(
  instance: PluginInstance,
  server: McpServerLike,
  options: McpHostOptions = {},
): void {
  assertSupportedServer(server);
  const owner = mcpOwnerResolver(instance, server, options);
  const join = {
    tools: options.tools,
    owner,
    logger: options.logger,
    references: options.references,
    resources: options.resources,
    viewer: options.viewer,
  };
  const instances = joinHost<McpRequestContextLike>(server, instance, join, (instances) => {
    interceptToolCalls(server, async ({ name, tool, ctx, args, run }) => {
      const call = ctx as McpRequestContextLike;
      // S15.2: a reference that does not resolve ends the call before the tool runs; `{ error }` only where
      // the tool's output schema cannot refuse it in an SDK v1 client's check (S7.9).
      const resolved = await instances.resolve(name, args, call, tool.outputSchema === undefined);
      if ("refusal" in resolved) return resolved.refusal;
      const result =
        resolved.references > 0 ? await withShortValidationErrors(() => run(resolved.args)) : await run(resolved.args);
      return instances.fold({
        toolName: name,
        result,
        call,
        outputSchema: tool.outputSchema,
        toolMeta: tool._meta,
        request: ctx,
        client: clientName(server, ctx),
      });
    });
    registerResultQuery(server, instances);
    // S25.2: where references resolve, every other tool's listed input schema admits one.
    decorateList(server, "tools/list", (tools) =>
      instances.references
        ? tools.map((tool) =>
            instances.resolvesFor(tool.name) ? { ...tool, inputSchema: admitReferences(tool.inputSchema) } : tool,
          )
        : tools,
    );
  });
  if (options.resources === true && !instances.servesResources) {
    serveHandleResources(server, instances);
    instances.servesResources = true;
  }
  if (options.viewer !== undefined && options.viewer !== false && !instances.servesViewer) {
    serveViewer(server, instances);
    instances.servesViewer = true;
  }
}

/** Lists the host's one `result_query` on the server. */
function registerResultQuery(server: McpServerLike, instances: HostInstances<McpRequestContextLike>): void {
  const queryTool = instances.queryTool;
  const registered = server.registerTool(
    queryTool.name,
    {
      title: queryTool.title,
      description: queryTool.descriptionFor(instances.references),
      inputSchema: queryTool.inputSchema,
      outputSchema: queryTool.outputSchema,
      annotations: queryTool.annotations,
      _meta: queryTool.listingMeta(),
    },
    (async (args: unknown, ctx: McpRequestContextLike) => instances.query(args, ctx, clientName(server, ctx))) as (
      ...args: never[]
    ) => unknown,
  ) as { description?: string; _meta?: Record<string, unknown> } | undefined;
  // A later install may turn references off or bring a larger threshold: the listing follows, without a
  // list_changed notification (the server is still being set up).
  instances.onJoin = () => {
    if (!registered || typeof registered !== "object") return;
    registered.description = queryTool.descriptionFor(instances.references);
    registered._meta = queryTool.listingMeta();
  };
}
