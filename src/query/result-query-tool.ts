import { RESULT_QUERY_TOOL_NAME } from "../plugin/defaults.js";
import type { Owner } from "../records/crypto/keys.js";
import { describeError, ResultQueryError, type ResultQueryErrorCode } from "../errors.js";
import { quoteArgument } from "../util/quote-argument.js";
import type { ResultHandlesConfig } from "../plugin/options.js";
import { selectForQuery } from "./plan.js";
import { DEFAULT_LIMITS, MAX_LIMIT, parseQueryArguments, queryValue, type QueryResult } from "./query.js";
import type { ResultHandleStore } from "../records/store.js";
import { textResult, type ToolResult } from "../util/tool-result.js";

/** A plugin instance as `result_query` sees it: where its handles live and how large a slice may be. */
export interface HandleSource {
  readonly config: ResultHandlesConfig;
  store(): Promise<ResultHandleStore>;
}

/** The caller, or how to find it per source when hosts resolve owners per plugin instance. */
export type OwnerOf = Owner | ((source: HandleSource) => Owner);

const INPUT_JSON_SCHEMA = {
  type: "object",
  properties: {
    handle: { type: "string", description: "The handle from a folded answer" },
    path: {
      type: "string",
      default: "$",
      description: 'Where to read: "$" (whole answer), $.rows[2].title, $[\'rows\'][-1], rows.2.title or /rows/2/title',
    },
    offset: { type: "integer", minimum: 0, default: 0, description: "First list item, string character or object key" },
    limit: {
      type: "integer",
      minimum: 1,
      maximum: MAX_LIMIT,
      description: `How many: default ${DEFAULT_LIMITS.items} items, ${DEFAULT_LIMITS.keys} keys or ${DEFAULT_LIMITS.chars} characters`,
    },
    page: { type: "integer", minimum: 1, description: "One-based page of `limit`, in place of offset" },
    fields: { type: "array", items: { type: "string" }, description: "Keys to keep of an object or of each object in a list" },
  },
  required: ["handle"],
} as const;

const ERROR_CODES: readonly ResultQueryErrorCode[] = [
  "RESULT_HANDLE_NOT_FOUND",
  "RESULT_PATH_NOT_FOUND",
  "RESULT_SLICE_TOO_LARGE",
  "INVALID_INPUT",
  "RESULT_STORE_UNAVAILABLE",
];

/**
 * Admits both the slice of S7.5 and the refusal of S7.6: MCP SDK v1 clients (the MCP Inspector, most
 * desktop clients) check `structuredContent` against it even when `isError` is true, and a mismatch would
 * hide the refusal's code behind a protocol error (S7.9). The root stays `type: "object"`, as MCP requires.
 */
const OUTPUT_JSON_SCHEMA = {
  type: "object",
  properties: {
    path: { type: "string", description: "Canonical path of the value read" },
    value: { description: "The slice" },
    total: { type: "integer", description: "Items, characters or keys at the path" },
    offset: { type: "integer", description: "First index returned" },
    nextOffset: { type: "integer", description: "Offset of the next slice, when more remains" },
    error: {
      type: "object",
      description: "Present instead of a slice when the call is refused (isError: true)",
      properties: {
        code: { type: "string", enum: ERROR_CODES },
        message: { type: "string" },
      },
      required: ["code", "message"],
    },
  },
  anyOf: [{ required: ["path", "value"] }, { required: ["error"] }],
} as const;

/** Reading never changes anything, and the same call gives the same slice (S7.8). */
const ANNOTATIONS = Object.freeze({ readOnlyHint: true, idempotentHint: true });

/** A Standard Schema carrying a fixed JSON Schema and accepting any value, so `result_query` checks its own arguments. */
function passThroughSchema(json: Record<string, unknown>) {
  return {
    "~standard": {
      version: 1 as const,
      vendor: "mcp-result-handles",
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}

/**
 * The `result_query` tool (S7). Hosts register `name`, `description`, `inputSchema` and `outputSchema`
 * and route calls to `handler`, which answers every refusal as an `isError` result (S7.6).
 */
export class ResultQueryTool {
  readonly name = RESULT_QUERY_TOOL_NAME;
  readonly title = "Read part of a folded answer";
  readonly description =
    "Reads part of a large tool answer that was folded into { preview, shape, handle }. Pass the handle, " +
    'a path ("$" or omitted for the whole answer; $.rows[2].title, $[\'rows\'][-1], the dot path rows.2.title, ' +
    "or the JSON Pointer /rows/2/title), and optionally offset, limit or page (one-based, instead of offset) " +
    `and fields (keys to keep). Lists return ${DEFAULT_LIMITS.items} items, objects ${DEFAULT_LIMITS.keys} keys and ` +
    `strings ${DEFAULT_LIMITS.chars} characters by default; nextOffset says where the next slice starts. ` +
    "Handles expire after a few minutes and work only in the session that received them: on " +
    "RESULT_HANDLE_NOT_FOUND, call the original tool again.";
  readonly inputJsonSchema: Record<string, unknown> = INPUT_JSON_SCHEMA;
  readonly outputJsonSchema: Record<string, unknown> = OUTPUT_JSON_SCHEMA;
  readonly inputSchema = passThroughSchema(INPUT_JSON_SCHEMA);
  readonly outputSchema = passThroughSchema(OUTPUT_JSON_SCHEMA);
  readonly annotations = ANNOTATIONS;

  constructor(private readonly sources: () => readonly HandleSource[]) {}

  /** Handles a call; refusals come back as `{ isError: true, structuredContent: { error } }`, never thrown. */
  async handler(args: unknown, owner: OwnerOf): Promise<ToolResult> {
    try {
      const result = await this.query(args, owner);
      return textResult(result as unknown as Record<string, unknown>);
    } catch (error) {
      const refusal =
        error instanceof ResultQueryError
          ? error
          : new ResultQueryError("INVALID_INPUT", describeError(error));
      return {
        content: [{ type: "text", text: `${refusal.code}: ${refusal.message}` }],
        structuredContent: { error: { code: refusal.code, message: refusal.message } },
        isError: true,
      };
    }
  }

  /** Reads one slice; throws `ResultQueryError`. */
  async query(rawArgs: unknown, owner: OwnerOf): Promise<QueryResult> {
    const args = parseQueryArguments(rawArgs);
    // Every instance's store is asked at once, so a slow or hung store costs one timeout, not one per
    // instance; the first instance (in install order) that holds the handle answers.
    const select = selectForQuery(args); // the path parsed once, whatever the number of instances
    const reads = this.sources().map((source) => ({
      source,
      found: source
        .store()
        .then((store) => store.readShared(args.handle, typeof owner === "function" ? owner(source) : owner, select))
        .then(
          (found): { value: unknown } | "not found" | "unavailable" => found ?? "not found",
          () => "unavailable" as const,
        ),
    }));
    let unavailable = false;
    for (const read of reads) {
      const found = await read.found;
      if (found === "unavailable") unavailable = true;
      else if (found !== "not found") return queryValue(found.value, args, read.source.config.thresholdBytes);
    }
    if (unavailable) {
      throw new ResultQueryError("RESULT_STORE_UNAVAILABLE", "The result store could not be read right now. Try the same call again in a moment.");
    }
    throw new ResultQueryError(
      "RESULT_HANDLE_NOT_FOUND",
      `No answer is kept for handle ${quoteArgument(args.handle)}: it expired, was evicted, or was not issued to this session and caller. Call the original tool again for a new handle.`,
    );
  }
}
