/**
 * The WebMCP host (S10.2): tools registered on `document.modelContext` through the plugin fold like MCP
 * tools, and `result_query` is registered beside them, once per model context. Follows the current draft:
 * `registerTool(tool, { signal })`, a tool is removed by aborting its signal, and the browser serialises
 * whatever `execute` returns into the string `executeTool` answers. `navigator.modelContext` is accepted
 * only as a fallback for pages written against the older draft.
 */
import type { Owner } from "../records/crypto/keys.js";
import { describeError, WebMcpUnavailableError } from "../errors.js";
import type { Logger, StandardSchemaLike } from "../fold/fold.js";
import { jsonSchemaAdmitsFoldedAnswer } from "../fold/json-schema-admits-folded.js";
import type { PluginInstance } from "../plugin/instance.js";
import { isPlainObject } from "../util/json.js";
import type { ToolResult } from "../util/tool-result.js";
import { isStandardSchema, isToolResult, joinHost, type HostInstances } from "../plugin/host-instances.js";
import { hasOwnUi, resultViewHandler, withViewerUi, type ViewerOption } from "./viewer.js";

/** A WebMCP tool as a page declares it (the draft's `ModelContextTool`, with the MCP extras pages use). */
export interface WebMcpTool {
  name: string;
  title?: string;
  description: string;
  /** JSON Schema of the input. */
  inputSchema?: Record<string, unknown>;
  /**
   * The output's schema (S4.6): a Standard Schema (zod) checks each folded answer; a JSON Schema is listed
   * to the agent, and the tool folds only if it admits `{ preview, shape, handle }` by the rule of
   * `jsonSchemaAdmitsFoldedAnswer` (put the folded form in an `anyOf`); otherwise answers are sent whole.
   */
  outputSchema?: unknown;
  annotations?: Record<string, unknown>;
  /** A UI resource named here means the answer renders a widget and never folds (S4.2). */
  _meta?: Record<string, unknown>;
  /** Returns the answer: an MCP `CallToolResult`, or a plain value (an object, a list, a string). */
  execute(input: Record<string, unknown>): unknown;
}

export interface WebMcpRegisterOptions {
  /** Aborting it removes the tool (the draft's way to unregister). */
  signal?: AbortSignal;
}

/** The part of the draft's `ModelContext` this host uses. */
export interface ModelContextLike {
  registerTool(tool: Record<string, unknown>, options?: { signal?: AbortSignal }): unknown;
}

export interface WebMcpHostOptions {
  /** Tools this instance folds; without it, every tool no other instance names (S10.1, S10.2). */
  tools?: readonly string[];
  /** Replaces the default owner: one verified session per page load (S10.2). */
  owner?: () => Owner;
  /** Where this installation's warnings go; the plugin's logger (`console`) by default. */
  logger?: Logger;
  /** Where to register; `document.modelContext`, else `navigator.modelContext`, by default. */
  modelContext?: ModelContextLike;
  /** Aborting it removes `result_query` from the model context (only the first installation's counts). */
  signal?: AbortSignal;
  /**
   * `false` stops `{ "$result": handle }` references resolving in this model context's tools (S15.1, S15.3). Default
   * true.
   */
  references?: boolean;
  /**
   * The result viewer shows these tools' answers (S19.1, S19.4): their declarations carry
   * `_meta.ui.resourceUri` (`ui://result-handles/viewer`), and the page shows the viewer (`loadViewerHtml()`)
   * with reads through `host.resultView(args)`, which the page's agent is never offered. Default false.
   */
  viewer?: ViewerOption;
}

/** What `plugin.webmcp()` returns: registers the page's tools with folding. */
export interface WebMcpHost {
  readonly modelContext: ModelContextLike;
  /** Registers `tool` on the model context; its large answers fold. Resolves when the browser has it. */
  registerTool(tool: WebMcpTool, options?: WebMcpRegisterOptions): Promise<void>;
  /**
   * `result_view` for the page's own viewer (S19.2): `result_query`'s arguments and answers, pages up to 1 MiB or 1,000
   * items.
   */
  resultView(args: unknown): Promise<ToolResult>;
}

let pageSession: string | undefined;

/**
 * S10.2: a page is one user's context. Calls from the page's own agent count as one verified session per
 * page load: a random id minted on first use, gone with the page (a reload starts a new session).
 */
export function pageLoadOwner(): Owner {
  pageSession ??= globalThis.crypto.randomUUID();
  return { session: pageSession };
}

/** `document.modelContext` (current draft), else `navigator.modelContext` (older draft), else none. */
export function findModelContext(): ModelContextLike | undefined {
  const fromDocument = (globalThis as { document?: { modelContext?: ModelContextLike } }).document?.modelContext;
  if (fromDocument) return fromDocument;
  return (globalThis as { navigator?: { modelContext?: ModelContextLike } }).navigator?.modelContext;
}

/** Attaches a plugin instance to a WebMCP model context; the first instance there registers `result_query`. */
export function installOnWebMcp(instance: PluginInstance, options: WebMcpHostOptions = {}): WebMcpHost {
  const modelContext = options.modelContext ?? findModelContext();
  if (!modelContext) throw new WebMcpUnavailableError();
  const owner = options.owner ?? pageLoadOwner;
  const join = {
    tools: options.tools,
    owner,
    logger: options.logger,
    references: options.references,
    viewer: options.viewer,
  };
  const instances = joinHost<void>(
    modelContext,
    instance,
    join,
    (joined) =>
      // A failed registration of result_query surfaces on the page's own registerTool calls of the same context.
      void Promise.resolve(modelContext.registerTool(resultQueryTool(joined), { signal: options.signal })).catch(
        (error: unknown) =>
          instance.warn(
            `result-handles: could not register result_query on WebMCP (${describeError(error)})`,
            options.logger,
          ),
      ),
  );
  const view = resultViewHandler(instances);
  return {
    modelContext,
    resultView: (args) => view(args, undefined),
    registerTool: async (tool, registerOptions = {}) => {
      await modelContext.registerTool(
        foldingTool(tool, instances),
        registerOptions.signal ? { signal: registerOptions.signal } : {},
      );
    },
  };
}

function resultQueryTool(instances: HostInstances<void>): Record<string, unknown> {
  const query = instances.queryTool;
  return {
    name: query.name,
    title: query.title,
    description: query.descriptionFor(instances.references),
    inputSchema: query.inputJsonSchema,
    annotations: query.annotations,
    execute: (args: unknown) => instances.query(args, undefined),
  };
}

/** The tool as registered: the same declaration, its answer folded when it qualifies (S4). */
function foldingTool(tool: WebMcpTool, instances: HostInstances<void>): Record<string, unknown> {
  const { execute, outputSchema, _meta, ...declaration } = tool;
  const isJsonSchema = isPlainObject(outputSchema) && !isStandardSchema(outputSchema);
  const listedOutputSchema = isJsonSchema ? { outputSchema } : {};
  // The fold checks a Standard Schema per answer; a JSON Schema is judged once, here, by a fixed rule.
  const checkedSchema = isJsonSchema ? verdictSchema(jsonSchemaAdmitsFoldedAnswer(outputSchema)) : outputSchema;
  // S19.1: the viewer named on the tools it shows; a tool's own UI is kept (and its answers never fold, S4.2).
  const listedMeta = instances.viewerShows(tool.name) && !hasOwnUi(_meta) ? { _meta: withViewerUi(_meta) } : {};
  return {
    ...declaration,
    ...listedOutputSchema,
    ...listedMeta,
    execute: async (input: Record<string, unknown>) => {
      // S15.1: references resolve for the page's owner before the tool sees its input; S15.2: one that does not ends
      // the call here.
      const resolved = await instances.resolve(tool.name, input, undefined, outputSchema === undefined);
      if ("refusal" in resolved) return resolved.refusal;
      const answer = await execute.call(tool, resolved.args as Record<string, unknown>);
      const result = asToolResult(answer);
      if (!result) return answer;
      const folded = await instances.fold({
        toolName: tool.name,
        result,
        call: undefined,
        outputSchema: checkedSchema,
        toolMeta: _meta,
        request: input,
      });
      return folded === result ? answer : folded;
    },
  };
}

/**
 * A Standard Schema answering a fixed verdict: how the fold's S4.6 check (and its one warning per tool) sees a JSON
 * Schema.
 */
function verdictSchema(admits: boolean): StandardSchemaLike {
  const outcome = admits
    ? {}
    : { issues: [{ message: "the tool's JSON Schema outputSchema does not admit { preview, shape, handle }" }] };
  return { "~standard": { validate: () => outcome } };
}

/** A `CallToolResult` as it is; a plain object or list as structured data; a string as one text (S4.2, S4.3). */
function asToolResult(answer: unknown): ToolResult | undefined {
  if (isToolResult(answer)) return answer;
  if (typeof answer === "string") return { content: [{ type: "text", text: answer }] };
  // the fold serialises it once; a text copy would be a second
  if (isPlainObject(answer)) return { content: [], structuredContent: answer };
  if (Array.isArray(answer)) return { content: [{ type: "text", text: JSON.stringify(answer) }] };
  return undefined;
}
