/**
 * The host-neutral part of every host (MCP `McpServer`, WebMCP `document.modelContext`): the plugin
 * instances installed on one host, which instance folds which tool, the owner of a call per instance,
 * and the one `result_query` that reads every instance's handles (S10.1, S10.2).
 */
import { RESULT_QUERY_TOOL_NAME } from "../defaults.js";
import type { Owner } from "../records/crypto/keys.js";
import { describeError } from "../errors.js";
import {
  foldOutcome,
  warnFoldFailure,
  type FoldContext,
  type FoldOutcome,
  type Logger,
  type StandardSchemaLike,
} from "../fold/fold.js";
import { unsendableResult, whyUnsendable } from "../fold/sendable.js";
import { foldContextFor, type PluginInstance } from "./instance.js";
import { isPlainObject } from "../util/json.js";
import { callMeters, refusalResult, ResultQueryTool, type OpenedReferences } from "../query/tool/result-query-tool.js";
import { resolveReferences } from "./references.js";
import { RESULT_VIEW_TOOL_NAME } from "../viewer/html.js";
import { viewerShows, type ViewerOption } from "./viewer-option.js";
import type { ToolResult } from "../util/tool-result.js";
import { StoreCall } from "../records/store.js";

/** How one installation names its call's owner (S8.1); `Call` is whatever the host knows of a call. */
type CallOwner<Call> = (call: Call) => Owner;

interface JoinOptions<Call> {
  /** Tools this instance folds; without it, every tool no other instance names (S10.1). */
  tools?: readonly string[];
  owner: CallOwner<Call>;
  /** This installation's logger; the plugin's own logger otherwise. */
  logger?: Logger;
  /** `false` turns reference resolution (S15.1) and its hint (S15.3) off on this host, for every instance. */
  references?: boolean;
  /** This instance's folded answers end with a `resource_link` (S15.4); the host serves them. */
  resources?: boolean;
  /** The viewer shows this instance's tools' answers (S19.1). */
  viewer?: ViewerOption;
}

interface Installation<Call> {
  instance: PluginInstance;
  tools: ReadonlySet<string> | undefined;
  owner: CallOwner<Call>;
  context: FoldContext;
  resources: boolean;
  viewer: ViewerOption | undefined;
}

/** What the host knows of one tool call, for the fold. */
interface ToolCall<Call> {
  toolName: string;
  /** The name the host lists the tool under, for `foldPolicy`'s `context.fullName` (FrontMCP's `app:name`). */
  fullName?: string;
  result: unknown;
  call: Call;
  outputSchema?: unknown;
  toolMeta?: Record<string, unknown>;
  /** Handed to `foldPolicy` as `context.request`. */
  request?: unknown;
  /** The calling host's `clientInfo.name`, when known (S23.2). */
  client?: string;
}

export class HostInstances<Call> {
  private readonly installations: Installation<Call>[] = [];
  /** The one `result_query` of this host, reading every joined instance's handles. */
  readonly queryTool = new ResultQueryTool(() => this.installations.map((installation) => installation.instance));
  /** Whether references resolve here (S15.1); any installation may turn them off for the host (S15.3). */
  private referencesOn = true;
  /**
   * Set once the host serves `result-handle://` resources (S15.4), so a second `resources: true` does not register them
   * again.
   */
  servesResources = false;
  /** Set once the host serves the viewer and `result_view` (S19.1, S19.2). */
  servesViewer = false;

  /** Whether references resolve on this host (S15.1): `result_query`'s description then says how (S18.3). */
  get references(): boolean {
    return this.referencesOn;
  }
  /**
   * Called after every join: the host lists `result_query` for the instances and references it has now (S18.3, S18.5).
   */
  onJoin?: () => void;

  /** Adds an instance; a second join of the same instance keeps the first installation. */
  join(instance: PluginInstance, options: JoinOptions<Call>): void {
    this.joinOne(instance, options);
    this.onJoin?.();
  }

  private joinOne(instance: PluginInstance, options: JoinOptions<Call>): void {
    if (options.references === false) this.referencesOn = false;
    if (this.installations.some((installation) => installation.instance === instance)) return;
    this.installations.push({
      instance,
      tools: options.tools ? new Set(options.tools) : undefined,
      owner: options.owner,
      context: foldContextFor(instance, options.logger),
      resources: options.resources === true,
      viewer: options.viewer,
    });
  }

  /** The joined instances, in install order: what `result_query` and `result_view` read. */
  sources(): readonly PluginInstance[] {
    return this.installations.map((installation) => installation.instance);
  }

  /** S19.1: whether the viewer shows this tool's answers (the installation folding it turned it on for it). */
  viewerShows(toolName: string): boolean {
    if (toolName === RESULT_QUERY_TOOL_NAME || toolName === RESULT_VIEW_TOOL_NAME) return false;
    return viewerShows(this.installationFor(toolName)?.viewer, toolName);
  }

  /** The instance that folds a tool: the one naming it, else the first that names no tools (S10.1). */
  private installationFor(toolName: string): Installation<Call> | undefined {
    return (
      this.installations.find((installation) => installation.tools?.has(toolName)) ??
      this.installations.find((installation) => installation.tools === undefined)
    );
  }

  /**
   * The answer to send for one client call: folded by its tool's instance, or as it was; and never one the
   * transport cannot write (S16.7): that call ends with an `isError` result and a warning.
   */
  async fold(call: ToolCall<Call>): Promise<unknown> {
    return this.foldBy(this.installationFor(call.toolName), call);
  }

  /**
   * `fold` by a given instance, for a host that knows itself which instance a tool belongs to (FrontMCP:
   * the instance its tool's app registered, S22.2); an instance that has not joined folds nothing.
   */
  foldWith(instance: PluginInstance, call: ToolCall<Call>): Promise<unknown> {
    return this.foldBy(
      this.installations.find((installation) => installation.instance === instance),
      call,
    );
  }

  private async foldBy(installation: Installation<Call> | undefined, call: ToolCall<Call>): Promise<unknown> {
    if (!isToolResult(call.result)) return call.result;
    const outcome =
      isReader(call.toolName) || !installation ? undefined : await this.foldOne(installation, call, call.result);
    const result = outcome?.result ?? call.result;
    const why = whyUnsendable(result, outcome?.serialised);
    if (why === undefined) {
      if (outcome?.failed && installation) warnFoldFailure(installation.context, call.toolName, outcome.failure);
      return result;
    }
    const warn = installation?.context ?? this.installations[0]?.context;
    warn?.warn(
      `result-handles: tool "${call.toolName}" returned an answer that cannot be sent as JSON (${why}); ` +
        `the call ended with an error`,
    );
    return unsendableResult(call.toolName, why, call.outputSchema === undefined);
  }

  /** S4: the fold of one answer by the instance that folds its tool (S7.7: never a slice). */
  private async foldOne(
    installation: Installation<Call>,
    call: ToolCall<Call>,
    result: ToolResult,
  ): Promise<FoldOutcome> {
    let owner: Owner;
    try {
      owner = installation.owner(call.call);
    } catch (error) {
      // S4.7: a host's owner resolver (or a page without crypto.randomUUID) never fails the call.
      installation.context.warn(
        `result-handles: could not resolve the owner of a call to tool "${call.toolName}" ` +
          `(${describeError(error)}); sent its answer whole`,
      );
      return { result, failed: false };
    }
    return foldOutcome(installation.context, {
      toolName: call.toolName,
      fullName: call.fullName,
      result,
      outputSchema: isStandardSchema(call.outputSchema) ? call.outputSchema : undefined,
      toolMeta: call.toolMeta,
      owner,
      request: call.request,
      references: this.referencesOn,
      resourceLink: installation.resources,
      ...(call.client !== undefined ? { client: call.client } : {}),
    });
  }

  /**
   * S15.1, S15.2: a call's arguments with its references replaced, read for this call's owner from every
   * instance (as `result_query` reads them); or, when one does not resolve, the tool error the call ends
   * with, carrying `result_query`'s code and text. `structuredError: false` for a tool whose output schema
   * would not admit `{ error }`. `result_query`'s own arguments, and every call when references are off, pass as they
   * are.
   */
  async resolve(
    toolName: string,
    args: unknown,
    call: Call,
    structuredError: boolean,
  ): Promise<{ args: unknown; references: number } | { refusal: ToolResult }> {
    if (!this.referencesOn || isReader(toolName)) return { args, references: 0 };
    const storeCall = new StoreCall(); // one store deadline over all the call's references (S26.3)
    // one meter for all the call's references: their work adds up to one call's limit and hold (S26.2)
    const meters = callMeters();
    const opened: OpenedReferences = new Map(); // each answer a reference opens to size it is the one it reads
    const owner = this.ownerFor(call);
    const resolved = await resolveReferences(
      args,
      async (handle, path) =>
        (await this.queryTool.referenced(handle, path, owner, "fresh", storeCall, meters, opened)).value,
      (handle, path) => this.queryTool.checkReference(handle, path),
      (handle, path) => this.queryTool.referenceBytes(handle, path, owner, storeCall, opened),
      meters.share,
    );
    return "refusal" in resolved ? { refusal: refusalResult(resolved.refusal, structuredError) } : resolved;
  }

  /**
   * Whether a call of this tool has its references resolved (S15.1): every tool but the readers, while references are
   * on.
   */
  resolvesFor(toolName: unknown): boolean {
    return this.referencesOn && typeof toolName === "string" && !isReader(toolName);
  }

  /** The owner of a call per instance: each installation names it its own way (S8.1). */
  ownerFor(call: Call): (source: Pick<PluginInstance, "config" | "store" | "workers">) => Owner {
    return (source) => {
      const installation =
        this.installations.find((candidate) => candidate.instance === source) ?? this.installations[0]!;
      return installation.owner(call);
    };
  }

  /**
   * Answers a `result_query` call; each instance's store is read with that installation's owner, and its
   * slices stay within the cut of the calling host, `client` (S23.2).
   */
  query(args: unknown, call: Call, client?: string): Promise<ToolResult> {
    return this.queryTool.handler(args, this.ownerFor(call), client);
  }
}

/** The tools that read handles: never folded (S7.7), their arguments never resolved (S15.1). */
function isReader(toolName: string): boolean {
  return toolName === RESULT_QUERY_TOOL_NAME || toolName === RESULT_VIEW_TOOL_NAME;
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
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { "~standard"?: { validate?: unknown } })["~standard"]?.validate === "function"
  );
}
