/**
 * A threshold in tokens (S18.6): the answer's JSON text is estimated with tokenx (about 2 kB, knows CJK and
 * other scripts; never a full tokenizer, which weighs megabytes, in the page build), loaded on first use so
 * a plugin without `thresholdTokens` never loads it. The byte size decides alone where it can: a token is
 * at least one UTF-8 byte of JSON, so fewer bytes than the threshold keep the answer whole without an
 * estimate; far more (over `TOKEN_BYTES_DECIDE` bytes a token) fold it, the count extrapolated from the
 * text's first piece; only in between is the whole text estimated. So the cost at 10 MB stays a small part
 * of one `JSON.stringify`.
 */
import { TOKEN_BYTES_DECIDE, TOKEN_SAMPLE_BYTES } from "../defaults.js";
import { decodeUtf8 } from "../util/size.js";
import type { SerializedAnswer } from "../records/format/serialize.js";

type Estimator = (text: string) => number;
let estimator: Promise<Estimator> | undefined;

function loadEstimator(): Promise<Estimator> {
  estimator ??= import("tokenx").then(({ estimateTokenCount }) => (text: string) => estimateTokenCount(text));
  return estimator;
}

/** Whether the answer folds by `thresholdTokens`, and its estimated token count when one was made. */
export async function overTokens(json: SerializedAnswer, thresholdTokens: number): Promise<{ fold: boolean; tokens?: number }> {
  if (json.bytes <= thresholdTokens) return { fold: false }; // tokens ≤ bytes: no estimate needed
  const estimate = await loadEstimator();
  if (json.bytes > thresholdTokens * TOKEN_BYTES_DECIDE) {
    // Far over: folds whatever the estimate; `tokens` is extrapolated from the first bytes of the text.
    const sample = sampleText(json);
    const tokens = sample.bytes > 0 ? Math.round((estimate(sample.text) * json.bytes) / sample.bytes) : undefined;
    return tokens === undefined ? { fold: true } : { fold: true, tokens };
  }
  const tokens = estimate(json.text);
  return { fold: tokens > thresholdTokens, tokens };
}

/** About the first `TOKEN_SAMPLE_BYTES` of the JSON text, decoded from its first pieces (characters are never split between pieces). */
function sampleText(json: SerializedAnswer): { text: string; bytes: number } {
  let text = "";
  let bytes = 0;
  for (const piece of json.pieces) {
    if (bytes >= TOKEN_SAMPLE_BYTES) break;
    text += decodeUtf8(piece.bytes, piece.ascii);
    bytes += piece.bytes.byteLength;
  }
  return { text, bytes };
}
