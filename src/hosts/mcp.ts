import { RESULT_QUERY_TOOL_NAME } from "../constants.js";
import type { Owner } from "../crypto.js";
import { foldToolResult, type Logger, type StandardSchemaLike } from "../fold.js";
import { isPlainObject } from "../json.js";
import type { ResultHandlesPluginCore } from "../plugin.js";
import { ResultQueryTool } from "../result-query-tool.js";
import type { ToolResult } from "../tool-result.js";
import { withConnectionSession } from "./connection-session.js";
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
  /** Where warnings go (schema mismatches, store failures, anonymous calls). Default `console`. */
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

interface Installed {
  plugin: ResultHandlesPluginCore;
  tools: ReadonlySet<string> | undefined;
  owner: OwnerResolver;
}

const INSTALLED = Symbol.for("mcp-result-handles/installed");
type ServerWithRegistry = McpServerLike & { [INSTALLED]?: Installed[] };

/**
 * Attaches a plugin instance to an `McpServer`. The first instance on a server hooks `tools/call` and
 * registers `result_query`; later ones only join the list, so the server lists one `result_query` that
 * reads every instance's handles (S10.1). Cheap enough to run per request under `createMcpHandler`.
 */
export function installOnMcpServer(plugin: ResultHandlesPluginCore, server: McpServerLike, options: McpHostOptions = {}): void {
  assertSupportedServer(server);
  const host = server as ServerWithRegistry;
  const entry: Installed = { plugin, tools: options.tools ? new Set(options.tools) : undefined, owner: options.owner ?? defaultOwner };
  const installed = host[INSTALLED];
  if (installed) {
    if (!installed.some((other) => other.plugin === plugin)) installed.push(entry);
    return;
  }
  const instances: Installed[] = [entry];
  Object.defineProperty(host, INSTALLED, { value: instances, enumerable: false });

  interceptToolCalls(server, async (name, tool, ctx, run) => {
    const result = await run();
    if (name === RESULT_QUERY_TOOL_NAME) return result; // a slice is never folded again (S7.7)
    const instance = instanceFor(instances, name);
    if (!instance || !isToolResult(result)) return result;
    return foldToolResult(instance.plugin, {
      toolName: name,
      result,
      outputSchema: isStandardSchema(tool.outputSchema) ? tool.outputSchema : undefined,
      toolMeta: tool._meta,
      owner: instance.owner(withConnectionSession(server, ctx as McpRequestContextLike)),
      request: ctx,
    });
  });

  const queryTool = new ResultQueryTool(() => instances.map((instance) => instance.plugin));
  server.registerTool(
    queryTool.name,
    {
      title: queryTool.title,
      description: queryTool.description,
      inputSchema: queryTool.inputSchema,
      outputSchema: queryTool.outputSchema,
      annotations: queryTool.annotations,
    },
    (async (args: unknown, rawCtx: McpRequestContextLike) => {
      const ctx = withConnectionSession(server, rawCtx);
      return queryTool.handler(args, (source) => (instances.find((i) => i.plugin === source) ?? entry).owner(ctx));
    }) as (...args: never[]) => unknown,
  );
}

/** The instance that folds a tool: the one naming it, else the first that names no tools (S10.1). */
function instanceFor(instances: readonly Installed[], toolName: string): Installed | undefined {
  return instances.find((i) => i.tools?.has(toolName)) ?? instances.find((i) => i.tools === undefined);
}

function isToolResult(value: unknown): value is ToolResult {
  return isPlainObject(value) && (Array.isArray(value.content) || value.structuredContent !== undefined);
}

function isStandardSchema(value: unknown): value is StandardSchemaLike {
  return typeof value === "object" && value !== null && typeof (value as { "~standard"?: { validate?: unknown } })["~standard"]?.validate === "function";
}
