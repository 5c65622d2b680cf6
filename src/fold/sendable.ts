/**
 * S16.7: an answer JSON cannot write (a BigInt, a cycle, a throwing getter, nesting too deep for
 * `JSON.stringify`) must not reach the transport, whose serialiser would throw after the tool returned and
 * leave the client waiting for a reply that never comes. Hosts check every answer they send, small, large
 * or anonymous, and end such a call with an `isError` result that names the problem.
 */
import { describeError, type ResultHandlesErrorCode } from "../errors.js";
import { isPlainObject } from "../util/json.js";
import { cutForMessage } from "../util/quote-argument.js";
import type { ToolResult } from "../util/tool-result.js";

/**
 * Why `result` cannot be sent as JSON, or `undefined` when it can. One `JSON.stringify` of it, without the
 * parts known to write: text blocks' strings, and `serialised` (the `structuredContent` the fold already
 * serialised whole), so an answer the fold measured is not written twice more.
 */
export function whyUnsendable(result: unknown, serialised?: unknown): string | undefined {
  try {
    JSON.stringify(withoutKnownParts(result, serialised));
    return undefined;
  } catch (error) {
    return cutForMessage(describeError(error)); // a getter's message could be long (S7.10)
  }
}

/** A shallow copy of `result` (reading every own key, as the transport would) with texts and `serialised` left out. */
function withoutKnownParts(result: unknown, serialised: unknown): unknown {
  if (!isPlainObject(result)) return result;
  const copy: Record<string, unknown> = { ...result };
  if (serialised !== undefined && copy.structuredContent === serialised) copy.structuredContent = null;
  if (Array.isArray(copy.content)) {
    copy.content = copy.content.map((block: unknown) => {
      if (!isPlainObject(block) || typeof block.text !== "string") return block;
      return { ...block, text: "" };
    });
  }
  return copy;
}

const UNSENDABLE: ResultHandlesErrorCode = "ANSWER_NOT_SERIALIZABLE";

/**
 * The `isError` result a call gets in place of an answer that cannot be sent (S16.7), its code also in
 * `structuredContent.error` as every refusal of S7.6 has it (S26.7); `structured: false` leaves that out
 * for a tool whose own output schema would not admit `{ error }` (an SDK v1 client checks it, S7.9).
 */
export function unsendableResult(toolName: string, why: string, structured = true): ToolResult {
  const message =
    `the tool "${toolName}" returned an answer that cannot be sent as JSON (${why}). ` +
    `This is a fault of the tool, not of the call: trying again will not help.`;
  return {
    content: [{ type: "text", text: `${UNSENDABLE}: ${message}` }],
    ...(structured ? { structuredContent: { error: { code: UNSENDABLE, message } } } : {}),
    isError: true,
  };
}
