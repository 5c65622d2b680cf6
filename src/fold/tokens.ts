/**
 * A threshold in tokens (S18.6): the answer's JSON text is estimated with tokenx (about 2 kB, knows CJK and
 * other scripts; never a full tokenizer, which weighs megabytes, in the page build), loaded on first use so
 * a plugin without `thresholdTokens` never loads it. The byte size decides alone where it can: a token is
 * at least one UTF-8 byte of JSON, so fewer bytes than the threshold keep the answer whole without an
 * estimate; far more (over `TOKEN_BYTES_DECIDE` bytes a token) fold it, the count extrapolated from the
 * text's first 16 KB; in between, the text is estimated part by part until it passes the threshold. So the
 * cost at 10 MB stays a small part of one `JSON.stringify`, and never grows with the answer beyond the threshold.
 */
import { TOKEN_BYTES_DECIDE, TOKEN_SAMPLE_CHARS } from "../defaults.js";
import { decodeUtf8 } from "../util/utf8.js";
import type { SerializedAnswer } from "../records/format/serialize.js";

type Estimator = (text: string) => number;
let estimator: Promise<Estimator> | undefined;

function loadEstimator(): Promise<Estimator> {
  estimator ??= import("tokenx").then(
    ({ estimateTokenCount }) =>
      (text: string) =>
        estimateTokenCount(text),
  );
  return estimator;
}

/** Whether the answer folds by `thresholdTokens`, and its estimated token count when one was made. */
export async function overTokens(
  json: SerializedAnswer,
  thresholdTokens: number,
): Promise<{ fold: boolean; tokens?: number }> {
  if (json.bytes <= thresholdTokens) return { fold: false }; // tokens ≤ bytes: no estimate needed
  const estimate = await loadEstimator();
  if (json.bytes > thresholdTokens * TOKEN_BYTES_DECIDE) {
    // Far over: folds whatever the estimate; `tokens` is extrapolated from the first bytes of the text.
    const sample = sampleText(json);
    const tokens = sample.bytes > 0 ? Math.round((estimate(sample.text) * json.bytes) / sample.bytes) : undefined;
    return tokens === undefined ? { fold: true } : { fold: true, tokens };
  }
  // In between: the text is estimated part by part, and stops once over the threshold (tokenx reads about
  // 7 MB a second: the work is bounded by the threshold, not by the answer's size).
  const text = json.text;
  let tokens = 0;
  for (let from = 0; from < text.length; from += TOKEN_SAMPLE_CHARS) {
    tokens += estimate(text.slice(from, from + TOKEN_SAMPLE_CHARS));
    const read = Math.min(text.length, from + TOKEN_SAMPLE_CHARS);
    if (tokens > thresholdTokens && read < text.length)
      return { fold: true, tokens: Math.round((tokens * text.length) / read) };
  }
  return { fold: tokens > thresholdTokens, tokens };
}

/**
 * About the first `TOKEN_SAMPLE_CHARS` bytes of the JSON text, decoded from its first piece (a character cut at the end
 * decodes as one replacement character).
 */
function sampleText(json: SerializedAnswer): { text: string; bytes: number } {
  const first = json.pieces[0];
  if (!first) return { text: "", bytes: 0 };
  const bytes = first.bytes.subarray(0, TOKEN_SAMPLE_CHARS);
  return { text: decodeUtf8(bytes, first.ascii), bytes: bytes.byteLength };
}
