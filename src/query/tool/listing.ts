/**
 * What `result_query` shows a client in `tools/list` (S7.1, S7.9, S18.3): its input and output schemas, its
 * annotations and its description; everything a conversation pays for before the first call.
 */
import { DEFAULT_LIMITS, MAX_LIMIT, MAX_SEARCH_CHARS } from "../../defaults.js";
import { RESULT_QUERY_ERROR_CODES } from "../../errors.js";
import { ANY_JSON_SCHEMA } from "../../util/json.js";

/**
 * What every conversation pays for (S18.3): the entry as compact JSON (name, description, inputSchema) stays
 * under 1,800 bytes, so the property descriptions are short and the description holds the examples once.
 */
export const INPUT_JSON_SCHEMA = {
  type: "object",
  properties: {
    handle: { type: "string", description: "The handle of a folded answer" },
    path: { type: "string", default: "$", description: "Where to read, or a JSONPath query" },
    offset: { type: "integer", minimum: 0, default: 0, description: "First item, character, key or node" },
    limit: { type: "integer", minimum: 1, maximum: MAX_LIMIT, description: "How many" },
    page: { type: "integer", minimum: 1, description: "One-based page of limit, instead of offset" },
    fields: { type: "array", items: { type: "string" }, description: "Keys to keep of each object" },
    search: {
      type: "string",
      minLength: 1,
      maxLength: MAX_SEARCH_CHARS,
      description: "Text to find under path, any case",
    },
    aggregate: { type: "object" }, // S24.1: { count?, sum?, min?, max?, avg?, distinct?, by? }, said in the description
  },
  required: ["handle"],
} as const;

/**
 * Admits both the slice of S7.5 and the refusal of S7.6: MCP SDK v1 clients (the MCP Inspector, most
 * desktop clients) check `structuredContent` against it even when `isError` is true, and a mismatch would
 * hide the refusal's code behind a protocol error (S7.9). The root stays `type: "object"`, as MCP requires.
 */
export const OUTPUT_JSON_SCHEMA = {
  type: "object",
  properties: {
    path: { type: "string" },
    // Any JSON: a slice, the values of a nodelist (S14.2), or search hits { path, text, key?, line?, offset? } (S14.4,
    // S14.7).
    value: { ...ANY_JSON_SCHEMA, description: "A slice, nodes' values, hits { path, text, line? } or figures" },
    groups: { type: "array" }, // S24.1: { key, count, sum?, min?, max?, avg?, skipped?, examples }
    groupCount: { type: "integer" },
    paths: { type: "array", items: { type: "string" } },
    total: { type: "integer" },
    offset: { type: "integer" },
    nextOffset: { type: "integer" }, // where the next page starts, when more remains
    note: { type: "string", description: "Why nothing was found, or how an argument was read" }, // S18.2, S18.4
    error: {
      type: "object",
      properties: {
        code: { type: "string", enum: RESULT_QUERY_ERROR_CODES },
        message: { type: "string" },
      },
      required: ["code", "message"],
    },
  },
  // A slice or an aggregate's figures (path with value), an aggregate's groups (S24.1), or a refusal (S7.6).
  anyOf: [{ required: ["path", "value"] }, { required: ["path", "groups"] }, { required: ["error"] }],
} as const;

/** Reading never changes anything, and the same call gives the same slice (S7.8). */
export const ANNOTATIONS = Object.freeze({ readOnlyHint: true, idempotentHint: true });

/**
 * A Standard Schema carrying a fixed JSON Schema and accepting any value, so `result_query` checks its own arguments.
 */
export function passThroughSchema(json: Record<string, unknown>) {
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
 * The description (S7.8, S14.7, S18.3): path forms with one filter, the defaults, one search, that
 * handles expire, and, where references resolve, one sentence on passing an answer on (S15.3).
 */
export function describeResultQuery(references: boolean): string {
  return (
    "Reads part of a large tool answer folded into { preview, shape, handle }. " +
    "path: $.rows[2].title, rows.2.title, /rows/2/title, or an RFC 9535 JSONPath " +
    "query such as $.rows[?@.status == 'open'] or $..title, " +
    "answering { value: [nodes], paths, total } (limit 1: the count). " +
    `offset, limit or page (one-based) slice lists (${DEFAULT_LIMITS.items} items by default), ` +
    `objects (${DEFAULT_LIMITS.keys} keys) and strings (${DEFAULT_LIMITS.chars} characters); ` +
    "nextOffset says where the next slice starts. fields keeps those keys of each object. " +
    'search finds text in values and keys under path, in any case, e.g. { handle, search: "timeout" }: ' +
    "hits { path, text, line? }. " +
    'aggregate { by: "owner", sum|min|max|avg: "priority" } counts path\'s nodes per owner. ' +
    (references
      ? 'To pass an answer, or a part, to another tool, put { "$result": handle, "path": … } in its arguments. '
      : "") +
    "Handles expire after minutes and work only in the session that got them: " +
    "on RESULT_HANDLE_NOT_FOUND, call the original tool again."
  );
}
