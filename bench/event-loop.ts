/**
 * S14.3, S14.6, S21.4: how long each kind of query holds the calling thread, over the 10 MB ticket
 * answer: the worst gap between two ticks of a 1 ms timer run beside each query (the longest any other
 * call would have waited). A filter runs with the build's batch workers and without them (the same
 * plugin's store and handles, a source that has no workers); every other kind as a tool call runs it.
 * Worst and median of `--rounds` queries per kind, each on a handle never read. Not part of `npm run bench`:
 *
 *   node --import tsx bench/event-loop.ts [--rounds=5] [--kinds=filter,search]
 */
import { ResultHandlesPlugin, ResultQueryTool, foldToolResult, type HandleSource } from "../src/runtimes/node/index.js";
import { ticketsOf } from "./answers.js";
import { heldWhile, median } from "./timing.js";

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => arg.replace(/^--/, "").split("=") as [string, string]),
);
const rounds = Number(args.rounds ?? 5);
const value = ticketsOf(10_000_000);
const owner = { session: "bench-event-loop", caller: "bench" };
const plugin = ResultHandlesPlugin.init({
  thresholdBytes: 16_384,
  storage: { type: "memory", memory: { maxBytes: 2_000_000_000 } },
});
const workers = plugin.workers;
if (!workers || !(await workers.warm())) throw new Error("this build has no batch workers here");
const oneThread: HandleSource = { config: plugin.config, store: () => plugin.store() };
const withWorkers: HandleSource = { ...oneThread, workers };

/** Each kind of query: its arguments, and whether it runs with the batch workers. */
const kinds: [kind: string, query: Record<string, unknown>, source: HandleSource][] = [
  ["filter, one thread", { path: "$.rows[?@.priority > 3]", limit: 5 }, oneThread],
  ["filter, batch workers", { path: "$.rows[?@.priority > 3]", limit: 5 }, withWorkers],
  ["filter with match()", { path: "$.rows[?match(@.title, '.*[Ff]ailure.*')]", limit: 5 }, withWorkers],
  ["wildcard", { path: "$.rows[*].id", limit: 5 }, withWorkers],
  ["slice", { path: "$.rows[1000:1020]" }, withWorkers],
  ["descendants", { path: "$..status", limit: 5 }, withWorkers],
  ["filter reading $", { path: "$.rows[?@.priority > $.rows[0].priority]", limit: 5 }, withWorkers],
  ["search", { search: "timeout", limit: 5 }, withWorkers],
  ["whole answer ($, refused)", { path: "$" }, withWorkers],
  ["one item", { path: "$.rows[4711]" }, withWorkers],
];
const wanted = args.kinds?.split(",");
const figures: Record<string, { ms: number[]; held: number[]; answer: string }> = {};
for (let round = 0; round < rounds + 1; round++) {
  for (const [kind, query, source] of kinds) {
    if (wanted && !wanted.some((name) => kind.startsWith(name))) continue;
    const folded = await foldToolResult(plugin, { toolName: "bench", result: { structuredContent: value }, owner });
    const handle = (folded.structuredContent as { handle: string }).handle;
    const tool = new ResultQueryTool(() => [source]);
    const { value: answer, ms, held } = await heldWhile(() => tool.handler({ handle, ...query }, owner));
    if (round === 0) continue; // warm-up
    const entry = (figures[kind] ??= { ms: [], held: [], answer: "" });
    entry.ms.push(ms);
    entry.held.push(held);
    const first = answer.content?.[0];
    entry.answer = answer.isError ? String(first?.type === "text" ? first.text : "").slice(0, 40) : "answered";
  }
}
console.log(
  `event loop held per query kind, the 10 MB ticket answer, memory store, ${process.version}, ${rounds} rounds`,
);
for (const [kind, { ms, held, answer }] of Object.entries(figures)) {
  console.log(
    `${kind.padEnd(28)} query ${median(ms).toFixed(1).padStart(7)} ms, held at most ${Math.max(...held)
      .toFixed(1)
      .padStart(6)} ms (median ${median(held).toFixed(1)} ms): ${answer}`,
  );
}
await plugin.onShutdown();
