/**
 * Full Unicode case folding for `search` (S21.6), the same for the text and the needle: what `toLowerCase`
 * of the whole text finds, search finds. Lower-casing the text whole but the needle alone missed a
 * word-final Σ (the text's ς against the needle's σ), a word beside İ (its lower case is two units, so the
 * old fold kept it as it was) and decomposed text (`i` + U+0307 against İ).
 *
 * A character folds as its lower case upper-cased and lower-cased again (ẞ → ß → SS → ss, ς → Σ → σ,
 * İ → i̇, ﬁ → FI → fi, K → k: the full foldings of CaseFolding.txt), but for ı, which has no folding
 * and stays itself. Most text keeps
 * its length folded (ASCII always), and then an index in the folded text is an index in the text; text
 * whose folding changes length carries maps between the two.
 */

/** Folded text, and, when its length differs from the original's, the maps between their indexes. */
export interface Folded {
  readonly text: string;
  /** Folded index → original index (one more entry than the folded text: its end). */
  readonly toOriginal?: Int32Array;
  /** Original index → folded index (one more entry than the original: its end). */
  readonly toFolded?: Int32Array;
}

const ASCII = /^[\x00-\x7f]*$/;
const caseFold = (text: string) => text.toLowerCase().toUpperCase().toLowerCase();

/** `text` folded (see above). */
export function fold(text: string): Folded {
  if (ASCII.test(text)) return { text: text.toLowerCase() };
  if (!text.includes("ı")) {
    const whole = caseFold(text).replaceAll("ς", "σ");
    // Case mappings never shorten a character: the same length means each unit folded in place.
    if (whole.length === text.length) return { text: whole };
  }
  const parts: string[] = [];
  const toOriginal: number[] = [];
  const toFolded = new Int32Array(text.length + 1);
  let length = 0;
  for (let at = 0; at < text.length;) {
    const code = text.codePointAt(at)!;
    const units = code > 0xffff ? 2 : 1;
    const char = text.slice(at, at + units);
    const folded = char === "ı" ? char : caseFold(char).replace("ς", "σ");
    parts.push(folded);
    for (let i = 0; i < units; i++) toFolded[at + i] = length;
    for (let i = 0; i < folded.length; i++) toOriginal.push(at);
    length += folded.length;
    at += units;
  }
  toFolded[text.length] = length;
  toOriginal.push(text.length);
  const out = parts.join("");
  if (out.length === text.length && toOriginal.every((original, i) => original === i)) return { text: out };
  return { text: out, toOriginal: Int32Array.from(toOriginal), toFolded };
}

/** A match in original coordinates: where it starts, and how many characters of the original it covers. */
export interface FoldedMatch {
  readonly at: number;
  readonly length: number;
}

/**
 * The first match of `needle` (folded already) in `folded`, at or after original index `from`, in the
 * original's indexes; undefined when there is none.
 */
export function findFolded(folded: Folded, needle: string, from = 0): FoldedMatch | undefined {
  const start = folded.toFolded ? folded.toFolded[Math.min(from, folded.toFolded.length - 1)]! : from;
  const at = folded.text.indexOf(needle, start);
  if (at < 0) return undefined;
  if (!folded.toOriginal) return { at, length: needle.length };
  const first = folded.toOriginal[at]!;
  // A match ending inside a character's folding (the first s of ß) covers that whole character.
  let end = at + needle.length;
  while (end < folded.toOriginal.length - 1 && folded.toOriginal[end] === folded.toOriginal[end - 1]) end++;
  return { at: first, length: folded.toOriginal[end]! - first };
}
