/**
 * What a folded answer says (S5): `{ preview, shape, handle }` as `structuredContent` and as JSON text, a
 * second text telling the model how to read it (S5.2) and, when the host resolves references, how to pass
 * it to another tool (S15.3), then a `resource_link` when the host serves handles as resources (S15.4).
 */
import { RESULT_HANDLE_META_KEY, RESULT_HANDLE_URI_SCHEME, RESULT_QUERY_TOOL_NAME } from "../defaults.js";
import { formatPath } from "../query/paths/path.js";
import { isPlainObject, type KeyLists } from "../util/json.js";
import type { FoldedAnswer } from "./folded-answer.js";
import type { ContentBlock, ToolResult } from "../util/tool-result.js";

export interface FoldedFacts {
  /** The answer's size as UTF-8 JSON (S4.3). */
  bytes: number;
  ttlSeconds: number;
  /** A path worth reading first (S7.5 canonical form). */
  path: string;
  /** The host resolves `{ "$result": handle, "path": … }` in other tools' arguments (S15.1). */
  references: boolean;
  /** The host serves `result-handle://<handle>` (S15.4). */
  resourceLink: boolean;
}

/** The hint text of S5.2 (and S15.3), with the real handle filled in. */
export function hintText(handle: string, facts: FoldedFacts): string {
  const example = { handle, path: facts.path, limit: 20 };
  let hint =
    `This answer (${facts.bytes} bytes) was folded: above are its preview and shape. Read the parts you need with the ` +
    `${RESULT_QUERY_TOOL_NAME} tool and handle ${handle}, valid for ${facts.ttlSeconds} seconds. ` +
    `Filter with a JSONPath path such as $.rows[?@.status == 'open'], or find text with search: "timeout". ` + // S14.7
    `Example: ${RESULT_QUERY_TOOL_NAME} ${JSON.stringify(example)}`;
  if (facts.references) {
    const reference = { $result: handle, path: facts.path };
    hint +=
      `. To give this answer, or a part of it, to another tool without copying it, put ${JSON.stringify(reference)} ` +
      `where that tool expects the data (without "path" for the whole answer): the server puts the data there.`;
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
    _meta: { ...original._meta, [RESULT_HANDLE_META_KEY]: { handle, bytes: facts.bytes, ttlSeconds: facts.ttlSeconds } },
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

/**
 * The first list under the root, in the canonical path form `result_query` answers with (S7.5), so the
 * example call reads rows rather than the whole answer. Only the first keys are looked at: an object of
 * 48,000 keys and no list is not worth a scan (S4.8); a very long key would make a long hint.
 */
export function examplePath(data: unknown, keyLists: KeyLists): string {
  if (isPlainObject(data)) {
    const keys = keyLists.of(data);
    for (let i = 0; i < Math.min(keys.length, EXAMPLE_KEYS_SCANNED); i++) {
      const key = keys[i]!;
      if (Array.isArray(data[key]) && key.length <= EXAMPLE_KEY_MAX_CHARS) return formatPath([key]);
    }
  }
  return "$";
}

const EXAMPLE_KEYS_SCANNED = 1000;
const EXAMPLE_KEY_MAX_CHARS = 100;
