/**
 * The viewer as an MCP App (S19.1, S19.2), with `install(server, { viewer: true | { tools } })`: the
 * resource `ui://result-handles/viewer`, the app-only tool `result_view`, and `_meta.ui.resourceUri` on
 * the `tools/list` entry of each tool the viewer shows that has no UI of its own. Registered through the
 * MCP Apps server helpers (`registerAppResource`, `registerAppTool`), which the package's build carries
 * (they import nothing), so a server that never turns the viewer on needs nothing more installed.
 */
import {
  getUiCapability,
  registerAppResource,
  registerAppTool,
  RESOURCE_MIME_TYPE,
  RESOURCE_URI_META_KEY,
} from "@modelcontextprotocol/ext-apps/server";
import { ResultQueryError } from "../errors.js";
import { isPlainObject } from "../util/json.js";
import { refusalResult, ResultQueryTool } from "../query/tool/result-query-tool.js";
import type { PluginInstance } from "../plugin/instance.js";
import type { ToolResult } from "../util/tool-result.js";
import { textResult } from "../util/tool-result.js";
import { loadViewerHtml, RESULT_VIEW_TOOL_NAME, VIEWER_RESOURCE_URI } from "../viewer/html.js";
import type { HostInstances } from "../plugin/host-instances.js";
import type { McpRequestContextLike } from "./mcp-owner.js";
import { clientCapabilities, decorateList } from "./mcp-sdk-internals.js";

export type { ViewerOption } from "../plugin/viewer-option.js";

/** A `result_view` page holds at most this many bytes as JSON, or this many items, keys or nodes (S19.2). */
const VIEW_PAGE = Object.freeze({ bytes: 1024 * 1024, items: 1000 });

/** A tool's own UI (S19.1: kept): `_meta.ui.resourceUri`, or the older flat key. */
export function hasOwnUi(meta: unknown): boolean {
  if (!isPlainObject(meta)) return false;
  return (isPlainObject(meta.ui) && meta.ui.resourceUri !== undefined) || meta[RESOURCE_URI_META_KEY] !== undefined;
}

/** A tool's `_meta` with the viewer named, in both forms hosts read; never the registered object itself. */
export function withViewerUi(meta: Record<string, unknown> | undefined): Record<string, unknown> {
  const ui = isPlainObject(meta?.ui) ? meta.ui : {};
  return { ...meta, ui: { ...ui, resourceUri: VIEWER_RESOURCE_URI }, [RESOURCE_URI_META_KEY]: VIEWER_RESOURCE_URI };
}

/**
 * The instance as `result_view` reads it: its store and rules, but pages of up to 1 MiB (S19.2): the slice
 * limit only; what folds is the instance's own.
 */
// A view is the part of an instance `result_query` reads (a Pick of `PluginInstance`), with its own config.
const viewSources = new WeakMap<PluginInstance, Pick<PluginInstance, "config" | "store" | "workers">>();
const originals = new WeakMap<object, PluginInstance>();
function viewSource(source: PluginInstance): Pick<PluginInstance, "config" | "store" | "workers"> {
  let view = viewSources.get(source);
  const sliceLimitBytes = Math.max(source.config.sliceLimitBytes, VIEW_PAGE.bytes);
  if (!view || view.config.sliceLimitBytes !== sliceLimitBytes) {
    view = {
      config: { ...source.config, sliceLimitBytes },
      store: () => source.store(),
      get workers() {
        return source.workers;
      },
    };
    viewSources.set(source, view);
    originals.set(view, source);
  }
  return view;
}

/**
 * `result_view` over a host's instances (S19.2): `result_query`'s arguments, reading and answers (the same
 * query code), each instance's owner rules unchanged, and pages up to 1 MiB or 1,000 items.
 */
export function resultViewHandler<Call>(
  instances: HostInstances<Call>,
): (args: unknown, call: Call) => Promise<ToolResult> {
  const tool = new ResultQueryTool(() => instances.sources().map(viewSource));
  return async (args, call) => {
    const ownerOf = instances.ownerFor(call);
    try {
      const result = await tool.query(args, (source) => ownerOf(originals.get(source) ?? source));
      const value = result.value;
      const count = Array.isArray(value)
        ? value.length
        : isPlainObject(value) && result.total !== undefined
          ? Object.keys(value).length
          : 0;
      if (count > VIEW_PAGE.items) {
        throw new ResultQueryError(
          "INVALID_INPUT",
          `result_view answers at most ${VIEW_PAGE.items} items, keys or nodes a page (this one held ${count}): ` +
            `ask with limit ${VIEW_PAGE.items} or less. A string may be read ${VIEW_PAGE.bytes} bytes at a time.`,
        );
      }
      return textResult(result as unknown as Record<string, unknown>);
    } catch (error) {
      return refusalResult(error);
    }
  };
}

interface McpServerWithResources {
  registerResource(
    name: string,
    uri: string,
    config: Record<string, unknown>,
    read: (uri: URL) => Promise<unknown>,
  ): unknown;
  registerTool(name: string, config: Record<string, unknown>, callback: (...args: never[]) => unknown): unknown;
}

/** Registers the resource, `result_view` and the `tools/list` entries' UI on an `McpServer`; once per server. */
export function serveViewer(server: object, instances: HostInstances<McpRequestContextLike>): void {
  const target = server as McpServerWithResources;
  registerAppResource(
    target as never,
    "result-handles-viewer",
    VIEWER_RESOURCE_URI,
    {
      title: "Result viewer",
      description: "Shows a tool's answer, folded or whole, as a table, a tree or numbered lines",
    },
    async () => ({
      contents: [
        {
          uri: VIEWER_RESOURCE_URI,
          mimeType: RESOURCE_MIME_TYPE,
          text: await loadViewerHtml(),
          _meta: { ui: { csp: {}, prefersBorder: true } },
        },
      ],
    }),
  );
  const query = instances.queryTool;
  const handler = resultViewHandler(instances);
  registerAppTool(
    target as never,
    RESULT_VIEW_TOOL_NAME,
    {
      title: "Read a folded answer for the viewer",
      description:
        "Reads part of a folded answer for the result viewer, as result_query does, " +
        "in pages of up to 1 MiB or 1000 items.",
      inputSchema: query.inputSchema,
      outputSchema: query.outputSchema,
      annotations: query.annotations,
      _meta: { ui: { resourceUri: VIEWER_RESOURCE_URI, visibility: ["app"] } },
    } as never,
    (async (args: unknown, ctx: McpRequestContextLike) => handler(args, ctx)) as never,
  );
  // A client known not to render MCP Apps (its capabilities lack the extension) sees both lists as before;
  // one whose capabilities are unknown (a 2025 request served statelessly) gets the viewer listed.
  const rendersApps = (ctx: unknown) => {
    const declared = clientCapabilities(server, ctx);
    return declared === undefined || getUiCapability(declared) !== undefined;
  };
  decorateList(server, "tools/list", (tools, ctx) => {
    if (!rendersApps(ctx)) return tools.filter((tool) => tool.name !== RESULT_VIEW_TOOL_NAME);
    return tools.map((tool) => {
      const name = tool.name;
      if (typeof name !== "string" || !instances.viewerShows(name) || hasOwnUi(tool._meta)) return tool;
      return { ...tool, _meta: withViewerUi(tool._meta as Record<string, unknown> | undefined) };
    });
  });
  decorateList(server, "resources/list", (resources, ctx) =>
    rendersApps(ctx) ? resources : resources.filter((resource) => resource.uri !== VIEWER_RESOURCE_URI),
  );
}
