/**
 * Folded answers as MCP resources (S15.4), with `install(server, { resources: true })`: the server lists
 * the template `result-handle://{handle}` and serves `resources/read` for it, the whole answer as JSON
 * text, or with a query string (`path`, `offset`, `limit`, `page`, `search`, `fields` comma-separated) the
 * `result_query` result for those arguments. The owner rules of S8.2 hold: an unknown, expired or foreign
 * handle is the protocol's resource-not-found error, the same in all three cases but for the URI.
 * A whole answer of more than MAX_WHOLE_RESOURCE_BYTES is refused, measured from its summary before it is
 * read, with the ranged form that works (S21.3): parsing and writing 100 MB held the thread 2 s.
 */
import { MAX_RESOURCE_QUERY_PARAMETERS, MAX_WHOLE_RESOURCE_BYTES, RESULT_HANDLE_URI_SCHEME } from "../defaults.js";
import { ResultQueryError } from "../errors.js";
import type { HostInstances } from "../plugin/host-instances.js";
import type { McpRequestContextLike } from "./mcp-owner.js";
import { UnsupportedMcpServerError } from "../errors.js";
import { resourceTemplateLike } from "./mcp-sdk-internals.js";
import { StoreCall } from "../records/store.js";

const PREFIX = `${RESULT_HANDLE_URI_SCHEME}://`;
const RESULT_HANDLE_URI_TEMPLATE = `${PREFIX}{handle}`;

/** JSON-RPC "invalid params": what the SDK answers a `resources/read` miss with, on every revision. */
const INVALID_PARAMS = -32602;

/**
 * A protocol error as the SDK's request handler sends it on (its `code`, `message` and `data`). The SDK's
 * own `ResourceNotFoundError` is this code with `data: { uri }` and the message `Resource not found: <uri>`,
 * which SDK clients turn back into a `ResourceNotFoundError`.
 */
class ResourceReadError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}

interface McpServerWithResources {
  registerResource(
    name: string,
    template: unknown,
    config: Record<string, unknown>,
    read: (uri: URL, variables: unknown, ctx: unknown) => Promise<unknown>,
  ): unknown;
}

/** Lists the template and serves its reads on `server`, for every instance's handles; once per server. */
export function serveHandleResources(server: object, instances: HostInstances<McpRequestContextLike>): void {
  const target = server as Partial<McpServerWithResources>;
  if (typeof target.registerResource !== "function")
    throw new UnsupportedMcpServerError("it has no registerResource() for resources: true");
  target.registerResource(
    "result-handle",
    resourceTemplateLike(RESULT_HANDLE_URI_TEMPLATE, matchHandleUri),
    {
      title: "A folded answer",
      description:
        "The whole answer behind a result handle, as JSON; " +
        "?path=…&offset=…&limit=…&page=…&fields=a,b reads a part, as result_query does",
      mimeType: "application/json",
    },
    (uri, _variables, ctx) => readHandleResource(instances, uri.toString(), ctx as ReadContext),
  );
}

/** `{ handle }` for `result-handle://<handle>` with or without a query string; null for any other URI. */
function matchHandleUri(uri: string): Record<string, string> | null {
  if (!uri.startsWith(PREFIX)) return null;
  const rest = uri.slice(PREFIX.length);
  const end = rest.search(/[?#]/);
  const handle = end < 0 ? rest : rest.slice(0, end);
  return handle && !handle.includes("/") ? { handle } : null;
}

/** The request context of a read: the caller, and (2026-07-28 on) the request's envelope naming its revision. */
type ReadContext = McpRequestContextLike & { mcpReq?: { envelope?: Record<string, unknown> } };

/** Revisions with per-result cache hints (SEP-2549): a request of one carries its version in its envelope. */
function hasCacheHints(ctx: ReadContext): boolean {
  return typeof ctx.mcpReq?.envelope?.["io.modelcontextprotocol/protocolVersion"] === "string";
}

async function readHandleResource(instances: HostInstances<McpRequestContextLike>, uri: string, ctx: ReadContext) {
  const { handle } = matchHandleUri(uri)!;
  const owner = instances.ownerFor(ctx);
  try {
    const query = queryArguments(uri);
    let text: string;
    let expiresAt: number;
    if (query === undefined) {
      const storeCall = new StoreCall(); // one store deadline over both reads (S26.3)
      const bytes = await instances.queryTool.answerBytes(handle!, owner, storeCall);
      if (bytes > MAX_WHOLE_RESOURCE_BYTES) throw await tooLargeWhole(instances, handle!, owner, bytes, uri);
      const found = await instances.queryTool.referenced(handle, undefined, owner, "shared", storeCall);
      text = JSON.stringify(found.value);
      expiresAt = found.expiresAt;
    } else {
      const found = await instances.queryTool.queryUntil({ handle, ...query }, owner);
      text = JSON.stringify(found.result);
      expiresAt = found.expiresAt;
    }
    const contents = [{ uri, mimeType: "application/json", text }];
    if (!hasCacheHints(ctx)) return { contents };
    // One user's answer, never to be shared from a cache; valid for the handle's remaining lifetime.
    return { contents, cacheScope: "private", ttlMs: Math.max(0, Math.floor(expiresAt - Date.now())) };
  } catch (error) {
    throw asProtocolError(error, uri);
  }
}

/**
 * The refusal of a whole read past MAX_WHOLE_RESOURCE_BYTES: the ranged URI that works, made from the
 * advice a refused `$` gives (S14.5: its largest part and a limit that fits), and that advice.
 */
async function tooLargeWhole(
  instances: HostInstances<McpRequestContextLike>,
  handle: string,
  owner: Parameters<typeof instances.queryTool.queryUntil>[1],
  bytes: number,
  uri: string,
): Promise<ResultQueryError> {
  let advice = "";
  try {
    await instances.queryTool.queryUntil({ handle, path: "$" }, owner);
  } catch (error) {
    if (error instanceof ResultQueryError && error.code === "RESULT_SLICE_TOO_LARGE")
      advice = error.message.replace(/^The slice at \$ is [^.]*\. /, "");
  }
  const base = uri.split("?")[0];
  const tried = /path "([^"]+)" and limit (\d+)/.exec(advice);
  const ranged = tried ? `${base}?path=${encodeURIComponent(tried[1]!)}&limit=${tried[2]}` : `${base}?path=$&limit=20`;
  return new ResultQueryError(
    "RESULT_SLICE_TOO_LARGE",
    `The whole answer is ${bytes} bytes, over the ${MAX_WHOLE_RESOURCE_BYTES} a whole resources/read returns ` +
      `(S21.3): read it in parts with a query string (the arguments of result_query), such as ${ranged}.` +
      (advice ? ` ${advice}` : ""),
  );
}

function asProtocolError(error: unknown, uri: string): Error {
  if (!(error instanceof ResultQueryError)) return error instanceof Error ? error : new Error(String(error));
  // Unknown, expired and foreign read alike: the SDK's own not-found error, naming only the URI (S8.2).
  if (error.code === "RESULT_HANDLE_NOT_FOUND")
    return new ResourceReadError(INVALID_PARAMS, `Resource not found: ${uri}`, { uri });
  return new ResourceReadError(INVALID_PARAMS, `${error.code}: ${error.message}`);
}

/**
 * The `result_query` arguments in a URI's query string, or undefined when it has none: numbers as numbers
 * when they are written as whole numbers (anything else goes to the query's own check, and its refusal),
 * `fields` split at commas. Unknown names are ignored, as `result_query` ignores unknown arguments; more
 * than MAX_RESOURCE_QUERY_PARAMETERS of them are refused, counted before anything is parsed (S21.2).
 */
function queryArguments(uri: string): Record<string, unknown> | undefined {
  const at = uri.indexOf("?");
  if (at < 0) return undefined;
  const end = uri.indexOf("#", at);
  const query = uri.slice(at + 1, end < 0 ? undefined : end);
  let count = 1;
  for (let amp = query.indexOf("&"); amp >= 0; amp = query.indexOf("&", amp + 1)) count++;
  if (count > MAX_RESOURCE_QUERY_PARAMETERS) {
    throw new ResultQueryError(
      "INVALID_INPUT",
      `The query string has ${count} parameters, over the ${MAX_RESOURCE_QUERY_PARAMETERS} a result-handle URI ` +
        `may have (S21.2): it takes path, search, offset, limit, page and fields (the arguments of result_query), ` +
        `each once`,
    );
  }
  const params = new URLSearchParams(query);
  const args: Record<string, unknown> = {};
  for (const name of ["path", "search"] as const) {
    const value = params.get(name);
    if (value !== null) args[name] = value;
  }
  for (const name of ["offset", "limit", "page"] as const) {
    const value = params.get(name);
    if (value !== null) args[name] = /^-?\d+$/.test(value) ? Number(value) : value;
  }
  const fields = params.get("fields");
  if (fields !== null) args.fields = fields === "" ? [] : fields.split(",");
  return args;
}
