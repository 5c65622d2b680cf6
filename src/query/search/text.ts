/**
 * Text as `search` compares it (S14.4): folded case with indexes kept, a window around a match, and what
 * a batch's JSON text says before it is parsed (S14.6).
 */
import { isHighSurrogate, isLowSurrogate } from "../../util/json.js";
import { fold } from "./case-fold.js";

export { fold, findFolded, type Folded, type FoldedMatch } from "./case-fold.js";

/**
 * Whether JSON text may hold a hit for `needle`, from the text alone (S14.6: a batch of a list that
 * cannot is never parsed), or undefined when the text cannot tell. A needle of printable ASCII without
 * `"` or `\` stands in the JSON of every key, string, number or boolean holding it exactly as there
 * (`JSON.stringify` escapes nothing else), and folding the text (S21.6: ß holds "ss", K holds "k")
 * folds it as the search does.
 */
export function textMayHold(needle: string): ((text: string) => boolean) | undefined {
  if (!/^[\x20\x21\x23-\x5b\x5d-\x7e]+$/.test(needle)) return undefined;
  const folded = fold(needle).text;
  // Text holding the folded needle as it is holds it folded too: the usual case of a needle that is in
  // the text is then found without folding the text.
  return (text) => text.includes(folded) || fold(text).text.includes(folded);
}

/**
 * A window of at most `width` characters of `text[from, to)` around the match at `at`, centred on it,
 * never splitting a surrogate pair.
 */
export function around(
  text: string,
  from: number,
  to: number,
  at: number,
  length: number,
  width: number,
): [number, number] {
  if (to - from <= width) return [from, to];
  let start = Math.max(from, Math.min(at - Math.floor((width - length) / 2), to - width));
  let end = Math.min(to, start + width);
  if (start > from && isLowSurrogate(text.charCodeAt(start)) && isHighSurrogate(text.charCodeAt(start - 1))) start++;
  if (end < to && isHighSurrogate(text.charCodeAt(end - 1)) && isLowSurrogate(text.charCodeAt(end))) end--;
  return [start, end];
}

/** Characters JSON.stringify writes outside strings (structure, numbers, true, false, null), lower-cased. */
const OUTSIDE_STRINGS = new Set("{}[],:0123456789-.e+truefalsn");

/**
 * A counter of hits from a batch's JSON text alone (S14.6), for a needle that can stand only inside
 * strings: printable ASCII without `"` or `\` (so a string holding it holds it verbatim, see `textMayHold`)
 * and with a character JSON never writes outside a string (so no number, literal or structure holds it).
 * Undefined for any other needle. The counter answers undefined for text it cannot count exactly: text
 * with an escape (a multi-line string is a hit per line; `\u00e9` is not the text `u00e9`), or text whose
 * folding changes its length (İ, ß). Otherwise each string (key or value) holding the needle is one hit.
 */
export function hitCounter(needle: string): ((text: string) => number | undefined) | undefined {
  if (!textMayHold(needle)) return undefined;
  const folded = fold(needle).text;
  if (![...folded].some((char) => !OUTSIDE_STRINGS.has(char))) return undefined;
  return (text) => {
    if (text.includes("\\")) return undefined;
    const { text: lower, toOriginal } = fold(text);
    if (toOriginal) return undefined;
    let hits = 0;
    for (let at = lower.indexOf(folded); at >= 0; at = lower.indexOf(folded, lower.indexOf('"', at) + 1)) hits++;
    return hits;
  };
}
