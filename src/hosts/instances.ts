/**
 * The host-neutral part of every host (MCP `McpServer`, WebMCP `document.modelContext`): the plugin
 * instances installed on one host, which instance folds which tool, the owner of a call per instance,
 * and the one `result_query` that reads every instance's handles (S10.1, S10.2).
 */
import { RESULT_QUERY_TOOL_NAME } from "../plugin/defaults.js";
import type { Owner } from "../records/crypto/keys.js";
import { describeError } from "../errors.js";
import { foldToolResult, type FoldContext, type Logger, type StandardSchemaLike } from "../fold/fold.js";
import { foldContextFor, type PluginInstance } from "../plugin/instance.js";
import { isPlainObject } from "../util/json.js";
import { ResultQueryTool } from "../query/result-query-tool.js";
import type { ToolResult } from "../util/tool-result.js";

/** How one installation names its call's owner (S8.1); `Call` is whatever the host knows of a call. */
export type CallOwner<Call> = (call: Call) => Owner;

export interface JoinOptions<Call> {
  /** Tools this instance folds; without it, every tool no other instance names (S10.1). */
  tools?: readonly string[];
  owner: CallOwner<Call>;
  /** This installation's logger; the plugin's own logger otherwise. */
  logger?: Logger;
}

interface Installation<Call> {
  instance: PluginInstance;
  tools: ReadonlySet<string> | undefined;
  owner: CallOwner<Call>;
  context: FoldContext;
}

/** What the host knows of one tool call, for the fold. */
export interface ToolCall<Call> {
  toolName: string;
  result: unknown;
  call: Call;
  outputSchema?: unknown;
  toolMeta?: Record<string, unknown>;
  /** Handed to `foldPolicy` as `context.request`. */
  request?: unknown;
}

export class HostInstances<Call> {
  private readonly installations: Installation<Call>[] = [];
  /** The one `result_query` of this host, reading every joined instance's handles. */
  readonly queryTool = new ResultQueryTool(() => this.installations.map((installation) => installation.instance));

  /** Adds an instance; a second join of the same instance keeps the first installation. */
  join(instance: PluginInstance, options: JoinOptions<Call>): void {
    if (this.installations.some((installation) => installation.instance === instance)) return;
    this.installations.push({
      instance,
      tools: options.tools ? new Set(options.tools) : undefined,
      owner: options.owner,
      context: foldContextFor(instance, options.logger),
    });
  }

  /** The instance that folds a tool: the one naming it, else the first that names no tools (S10.1). */
  private installationFor(toolName: string): Installation<Call> | undefined {
    return (
      this.installations.find((installation) => installation.tools?.has(toolName)) ??
      this.installations.find((installation) => installation.tools === undefined)
    );
  }

  /** The answer to send for one client call: folded by its tool's instance, or as it was. */
  async fold(call: ToolCall<Call>): Promise<unknown> {
    if (call.toolName === RESULT_QUERY_TOOL_NAME) return call.result; // a slice is never folded again (S7.7)
    const installation = this.installationFor(call.toolName);
    if (!installation || !isToolResult(call.result)) return call.result;
    let owner: Owner;
    try {
      owner = installation.owner(call.call);
    } catch (error) {
      // S4.7: a host's owner resolver (or a page without crypto.randomUUID) never fails the call.
      installation.context.warn(
        `result-handles: could not resolve the owner of a call to tool "${call.toolName}" (${describeError(error)}); sent its answer whole`,
      );
      return call.result;
    }
    return foldToolResult(installation.context, {
      toolName: call.toolName,
      result: call.result,
      outputSchema: isStandardSchema(call.outputSchema) ? call.outputSchema : undefined,
      toolMeta: call.toolMeta,
      owner,
      request: call.request,
    });
  }

  /** Answers a `result_query` call; each instance's store is read with that installation's owner. */
  query(args: unknown, call: Call): Promise<ToolResult> {
    return this.queryTool.handler(args, (source) => {
      const installation = this.installations.find((candidate) => candidate.instance === source) ?? this.installations[0]!;
      return installation.owner(call);
    });
  }
}

const REGISTRY = Symbol.for("mcp-result-handles/instances");
type HostObject = object & { [REGISTRY]?: HostInstances<never> };

/**
 * Joins `instance` to the registry kept on `host` (an `McpServer`, a `ModelContext`). The first join on a
 * host creates the registry and runs `setUp` once, where the host hooks its tool calls and registers
 * `result_query`; later joins only add the instance (S10.1: one `result_query` per host).
 */
export function joinHost<Call>(
  host: object,
  instance: PluginInstance,
  options: JoinOptions<Call>,
  setUp: (instances: HostInstances<Call>) => void,
): HostInstances<Call> {
  const target = host as HostObject;
  let instances = target[REGISTRY] as HostInstances<Call> | undefined;
  const first = !instances;
  if (!instances) {
    instances = new HostInstances<Call>();
    Object.defineProperty(target, REGISTRY, { value: instances, enumerable: false });
  }
  instances.join(instance, options);
  if (first) setUp(instances);
  return instances;
}

export function isToolResult(value: unknown): value is ToolResult {
  return isPlainObject(value) && (Array.isArray(value.content) || value.structuredContent !== undefined);
}

export function isStandardSchema(value: unknown): value is StandardSchemaLike {
  return typeof value === "object" && value !== null && typeof (value as { "~standard"?: { validate?: unknown } })["~standard"]?.validate === "function";
}
