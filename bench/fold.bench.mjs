// `npm run bench`: fold and query cost against JSON.stringify / JSON.parse, for 100 KB, 1 MB and 10 MB answers.
// Prints figures; asserts nothing. Run on an idle machine; medians of several runs.
import { performance } from "node:perf_hooks";
import { ResultHandlesPlugin, ResultQueryTool, foldToolResult } from "mcp-result-handles";

const owner = { session: "bench-session", caller: "bench" };
const ticket = (i) => ({
  id: `T-${i}`,
  title: `Ticket ${i}: printer on floor ${i % 12} jams on duplex`,
  status: ["open", "pending", "closed"][i % 3],
  priority: i % 5,
  assignee: { id: i % 97, name: `Agent ${i % 97}` },
  tags: ["hardware", "printer", i % 2 ? "urgent" : "routine"],
  createdAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
});

function answerOf(bytes) {
  const rows = [];
  let size = 12;
  for (let i = 0; size < bytes; i++) {
    const row = ticket(i);
    rows.push(row);
    size += JSON.stringify(row).length + 1;
  }
  return { rows, total: rows.length };
}

// Run with --expose-gc: collecting before each timed run keeps one run's garbage out of the next one's time.
const collect = globalThis.gc ?? (() => {});

async function median(runs, fn) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    collect();
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const fmt = (ms) => (ms < 1 ? ms.toFixed(3) : ms.toFixed(1)).padStart(8);
const sizes = [
  ["100 KB", 100_000, 31],
  ["1 MB", 1_000_000, 15],
  ["10 MB", 10_000_000, 11],
];

console.log(`Node ${process.version}, ${process.arch}; medians in ms`);
console.log("size    | stringify |  parse  |   fold  | fold/str | 1st query | repeat q | query/parse | folded bytes");
const foldedSizes = [];
for (const [label, bytes, runs] of sizes) {
  const value = answerOf(bytes);
  const plugin = ResultHandlesPlugin.init({ storage: { type: "memory", memory: { maxEntries: 0 } } });
  plugin.logger = { warn: (message) => console.error(message) };
  const tool = new ResultQueryTool(() => [plugin]);
  const json = JSON.stringify(value);

  const stringify = await median(runs, () => JSON.stringify(value));
  const parse = await median(runs, () => JSON.parse(json));
  let folded;
  const fold = await median(runs, async () => {
    folded = await foldToolResult(plugin, { toolName: "tickets", result: { structuredContent: value }, owner });
  });
  const handle = folded.structuredContent.handle;
  const args = { handle, path: "$.rows", offset: 100, limit: 20 };
  const first = await timeFirstQueries(plugin, tool, value, args, runs);
  const repeated = await median(runs, () => tool.query(args, owner));
  const foldedBytes = new TextEncoder().encode(JSON.stringify(folded.structuredContent)).byteLength;
  foldedSizes.push(foldedBytes);
  console.log(
    `${label.padEnd(7)} |${fmt(stringify)}   |${fmt(parse)} |${fmt(fold)} |   ${(fold / stringify).toFixed(2).padStart(5)}  |${fmt(first)}   |${fmt(repeated)}  |     ${(first / parse).toFixed(2).padStart(5)}   | ${foldedBytes}`,
  );
  await plugin.onShutdown();
}
const spread = (Math.max(...foldedSizes) / Math.min(...foldedSizes) - 1) * 100;
console.log(`folded size spread across sizes: ${spread.toFixed(1)}% (target: within 10%)`);

/** A new handle each run, so every measured query is the first read of its answer. */
async function timeFirstQueries(plugin, tool, value, args, runs) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const fresh = await foldToolResult(plugin, { toolName: "tickets", result: { structuredContent: value }, owner });
    collect();
    const start = performance.now();
    await tool.query({ ...args, handle: fresh.structuredContent.handle }, owner);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}
