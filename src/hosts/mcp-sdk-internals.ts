/**
 * The only place that touches members the MCP TypeScript SDK v2 marks private: the SDK has no public
 * hook around `tools/call` yet. Everything is duck-typed (a WebMCP polyfill may carry its own SDK copy,
 * so `instanceof` would fail) and checked up front, so an SDK that changes shape fails loudly at
 * `install`, not silently at the first call. Known to match @modelcontextprotocol/server 2.4.0.
 */
import { UnsupportedMcpServerError } from "../errors.js";

interface RegisteredToolLike {
  outputSchema?: unknown;
  _meta?: Record<string, unknown>;
}

type ExecuteToolHandler = (tool: RegisteredToolLike, args: unknown, ctx: unknown) => Promise<unknown>;
type ValidateToolInput = (tool: RegisteredToolLike, args: unknown, toolName: string) => Promise<unknown>;

interface McpServerInternals {
  /**
   * `McpServer.validateToolInput(tool, args, toolName)`: checks a `tools/call`'s arguments against the tool's input
   * schema, just before `executeToolHandler`.
   */
  validateToolInput: ValidateToolInput;
  /** `McpServer.executeToolHandler(tool, args, ctx)`: runs a tool for a client's `tools/call`, and only then. */
  executeToolHandler: ExecuteToolHandler;
  /** `McpServer._registeredTools`: name → registered tool. */
  _registeredTools: Record<string, RegisteredToolLike>;
}

function internals(server: object): McpServerInternals {
  const candidate = server as Partial<McpServerInternals> & { registerTool?: unknown };
  if (typeof candidate.registerTool !== "function") throw new UnsupportedMcpServerError("it has no registerTool()");
  if (typeof candidate.executeToolHandler !== "function")
    throw new UnsupportedMcpServerError("it has no executeToolHandler(tool, args, ctx)");
  if (typeof candidate.validateToolInput !== "function")
    throw new UnsupportedMcpServerError("it has no validateToolInput(tool, args, toolName)");
  if (typeof candidate._registeredTools !== "object" || candidate._registeredTools === null) {
    throw new UnsupportedMcpServerError("it has no _registeredTools map");
  }
  return candidate as McpServerInternals;
}

/** Checks the server has the members this package relies on; throws `UnsupportedMcpServerError` otherwise. */
export function assertSupportedServer(server: object): void {
  internals(server);
}

/** What `around` gets of one client `tools/call`. */
interface InterceptedCall {
  /** The tool's registered name. */
  name: string;
  tool: RegisteredToolLike;
  ctx: unknown;
  /** The arguments as the client sent them, not yet checked against the tool's input schema. */
  args: unknown;
  /** Checks `args` against the tool's input schema (its refusal is the SDK's own, as before), then runs the tool. */
  run(args: unknown): Promise<unknown>;
}

/** The arguments of a call, held back from `validateToolInput` until `executeToolHandler`, which knows the caller. */
class HeldArguments {
  constructor(
    readonly args: unknown,
    readonly toolName: string,
  ) {}
}

/**
 * Runs `around` for every client `tools/call` on this server, whether the tool was registered before or
 * after, with the tool's registered name. A tool calling another tool's function directly is not seen (S4.1).
 * The SDK checks a call's arguments in `validateToolInput` and then runs `executeToolHandler(tool, args, ctx)`
 * in the same `try`: the check is moved into the second, so `around` sees the arguments first (S15.1:
 * references are resolved before the input schema is checked) and a refusal is the same tool error as before.
 */
export function interceptToolCalls(server: object, around: (call: InterceptedCall) => Promise<unknown>): void {
  const sdk = internals(server);
  const validate = sdk.validateToolInput;
  const execute = sdk.executeToolHandler;
  const nameOf = (tool: RegisteredToolLike) =>
    Object.keys(sdk._registeredTools).find((key) => sdk._registeredTools[key] === tool);
  sdk.validateToolInput = function (this: unknown, tool, args, toolName) {
    return nameOf(tool) === undefined
      ? validate.call(this, tool, args, toolName)
      : Promise.resolve(new HeldArguments(args, toolName));
  };
  sdk.executeToolHandler = function (this: unknown, tool, args, ctx) {
    const name = nameOf(tool);
    if (name === undefined) return execute.call(this, tool, args, ctx);
    const held = args instanceof HeldArguments ? args : undefined;
    const run = async (input: unknown) =>
      execute.call(this, tool, held ? await validate.call(this, tool, input, held.toolName) : input, ctx);
    return around({ name, tool, ctx, args: held ? held.args : args, run });
  };
}

/**
 * A stand-in for the SDK's `ResourceTemplate` (`new ResourceTemplate(uri, { list: undefined })`), which
 * `McpServer.registerResource` accepts: the SDK reads `uriTemplate.match(uri)` to route `resources/read`,
 * `uriTemplate.toString()` to list it, `uriTemplate.variableNames`, `listCallback` and `completeCallback(name)`.
 * Built here, not imported, so the package never loads the SDK itself (a page may carry another copy).
 */
export function resourceTemplateLike(template: string, match: (uri: string) => Record<string, string> | null) {
  return {
    uriTemplate: { match, toString: () => template, variableNames: [] as string[] },
    listCallback: undefined,
    completeCallback: () => undefined,
  };
}

type RequestHandler = (request: unknown, ctx: unknown) => Promise<Record<string, unknown>>;

/**
 * Lets `decorate` change the entries of every `tools/list` or `resources/list` answer (S19.1: the viewer's
 * `_meta.ui` on the tools it shows, and the viewer listed only to clients that may render it) without
 * touching the registered tools, whose own `_meta` the fold reads (S4.2). The SDK keeps request handlers in
 * `McpServer.server._requestHandlers` (method → handler); a list's handler exists once a tool (a resource)
 * is registered. Entries are the SDK's own fresh objects, built per request.
 */
export function decorateList(
  server: object,
  method: "tools/list" | "resources/list",
  decorate: (entries: Record<string, unknown>[], ctx: unknown) => Record<string, unknown>[],
): void {
  const key = method === "tools/list" ? "tools" : "resources";
  const handlers = (server as { server?: { _requestHandlers?: unknown } }).server?._requestHandlers;
  const list = handlers instanceof Map ? (handlers.get(method) as RequestHandler | undefined) : undefined;
  if (!(handlers instanceof Map) || typeof list !== "function")
    throw new UnsupportedMcpServerError(`it has no server._requestHandlers with a ${method} handler`);
  handlers.set(method, async (request: unknown, ctx: unknown) => {
    const result = await list(request, ctx);
    return Array.isArray(result[key])
      ? { ...result, [key]: decorate(result[key] as Record<string, unknown>[], ctx) }
      : result;
  });
}

/**
 * What the client of one request declared it supports, when that is known: on the 2026-07-28 era the
 * request's own envelope (absent there: nothing declared); on a 2025 connection what its `initialize`
 * said (`Server.getClientCapabilities()`). Undefined when unknown: a 2025 request served statelessly, whose
 * per-request server never saw an `initialize`.
 */
export function clientCapabilities(server: object, ctx: unknown): Record<string, unknown> | undefined {
  const envelope = (ctx as { mcpReq?: { envelope?: Record<string, unknown> } } | undefined)?.mcpReq?.envelope;
  if (envelope && typeof envelope["io.modelcontextprotocol/protocolVersion"] === "string") {
    const declared = envelope["io.modelcontextprotocol/clientCapabilities"];
    return typeof declared === "object" && declared !== null ? (declared as Record<string, unknown>) : {};
  }
  const inner = (server as { server?: { getClientCapabilities?: () => unknown } }).server;
  const declared = typeof inner?.getClientCapabilities === "function" ? inner.getClientCapabilities() : undefined;
  return typeof declared === "object" && declared !== null ? (declared as Record<string, unknown>) : undefined;
}

/**
 * The `clientInfo.name` of the client that sent a request (S23.2): on the 2026-07-28 era the request's own
 * envelope (`io.modelcontextprotocol/clientInfo`); on a 2025 connection what its `initialize` said
 * (`Server.getClientVersion()`). Undefined when unknown (a 2025 request served statelessly).
 */
export function clientName(server: object, ctx: unknown): string | undefined {
  const envelope = (ctx as { mcpReq?: { envelope?: Record<string, unknown> } } | undefined)?.mcpReq?.envelope;
  if (envelope && typeof envelope["io.modelcontextprotocol/protocolVersion"] === "string") {
    return nameOf(envelope["io.modelcontextprotocol/clientInfo"]);
  }
  const inner = (server as { server?: { getClientVersion?: () => unknown } }).server;
  return nameOf(typeof inner?.getClientVersion === "function" ? inner.getClientVersion() : undefined);
}

function nameOf(info: unknown): string | undefined {
  const name = typeof info === "object" && info !== null ? (info as { name?: unknown }).name : undefined;
  return typeof name === "string" ? name : undefined;
}
