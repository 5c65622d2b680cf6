/**
 * What a folded answer says (S5): `{ preview, shape, handle }` as `structuredContent` and as JSON text, a
 * second text telling the model how to read it (S5.2) and, when the host resolves references, how to pass
 * it to another tool (S15.3), then a `resource_link` when the host serves handles as resources (S15.4).
 */
import {
  DEFAULT_LIMITS,
  RESULT_HANDLE_META_KEY,
  RESULT_HANDLE_URI_SCHEME,
  RESULT_QUERY_TOOL_NAME,
} from "../defaults.js";
import type { FoldedAnswer } from "./folded-answer.js";
import type { HintExamples } from "./hint-examples.js";
import type { ContentBlock, ToolResult } from "../util/tool-result.js";

interface FoldedFacts {
  /** The answer's size as UTF-8 JSON (S4.3). */
  bytes: number;
  ttlSeconds: number;
  /** Where to read first and what to filter and search for, from this answer (S18.1). */
  examples: HintExamples;
  /** The host resolves `{ "$result": handle, "path": … }` in other tools' arguments (S15.1). */
  references: boolean;
  /** The host serves `result-handle://<handle>` (S15.4). */
  resourceLink: boolean;
  /** The estimated token count, when the plugin folds by tokens (S18.6). */
  tokens?: number;
  /** The host's cut that made it fold, not the threshold (S23.2): "Codex's 10 KiB limit". */
  cut?: string;
}

/** The hint text of S5.2 (and S15.3), with the real handle and this answer's own examples filled in (S18.1). */
function hintText(handle: string, facts: FoldedFacts): string {
  const { examples } = facts;
  const call = (args: Record<string, unknown>) => `${RESULT_QUERY_TOOL_NAME} ${JSON.stringify({ handle, ...args })}`;
  const first = { path: examples.path, limit: examples.limit };
  const folded = `was folded${facts.cut ? ` to fit ${facts.cut}` : ""}`;
  let hint =
    `This answer (${facts.bytes} bytes) ${folded}: above are its preview and shape. ` +
    `Read the parts you need with the ${RESULT_QUERY_TOOL_NAME} tool and handle ${handle}, ` +
    `valid for ${facts.ttlSeconds} seconds. Example: ${call(first)}.`;
  if (examples.text) hint += ` It is one string: offset and limit count characters.`;
  // S14.7, S18.1: a filter and a search true of this answer, each a call that works as written.
  const limit = examples.limit === DEFAULT_LIMITS.nodes ? {} : { limit: examples.limit };
  if (examples.filter) hint += ` Filter with JSONPath: ${call({ path: examples.filter, ...limit })}.`;
  const hits = examples.searchLimit === DEFAULT_LIMITS.items ? {} : { limit: examples.searchLimit };
  if (examples.search)
    hint += ` Find text${examples.text ? " (a hit per line)" : ""}: ${call({ search: examples.search, ...hits })}.`;
  if (facts.references) {
    const reference = examples.path === "$" ? { $result: handle } : { $result: handle, path: examples.path };
    const whole = examples.path === "$" ? "" : ' (without "path" for the whole answer)';
    hint +=
      ` To give this answer, or a part of it, to another tool without copying it, put ${JSON.stringify(reference)} ` +
      `where that tool expects the data${whole}: the server puts the data there.`;
  }
  return hint;
}

export function foldedResult(original: ToolResult, folded: FoldedAnswer, facts: FoldedFacts): ToolResult {
  const { handle } = folded;
  const content: ContentBlock[] = [
    { type: "text", text: JSON.stringify(folded) },
    { type: "text", text: hintText(handle, facts) },
  ];
  if (facts.resourceLink) content.push(resourceLink(handle, facts.bytes));
  const { content: _content, structuredContent: _structured, ...rest } = original;
  return {
    ...rest,
    content,
    structuredContent: folded as unknown as Record<string, unknown>,
    _meta: {
      ...original._meta,
      [RESULT_HANDLE_META_KEY]: {
        handle,
        bytes: facts.bytes,
        ttlSeconds: facts.ttlSeconds,
        ...(facts.tokens !== undefined ? { tokens: facts.tokens } : {}),
      },
    },
  };
}

/** S15.4: the folded answer as a resource the client may read whole or in parts. */
function resourceLink(handle: string, bytes: number): ContentBlock {
  return {
    type: "resource_link",
    uri: `${RESULT_HANDLE_URI_SCHEME}://${handle}`,
    name: `result-${handle}`,
    description: "The whole folded answer as JSON; add ?path=…&limit=… to read a part, as result_query does",
    mimeType: "application/json",
    size: bytes,
  };
}
