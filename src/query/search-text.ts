/**
 * Text as `search` compares it (S14.4): folded case with indexes kept, a window around a match, and what
 * a batch's JSON text says before it is parsed (S14.6).
 */
import { isHighSurrogate, isLowSurrogate } from "../util/json.js";

/**
 * Whether JSON text may hold a hit for `needle`, from the text alone (S14.6: a batch of a list that
 * cannot is never parsed), or undefined when the text cannot tell. A needle of printable ASCII without
 * `"` or `\` stands in the JSON of every key, string, number or boolean holding it exactly as there
 * (`JSON.stringify` escapes nothing else), and lower-casing the text folds the case the search folds.
 */
export function textMayHold(needle: string): ((text: string) => boolean) | undefined {
  if (!/^[\x20\x21\x23-\x5b\x5d-\x7e]+$/.test(needle)) return undefined;
  const folded = needle.toLowerCase();
  // Text holding the folded needle as it is holds it folded too (folding is per character here): the
  // usual case of a needle that is in the text is then found without folding the text.
  return (text) => text.includes(folded) || text.toLowerCase().includes(folded);
}

/**
 * A window of at most `width` characters of `text[from, to)` around the match at `at`, centred on it,
 * never splitting a surrogate pair.
 */
export function around(text: string, from: number, to: number, at: number, length: number, width: number): [number, number] {
  if (to - from <= width) return [from, to];
  let start = Math.max(from, Math.min(at - Math.floor((width - length) / 2), to - width));
  let end = Math.min(to, start + width);
  if (start > from && isLowSurrogate(text.charCodeAt(start)) && isHighSurrogate(text.charCodeAt(start - 1))) start++;
  if (end < to && isHighSurrogate(text.charCodeAt(end - 1)) && isLowSurrogate(text.charCodeAt(end))) end--;
  return [start, end];
}

/**
 * Lower case with the string's length kept, so indexes into it are indexes into the original.
 * `toLowerCase` keeps the length of all but a few characters (U+0130 İ becomes two units); a string
 * holding one is folded character by character, keeping those few as they are.
 */
export function foldCase(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length) return lower;
  let out = "";
  for (const char of text) {
    const folded = char.toLowerCase();
    out += folded.length === char.length ? folded : char;
  }
  return out;
}
