/**
 * S21.7: the fold's cost per shape as a ratio to one `JSON.stringify` of the same value, measured in one
 * run, interleaved (a loaded machine slows both alike): rows at 10 MB (≤ 1.3×), a million-key object, a
 * 100 MB string, a million empty lists and a 3000-deep chain (≤ 2× each). Medians of `--rounds`; then one
 * more fold per shape, timed apart, for the longest it holds the event loop (S21.4).
 *
 *   node --import tsx bench/fold-ratios.ts [--rounds=5] [--shapes=rows,keys]
 */
import { ResultHandlesPlugin, foldToolResult } from "../src/runtimes/node/index.js";
import { deepChain, emptyLists, longString, rowsOf, wideObject } from "./shapes.js";
import { heldWhile, median } from "./timing.js";

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => arg.replace(/^--/, "").split("=") as [string, string]),
);
const rounds = Number(args.rounds ?? 5);
const owner = { session: "bench-fold-ratios", caller: "bench" };
const plugin = ResultHandlesPlugin.init({
  thresholdBytes: 16_384,
  storage: { type: "memory", memory: { maxEntries: 2, maxBytes: 1_000_000_000 }, timeoutMs: 120_000 },
});

const shapes: [key: string, label: string, bar: number, make: () => unknown][] = [
  ["rows", "rows, 10 MB", 1.3, () => rowsOf(10_000_000)],
  ["keys", "1,000,000-key object", 2, () => wideObject(1_000_000)],
  ["string", "100 MB string", 2, () => longString(100_000_000)],
  ["empty", "1,000,000 empty lists", 2, () => ({ lists: emptyLists(1_000_000) })],
  ["deep", "3000-deep chain", 2, () => deepChain(3000)],
];
const wanted = args.shapes?.split(",");
console.log(`fold / JSON.stringify per shape, ${process.version}, memory store, median of ${rounds} rounds`);
for (const [key, label, bar, make] of shapes) {
  if (wanted && !wanted.includes(key)) continue;
  const value = make() as Record<string, unknown>;
  const fold: number[] = [];
  const stringify: number[] = [];
  for (let round = 0; round <= rounds; round++) {
    let started = performance.now();
    const bytes = JSON.stringify(value).length;
    const json = performance.now() - started;
    started = performance.now();
    const folded = await foldToolResult(plugin, { toolName: "bench", result: { structuredContent: value }, owner });
    const ms = performance.now() - started;
    if (!(folded.structuredContent as { handle?: string } | undefined)?.handle)
      throw new Error(`${label}: did not fold`);
    if (round === 0) continue; // warm-up
    fold.push(ms);
    stringify.push(json);
    if (round === 1) console.log(`  ${label}: ${(bytes / 1e6).toFixed(1)} MB of JSON`);
  }
  const ratio = median(fold) / median(stringify);
  const { held } = await heldWhile(() =>
    foldToolResult(plugin, { toolName: "bench", result: { structuredContent: value }, owner }),
  );
  console.log(
    `${label.padEnd(24)} fold ${median(fold).toFixed(1)} ms, stringify ${median(stringify).toFixed(1)} ms: ` +
      `${ratio.toFixed(2)}× (bar ${bar}×)${ratio > bar ? "  OVER" : ""}; one more ` +
      `fold held the event loop at most ${held.toFixed(0)} ms (S21.4)`,
  );
}
await plugin.onShutdown();
