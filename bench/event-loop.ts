/**
 * S14.3, S14.6: how long a filter that parses every batch holds the calling thread, with the build's batch
 * workers and without them (the same plugin's store and handles, a source that has no workers). A 1 ms
 * timer runs beside each query; the longest gap between two of its ticks is the longest the event loop
 * was held. Medians of `--rounds` queries, each on a handle never read. Not part of `npm run bench`:
 *
 *   npm run build && node --import tsx bench/event-loop.ts [--rounds=8]
 */
import { ResultHandlesPlugin, ResultQueryTool, foldToolResult, type HandleSource } from "mcp-result-handles";
import { ticketsOf } from "./answers.js";

const args = Object.fromEntries(process.argv.slice(2).map((arg) => arg.replace(/^--/, "").split("=") as [string, string]));
const rounds = Number(args.rounds ?? 8);
const value = ticketsOf(10_000_000);
const owner = { session: "bench-event-loop", caller: "bench" };
const plugin = ResultHandlesPlugin.init({ thresholdBytes: 16_384, storage: { type: "memory", memory: { maxBytes: 2_000_000_000 } } });
const workers = plugin.workers;
if (!workers || !(await workers.warm())) throw new Error("this build has no batch workers here");
const query = { path: "$.rows[?@.priority > 3]", limit: 5 };
const ways: Record<string, HandleSource> = {
  "one thread": { config: plugin.config, store: () => plugin.store() },
  "batch workers": { config: plugin.config, store: () => plugin.store(), workers },
};
const figures: Record<string, { ms: number[]; held: number[] }> = {};
for (let round = 0; round < rounds + 1; round++) {
  for (const [way, source] of Object.entries(ways)) {
    const folded = await foldToolResult(plugin, { toolName: "bench", result: { structuredContent: value }, owner });
    const handle = (folded.structuredContent as { handle: string }).handle;
    const tool = new ResultQueryTool(() => [source]);
    let last = performance.now();
    let held = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      held = Math.max(held, now - last);
      last = now;
    }, 1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    [last, held] = [performance.now(), 0];
    const started = performance.now();
    await tool.query({ handle, ...query }, owner);
    const ms = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 2));
    clearInterval(timer);
    if (round === 0) continue; // warm-up
    (figures[way] ??= { ms: [], held: [] }).ms.push(ms);
    figures[way].held.push(held);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
console.log(`${query.path} over the 10 MB ticket answer, memory store, ${process.version}, ${rounds} rounds`);
for (const [way, { ms, held }] of Object.entries(figures)) console.log(`${way.padEnd(14)} query ${median(ms).toFixed(1)} ms, event loop held at most ${median(held).toFixed(1)} ms`);
await plugin.onShutdown();
