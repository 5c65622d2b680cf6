/**
 * S4.2: whether a text block repeats `structuredContent` (the same JSON in any layout or key order), so
 * the answer counts as one value. The usual case is settled while serialising; the rest without recursion.
 */
import { hasOwn } from "../util/json.js";
import type { SerializedAnswer } from "../records/format/serialize.js";

/** Whether `text` is the same JSON as `structured`, whose compact serialisation is `serialized`. */
export function repeats(text: string | undefined, serialized: SerializedAnswer, structured: unknown): boolean {
  if (typeof text !== "string") return false;
  if (serialized.repeated) return true; // the usual MCP answer: compared while serialising
  // Pretty-printed by JSON.stringify: printing again with its indent is native, faster than a scan in JS.
  const indent = prettyIndent(text);
  if (indent && text === JSON.stringify(structured, null, indent)) return true;
  const json = serialized.text;
  if (text.length > json.length && sameButLayout(text, json)) return true; // any other layout
  try {
    return sameJson(JSON.parse(text), JSON.parse(json));
  } catch {
    return false;
  }
}

/** The indent of a text that `JSON.stringify(value, null, indent)` may have written: what follows `{\n` or `[\n`. */
function prettyIndent(text: string): string | undefined {
  if ((text[0] !== "{" && text[0] !== "[") || text[1] !== "\n") return undefined;
  const unit = text[2];
  if (unit !== " " && unit !== "\t") return undefined;
  let end = 3;
  while (end < 12 && text[end] === unit) end++;
  return text.slice(2, end); // JSON.stringify indents by at most 10
}

/**
 * Whether `text` is the compact JSON text `json` with whitespace between its tokens, for layouts that
 * `JSON.stringify` does not write (CRLF, other separators): one pass over the text, without parsing it.
 */
function sameButLayout(text: string, json: string): boolean {
  let at = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!inString && (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09)) continue;
    if (code !== json.charCodeAt(at++)) return false;
    if (!inString) inString = code === 0x22;
    else if (code === 0x5c) {
      if (text.charCodeAt(++i) !== json.charCodeAt(at++)) return false; // the escaped character
    } else if (code === 0x22) inString = false;
  }
  return at === json.length;
}

/** Deep equality of two parsed JSON values, in any key order; iterative, so depth cannot overflow the stack. */
function sameJson(a: unknown, b: unknown): boolean {
  const pending: unknown[] = [a, b];
  while (pending.length > 0) {
    const y = pending.pop();
    const x = pending.pop();
    if (x === y) continue;
    if (typeof x !== "object" || typeof y !== "object" || x === null || y === null) return false;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) pending.push(x[i], y[i]);
      continue;
    }
    if (Array.isArray(y)) return false;
    const keys = Object.keys(x);
    if (keys.length !== Object.keys(y).length) return false;
    for (const key of keys) {
      if (!hasOwn(y, key)) return false;
      pending.push((x as Record<string, unknown>)[key], (y as Record<string, unknown>)[key]);
    }
  }
  return true;
}
