/**
 * The only place that touches members the MCP TypeScript SDK v2 marks private: the SDK has no public
 * hook around `tools/call` yet. Everything is duck-typed (a WebMCP polyfill may carry its own SDK copy,
 * so `instanceof` would fail) and checked up front, so an SDK that changes shape fails loudly at
 * `install`, not silently at the first call. Known to match @modelcontextprotocol/server 2.4.0.
 */
import { UnsupportedMcpServerError } from "../errors.js";

export interface RegisteredToolLike {
  outputSchema?: unknown;
  _meta?: Record<string, unknown>;
}

export type ExecuteToolHandler = (tool: RegisteredToolLike, args: unknown, ctx: unknown) => Promise<unknown>;

interface McpServerInternals {
  /** `McpServer.executeToolHandler(tool, args, ctx)`: runs a tool for a client's `tools/call`, and only then. */
  executeToolHandler: ExecuteToolHandler;
  /** `McpServer._registeredTools`: name → registered tool. */
  _registeredTools: Record<string, RegisteredToolLike>;
}

function internals(server: object): McpServerInternals {
  const candidate = server as Partial<McpServerInternals> & { registerTool?: unknown };
  if (typeof candidate.registerTool !== "function") throw new UnsupportedMcpServerError("it has no registerTool()");
  if (typeof candidate.executeToolHandler !== "function") throw new UnsupportedMcpServerError("it has no executeToolHandler(tool, args, ctx)");
  if (typeof candidate._registeredTools !== "object" || candidate._registeredTools === null) {
    throw new UnsupportedMcpServerError("it has no _registeredTools map");
  }
  return candidate as McpServerInternals;
}

/** Checks the server has the members this package relies on; throws `UnsupportedMcpServerError` otherwise. */
export function assertSupportedServer(server: object): void {
  internals(server);
}

/**
 * Runs `around` for every client `tools/call` on this server, whether the tool was registered before or
 * after, with the tool's registered name. A tool calling another tool's function directly is not seen (S4.1).
 */
export function interceptToolCalls(
  server: object,
  around: (name: string, tool: RegisteredToolLike, ctx: unknown, run: () => Promise<unknown>) => Promise<unknown>,
): void {
  const sdk = internals(server);
  const original = sdk.executeToolHandler;
  sdk.executeToolHandler = function (this: unknown, tool, args, ctx) {
    const run = () => original.call(this, tool, args, ctx);
    const name = Object.keys(sdk._registeredTools).find((key) => sdk._registeredTools[key] === tool);
    return name === undefined ? run() : around(name, tool, ctx, run);
  };
}
