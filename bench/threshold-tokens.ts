/**
 * S18.6: what `thresholdTokens` adds to a fold at 10 MB, as a ratio to one `JSON.stringify` of the answer:
 * the estimate is skipped there (bytes decide alone), leaving tokenx over the first 256 KB for `_meta.tokens`.
 * Also the estimate of a whole text at the largest size that is estimated whole (16 bytes a token of the
 * threshold). Run: node --import tsx bench/threshold-tokens.ts [thresholdTokens]
 */
import { serializeAnswerYielding } from "../src/records/format/serialize.js";
import { overTokens } from "../src/fold/tokens.js";
import { KeyLists } from "../src/util/json.js";

const threshold = Number(process.argv[2] ?? 25_000);
const rows = Array.from({ length: 90_000 }, (_, i) => ({
  id: `T-${i}`,
  title: `Printer on floor ${i % 9} jams on every job`,
  status: ["open", "closed", "pending"][i % 3],
  priority: (i % 5) + 1,
  owner: `owner-${i % 40}`,
}));
const answer = { rows };

function median(run: () => unknown, times = 9): number {
  const spent: number[] = [];
  for (let i = 0; i < times; i++) {
    const start = performance.now();
    run();
    spent.push(performance.now() - start);
  }
  return spent.sort((a, b) => a - b)[times >> 1]!;
}

const stringify = median(() => JSON.stringify(answer));
const json = await serializeAnswerYielding(answer, { keyLists: new KeyLists() });
await overTokens(json, threshold); // loads tokenx once
const spent: number[] = [];
for (let i = 0; i < 9; i++) {
  const start = performance.now();
  await overTokens(json, threshold);
  spent.push(performance.now() - start);
}
const tokens = spent.sort((a, b) => a - b)[4]!;
console.log(
  `answer ${(json.bytes / 1e6).toFixed(1)} MB; JSON.stringify ${stringify.toFixed(1)} ms; ` +
    `thresholdTokens ${threshold}: ${tokens.toFixed(2)} ms = ${(tokens / stringify).toFixed(3)}× stringify`,
);
const edge = await serializeAnswerYielding(
  { rows: rows.slice(0, Math.floor((16 * threshold) / (json.bytes / rows.length))) },
  { keyLists: new KeyLists() },
);
const start = performance.now();
const counted = await overTokens(edge, threshold);
console.log(
  `estimated at ${(edge.bytes / 1e3).toFixed(0)} KB (just under 16 bytes a token, stopping once ` +
    `over): ${(performance.now() - start).toFixed(1)} ms, ${counted.tokens} tokens`,
);
