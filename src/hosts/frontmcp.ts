/**
 * The FrontMCP host (S22): a thin adapter over the host-neutral registry (`HostInstances`), as `mcp.ts` is
 * for the MCP SDK. It imports nothing of FrontMCP: the entry `mcp-result-handles/frontmcp` (src/frontmcp/)
 * declares the plugin and tool classes and hands this module what FrontMCP gives them, described here by
 * the few members used (read in FrontMCP 1.5.2's `tools:call-tool` flow and tool entries).
 */
import type { Owner } from "../records/crypto/keys.js";
import type { PluginInstance } from "../plugin/instance.js";
import type { ToolResult } from "../util/tool-result.js";
import { isPlainObject } from "../util/json.js";
import { HostInstances, isStandardSchema } from "../plugin/host-instances.js";
import type { StandardSchemaLike } from "../fold/fold.js";

/** What a FrontMCP call is to the registry: its owner, resolved once from the flow (S8.1). */
interface FrontMcpCall {
  owner: Owner;
}

/** FrontMCP's tool entry (`ToolInstance`), as the fold reads it. */
export interface FrontMcpToolLike {
  name: string;
  fullName?: string;
  metadata?: { ui?: unknown; _meta?: Record<string, unknown> };
  outputSchema?: unknown;
  /** The app's provider registry: whether it holds an instance's own token says whose app the tool is. */
  providers?: { getProviderInfo?(token: unknown): unknown };
  safeParseOutput(raw: unknown): { success: boolean; data?: unknown };
}

/** FrontMCP's call identity: `authInfo` (`user.sub`) and the request context's session id. */
interface FrontMcpAuthInfoLike {
  user?: { sub?: unknown };
}

/** The `tools:call-tool` flow as a hook sees it (FrontMCP's `FlowCtxOf<'tools:call-tool'>`). */
export interface FrontMcpCallFlowLike {
  state: {
    tool?: FrontMcpToolLike;
    toolContext?: { context?: { sessionId?: string } };
    authInfo?: FrontMcpAuthInfoLike;
    rawOutput?: unknown;
    /** The call's `params`: its tool name and arguments, which FrontMCP's `validateInput` stage parses. */
    input?: { name?: string; arguments?: unknown } & Record<string, unknown>;
  };
  input?: { ctx?: { internalCall?: boolean } & Record<string, unknown> };
  scope?: FrontMcpScopeLike;
}

/** FrontMCP's scope, for the `clientInfo` its notification service keeps per session (S23.2). */
interface FrontMcpScopeLike {
  notifications?: { getClientInfo?(sessionId: string): { name?: unknown } | undefined };
}

/**
 * S23.2 on FrontMCP: the calling host's `clientInfo.name`, as FrontMCP's notification service recorded it
 * at `initialize`, by the session ids a call carries (the context's, then `authInfo`'s); none when unknown.
 */
export function frontMcpClientName(scope: FrontMcpScopeLike | undefined, ...sessionIds: unknown[]): string | undefined {
  for (const id of sessionIds) {
    if (typeof id !== "string" || !id) continue;
    try {
      const name = scope?.notifications?.getClientInfo?.(id)?.name;
      if (typeof name === "string" && name) return name;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * S22.2: the owner of a FrontMCP call. The session is the request context's session id (the
 * `Mcp-Session-Id`, stable across the requests of one session, also in transparent mode without a token,
 * where `authInfo.sessionId` changes per request); the caller is `authInfo.user.sub` when it names a user
 * (S16.2: a non-empty string or a safe whole number), never FrontMCP's per-session `anon:` subjects.
 */
export function frontMcpOwner(sessionId: unknown, authInfo: FrontMcpAuthInfoLike | undefined): Owner {
  const owner: Owner = {};
  if (typeof sessionId === "string" && sessionId) owner.session = sessionId;
  const sub = authInfo?.user?.sub;
  if (typeof sub === "string" && sub && !sub.startsWith("anon:")) owner.caller = sub;
  else if (typeof sub === "number" && Number.isSafeInteger(sub)) owner.caller = String(sub);
  return owner;
}

/** The session id of a FrontMCP context; its getter throws outside a request (FrontMCP's own rule). */
export function contextSessionId(holder: { context?: { sessionId?: string } } | undefined): string | undefined {
  try {
    return holder?.context?.sessionId;
  } catch {
    return undefined;
  }
}

/** The registry of each FrontMCP server, keyed by an object FrontMCP gives that server's plugins and tools alike. */
const servers = new WeakMap<object, HostInstances<FrontMcpCall>>();

/**
 * Joins an instance to the registry of one FrontMCP server. The server's one `result_query` reads every
 * joined instance's handles (S10.1), and references in any tool's arguments resolve from them (S15.1, S22.5).
 */
export function joinFrontMcpServer(server: object, instance: PluginInstance): HostInstances<FrontMcpCall> {
  let instances = servers.get(server);
  if (!instances) servers.set(server, (instances = new HostInstances<FrontMcpCall>()));
  instances.join(instance, { owner: (call) => call.owner });
  return instances;
}

/** The registry of a FrontMCP server, once an instance joined it. */
export function frontMcpServerInstances(server: object): HostInstances<FrontMcpCall> | undefined {
  return servers.get(server);
}

/**
 * S22.2: folds the answer of one FrontMCP tool call, from a hook before FrontMCP's `finalize` stage, by
 * replacing `state.rawOutput` with the folded result (which FrontMCP sends as it is). `ownsTool` says
 * whether the tool is of the app that registered `instance` (1.5.2 runs every plugin's hooks for every
 * tool). Whole answers, and nothing changed: a tool called by another tool (`internalCall`), a tool that
 * renders a UI, an output FrontMCP itself would refuse; the rest as S4 says.
 */
export async function foldInFlow(
  instances: HostInstances<FrontMcpCall>,
  instance: PluginInstance,
  flow: FrontMcpCallFlowLike,
  ownsTool: (tool: FrontMcpToolLike) => boolean,
): Promise<void> {
  const { state } = flow;
  const tool = state.tool;
  const raw = state.rawOutput;
  if (!tool || raw === undefined || flow.input?.ctx?.internalCall === true) return;
  if (tool.metadata?.ui !== undefined || !ownsTool(tool)) return;
  let parsed: { success: boolean; data?: unknown };
  try {
    parsed = tool.safeParseOutput(raw);
  } catch {
    return; // FrontMCP's own finalize says what is wrong with this output
  }
  if (!parsed.success || !isPlainObject(parsed.data)) return;
  const result = withRawMeta(parsed.data as ToolResult, raw);
  const sessionId = contextSessionId(state.toolContext);
  const owner = frontMcpOwner(sessionId, state.authInfo);
  const client = frontMcpClientName(
    flow.scope,
    sessionId,
    (state.authInfo as { sessionId?: unknown } | undefined)?.sessionId,
  );
  const folded = await instances.foldWith(instance, {
    toolName: tool.name,
    fullName: tool.fullName ?? tool.name,
    result,
    call: { owner },
    outputSchema: outputSchemaOf(tool.outputSchema),
    toolMeta: tool.metadata?._meta,
    request: flow.input?.ctx,
    ...(client !== undefined ? { client } : {}),
  });
  if (folded !== result) state.rawOutput = folded;
}

/** FrontMCP's finalize keeps the raw output's `_meta` beside the parsed answer: the fold keeps it too (S5.3). */
function withRawMeta(result: ToolResult, raw: unknown): ToolResult {
  const meta = isPlainObject(raw) && isPlainObject(raw._meta) ? raw._meta : undefined;
  return meta && result !== raw
    ? { ...result, _meta: { ...(result._meta as Record<string, unknown> | undefined), ...meta } }
    : result;
}

/**
 * S4.6 over FrontMCP's output schema forms: a zod schema (a Standard Schema) as it is; a zod raw shape
 * (`{ rows: z.array(…) }`, which FrontMCP reads as `z.object(shape)`) as a schema that admits a value whose
 * every named key its member schema admits; the literal forms (`"string"`, `"image"`, lists of them) and
 * none as no schema.
 */
function outputSchemaOf(schema: unknown): StandardSchemaLike | undefined {
  if (isStandardSchema(schema)) return schema;
  if (!isPlainObject(schema)) return undefined;
  const members = Object.entries(schema);
  if (members.length === 0 || !members.every(([, member]) => isStandardSchema(member))) return undefined;
  return {
    "~standard": {
      validate: async (value: unknown) => {
        if (!isPlainObject(value)) return { issues: [{ message: "not an object" }] };
        for (const [key, member] of members) {
          const checked = await (member as StandardSchemaLike)["~standard"].validate(value[key]);
          if (checked.issues) return { issues: checked.issues };
        }
        return {};
      },
    },
  };
}

/**
 * S15.1, S15.2 on FrontMCP (S22.5): `{ "$result": handle, "path"?: … }` in a tool's arguments is replaced by
 * the data it names, read for the call's owner from every instance of the server, in a hook before
 * FrontMCP's `validateInput` stage (which parses `state.input`). A reference that does not resolve ends the
 * call before the tool runs: `respond` is given the refusal, with `result_query`'s code and text.
 */
export async function resolveInFlow(
  instances: HostInstances<FrontMcpCall>,
  flow: FrontMcpCallFlowLike,
  respond: (refusal: ToolResult) => void,
): Promise<void> {
  const { state } = flow;
  const tool = state.tool;
  const input = state.input;
  if (!tool || !input || input.arguments === undefined) return;
  const owner = frontMcpOwner(contextSessionId(state.toolContext), state.authInfo);
  const resolved = await instances.resolve(
    tool.name,
    input.arguments,
    { owner },
    outputSchemaOf(tool.outputSchema) === undefined,
  );
  if ("refusal" in resolved) {
    state.rawOutput = resolved.refusal;
    respond(resolved.refusal);
    return;
  }
  if (resolved.references > 0) state.input = { ...input, arguments: resolved.args };
}
