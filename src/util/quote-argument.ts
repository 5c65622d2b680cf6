import { cutString } from "./json.js";

/** At most this many characters of an argument appear in a refusal (S7.10). */
const MAX_QUOTED_CHARS = 200;

/**
 * An argument (path, handle, field) as a JSON string for a refusal message, cut to its first
 * `MAX_QUOTED_CHARS` characters: a 1 MB argument must not make a 1 MB answer, twice (text and
 * structuredContent) (S7.10).
 */
export function quoteArgument(text: string): string {
  if (text.length <= MAX_QUOTED_CHARS) return JSON.stringify(text);
  return `${JSON.stringify(cutString(text, MAX_QUOTED_CHARS))}… (${text.length} characters)`;
}

/** Text built from an argument (such as a canonical path), cut like `quoteArgument` but not quoted. */
export function cutForMessage(text: string): string {
  return text.length <= MAX_QUOTED_CHARS ? text : `${cutString(text, MAX_QUOTED_CHARS)}… (${text.length} characters)`;
}
