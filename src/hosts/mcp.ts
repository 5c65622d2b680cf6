/** The MCP SDK v2 `McpServer` host (S10.1): a small adapter over the host-neutral registry of `instances.ts`. */
import type { Owner } from "../records/crypto/keys.js";
import type { Logger } from "../fold/fold.js";
import type { PluginInstance } from "../plugin/instance.js";
import { withConnectionSession } from "./connection-session.js";
import { joinHost, type HostInstances } from "./instances.js";
import { assertSupportedServer, interceptToolCalls } from "./mcp-sdk-internals.js";

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
   * (`authInfo.extra.sub`, else `authInfo.clientId`). A call with neither is anonymous and never folds (S8.1).
   */
  owner?: OwnerResolver;
  /** Where this installation's warnings go (schema mismatches, store failures, anonymous calls); the plugin's logger (`console`) by default. */
  logger?: Logger;
}

/** The parts of the SDK's `ServerContext` that name the caller. */
export interface McpRequestContextLike {
  sessionId?: string;
  http?: { authInfo?: { clientId?: string; extra?: Record<string, unknown> } };
}

/** S8.1: the transport's session id, and the authenticated subject (`extra.sub`, else `clientId`). */
export function defaultOwner(ctx: McpRequestContextLike | undefined): Owner {
  const owner: Owner = {};
  if (ctx?.sessionId) owner.session = ctx.sessionId;
  const auth = ctx?.http?.authInfo;
  const sub = auth?.extra?.sub;
  const caller = typeof sub === "string" && sub ? sub : auth?.clientId;
  if (caller) owner.caller = caller;
  return owner;
}

/**
 * Who owns a call on this server, for one installation (S8.1): the host's resolver, else `defaultOwner`,
 * both seeing a stdio or in-process connection's minted session id when the connection has none.
 */
function mcpOwnerResolver(server: McpServerLike, options: McpHostOptions): OwnerResolver {
  const resolve = options.owner ?? defaultOwner;
  return (ctx) => resolve(withConnectionSession(server, ctx));
}

/**
 * Attaches a plugin instance to an `McpServer`. The first instance on a server hooks `tools/call` and
 * registers `result_query`; later ones only join, so the server lists one `result_query` that reads every
 * instance's handles (S10.1). Cheap enough to run per request under `createMcpHandler`.
 */
export function installOnMcpServer(instance: PluginInstance, server: McpServerLike, options: McpHostOptions = {}): void {
  assertSupportedServer(server);
  const owner = mcpOwnerResolver(server, options);
  joinHost<McpRequestContextLike>(server, instance, { tools: options.tools, owner, logger: options.logger }, (instances) => {
    interceptToolCalls(server, async (name, tool, ctx, run) =>
      instances.fold({
        toolName: name,
        result: await run(),
        call: ctx as McpRequestContextLike,
        outputSchema: tool.outputSchema,
        toolMeta: tool._meta,
        request: ctx,
      }),
    );
    registerResultQuery(server, instances);
  });
}

/** Lists the host's one `result_query` on the server. */
function registerResultQuery(server: McpServerLike, instances: HostInstances<McpRequestContextLike>): void {
  const queryTool = instances.queryTool;
  server.registerTool(
    queryTool.name,
    {
      title: queryTool.title,
      description: queryTool.description,
      inputSchema: queryTool.inputSchema,
      outputSchema: queryTool.outputSchema,
      annotations: queryTool.annotations,
    },
    (async (args: unknown, ctx: McpRequestContextLike) => instances.query(args, ctx)) as (...args: never[]) => unknown,
  );
}
