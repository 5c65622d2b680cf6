// `npm run bench`: fold and query cost against JSON.stringify / JSON.parse of the same answer.
// Prints figures; asserts nothing. Baselines and candidates run interleaved in the same loop (one round
// times each of them once), with no forced GC inside the timed loops; each cell is the median of the
// rounds, with the spread (25th to 75th percentile) beside it. Ratios are taken within one run: the ratio
// of the medians, and the median of each round's ratio (steadier when the machine's load changes).
// ROUNDS=n sets the rounds of the shape and MCP-form tables; ONLY=shapes|sizes|forms runs one table.
import { performance } from "node:perf_hooks";
import { ResultHandlesPlugin, ResultQueryTool, foldToolResult } from "mcp-result-handles";

const owner = { session: "bench-session", caller: "bench" };
const THRESHOLD = 16384;
const only = process.env.ONLY;
const roundsOverride = process.env.ROUNDS ? Number(process.env.ROUNDS) : undefined;

// ---- answers ---------------------------------------------------------------------------------------

const ticket = (i) => ({
  id: `T-${i}`,
  title: `Ticket ${i}: printer on floor ${i % 12} jams on duplex`,
  status: ["open", "pending", "closed"][i % 3],
  priority: i % 5,
  assignee: { id: i % 97, name: `Agent ${i % 97}` },
  tags: ["hardware", "printer", i % 2 ? "urgent" : "routine"],
  createdAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
});

function ticketsOf(bytes) {
  const rows = [];
  let size = 12;
  for (let i = 0; size < bytes; i++) {
    const row = ticket(i);
    rows.push(row);
    size += JSON.stringify(row).length + 1;
  }
  return { rows, total: rows.length };
}

/** An object nested `levels` deep: `{ level, name, note, child: { ... } }`. */
function deepObject(levels, noteChars) {
  const root = {};
  let node = root;
  for (let i = 0; i < levels; i++) {
    node.level = i;
    node.name = `node ${i}`;
    node.note = "n".repeat(noteChars);
    node.child = i === levels - 1 ? null : {};
    node = node.child;
  }
  return root;
}

/** A list nested `levels` deep: `[i, "item i ...", [ ... ]]`. */
function deepList(levels, noteChars) {
  const root = [];
  let list = root;
  for (let i = 0; i < levels; i++) {
    const next = [];
    list.push(i, `item ${i} ${"l".repeat(noteChars)}`, next);
    list = next;
  }
  return root;
}

/** One object with `keys` keys. */
function wideObject(keys) {
  const object = {};
  for (let i = 0; i < keys; i++) object[`key_${String(i).padStart(6, "0")}`] = `value ${i}`;
  return object;
}

/** Rows of 60 keys each. */
function wideRows(count) {
  return {
    rows: Array.from({ length: count }, (_, row) => {
      const item = {};
      for (let k = 0; k < 60; k++) item[`field_${k}`] = k % 3 === 0 ? row * k : `r${row}-f${k}`;
      return item;
    }),
  };
}

/** Rows of different kinds: objects with varying keys, lists, strings, numbers, null. */
function mixedRows(count) {
  const rows = [];
  for (let i = 0; i < count; i++) {
    switch (i % 6) {
      case 0: rows.push(ticket(i)); break;
      case 1: rows.push({ user: `u${i}`, roles: ["a", "b"], profile: { age: i % 90, city: `City ${i % 40}`, [`extra${i % 70}`]: i } }); break;
      case 2: rows.push([i, `x${i}`, { nested: [i, i + 1] }]); break;
      case 3: rows.push(`plain text row ${i} `.repeat(3)); break;
      case 4: rows.push(i * 1.5); break;
      default: rows.push(null);
    }
  }
  return { rows };
}

// ---- timing ----------------------------------------------------------------------------------------

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
function summary(times) {
  const sorted = [...times].sort((a, b) => a - b);
  return { median: quantile(sorted, 0.5), low: quantile(sorted, 0.25), high: quantile(sorted, 0.75) };
}
/** Median of the per-round ratios: each round's candidate against the baseline timed beside it. */
const roundRatio = (candidate, baseline) => summary(candidate.map((t, i) => t / baseline[i])).median.toFixed(2).padStart(7);
const ms = (t) => (t < 1 ? t.toFixed(3) : t < 100 ? t.toFixed(2) : t.toFixed(0));
const cell = (s) => `${ms(s.median)} (${ms(s.low)}-${ms(s.high)})`.padStart(22);

/** Times `fn`; a task that measures only part of its work itself returns that time. */
async function time(fn) {
  const start = performance.now();
  const own = await fn();
  return typeof own === "number" ? own : performance.now() - start;
}

/**
 * Runs `tasks` (name → async fn) `rounds` times, interleaved: each round times every task once, in an
 * order that alternates between rounds. Returns each task's times.
 */
async function interleaved(rounds, tasks) {
  const names = Object.keys(tasks);
  const times = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? [...names].reverse() : names;
    for (const name of order) times[name].push(await time(tasks[name]));
  }
  return times;
}

function newPlugin() {
  const plugin = ResultHandlesPlugin.init({ thresholdBytes: THRESHOLD, storage: { type: "memory", memory: { maxEntries: 0 } } });
  plugin.logger = { warn: (message) => console.error(message.slice(0, 200)) };
  return plugin;
}

const foldedBytes = (result) => new TextEncoder().encode(JSON.stringify(result.structuredContent)).byteLength;
const isFolded = (result) => result._meta?.["frontmcp/result-handle"] !== undefined;

console.log(`Node ${process.version}, ${process.arch}; threshold ${THRESHOLD}; ms as median (25th-75th percentile)`);

// ---- answer shapes (S4.8: any shape folds in at most 3x its stringify) --------------------------------

if (!only || only === "shapes") {
  const shapes = [
    ["object 3000 deep", deepObject(3000, 400)],
    ["list 3000 deep", deepList(3000, 400)],
    ["object of 48k keys", wideObject(48_000)],
    ["rows of 60 keys", wideRows(2000)],
    ["mixed rows", mixedRows(20_000)],
  ];
  console.log("\nAnswer shapes, structuredContent only");
  console.log(`${"shape".padEnd(20)}|  bytes   |${"stringify".padStart(22)} |${"fold".padStart(22)} | fold/str | per round | folded bytes`);
  for (const [label, value] of shapes) {
    const plugin = newPlugin();
    const bytes = Buffer.byteLength(JSON.stringify(value));
    let result;
    let failure;
    const times = await interleaved(roundsOverride ?? 15, {
      stringify: () => JSON.stringify(value),
      fold: async () => {
        try {
          result = await foldToolResult(plugin, { toolName: "shape", result: { structuredContent: value }, owner });
        } catch (error) {
          failure = error;
        }
      },
    });
    const [s, f] = [summary(times.stringify), summary(times.fold)];
    const outcome = failure ? `throws: ${failure.message}` : isFolded(result) ? String(foldedBytes(result)) : "not folded";
    console.log(`${label.padEnd(20)}| ${String(bytes).padStart(8)} |${cell(s)} |${cell(f)} | ${(f.median / s.median).toFixed(2).padStart(7)}  |  ${roundRatio(times.fold, times.stringify)}  | ${outcome}`);
    await plugin.onShutdown();
  }
}

// ---- the MCP answer forms at 10 MB ---------------------------------------------------------------------

if (!only || only === "forms") {
  const value = ticketsOf(10_000_000);
  const text = JSON.stringify(value);
  const forms = [
    ["structuredContent only", { structuredContent: value }],
    ["text + structuredContent", { content: [{ type: "text", text }], structuredContent: value }],
    ["pretty text + structured", { content: [{ type: "text", text: JSON.stringify(value, null, 2) }], structuredContent: value }],
  ];
  console.log("\n10 MB answer, the MCP answer forms (text compact or pretty-printed)");
  console.log(`${"form".padEnd(26)}|${"stringify".padStart(22)} |${"fold".padStart(22)} | fold/str | per round`);
  const plugin = newPlugin();
  // One loop per form, each against its own stringify: the garbage of a form (a 15 MB pretty-printed
  // comparison) is then paid in its own loop, not by the form timed after it.
  for (const [label, result] of forms) {
    const times = await interleaved(roundsOverride ?? 11, {
      stringify: () => JSON.stringify(value),
      fold: () => foldToolResult(plugin, { toolName: "tickets", result, owner }),
    });
    const [s, f] = [summary(times.stringify), summary(times.fold)];
    console.log(`${label.padEnd(26)}|${cell(s)} |${cell(f)} | ${(f.median / s.median).toFixed(2).padStart(7)}  |  ${roundRatio(times.fold, times.stringify)}`);
  }
  await plugin.onShutdown();
}

// ---- sizes: fold and query against stringify and parse ---------------------------------------------------

if (!only || only === "sizes") {
  const sizes = [
    ["100 KB", 100_000, 31],
    ["1 MB", 1_000_000, 15],
    ["10 MB", 10_000_000, 11],
  ];
  console.log("\nTickets answer by size, structuredContent only");
  console.log(`size    |${"stringify".padStart(22)} |${"parse".padStart(22)} |${"fold".padStart(22)} | fold/str |${"1st query".padStart(22)} |${"repeat query".padStart(22)} | 1st q/parse | folded bytes`);
  const foldedSizes = [];
  for (const [label, bytes, rounds] of sizes) {
    const value = ticketsOf(bytes);
    const plugin = newPlugin();
    const tool = new ResultQueryTool(() => [plugin]);
    const json = JSON.stringify(value);
    const fold = () => foldToolResult(plugin, { toolName: "tickets", result: { structuredContent: value }, owner });
    const folded = await fold();
    const read = { handle: folded.structuredContent.handle, path: "$.rows", offset: 100, limit: 20 };
    const times = await interleaved(rounds, {
      stringify: () => JSON.stringify(value),
      parse: () => JSON.parse(json),
      fold,
      // A new handle each round, folded untimed: only the first read of its answer is timed.
      first: async () => {
        const fresh = await fold();
        const start = performance.now();
        await tool.query({ ...read, handle: fresh.structuredContent.handle }, owner);
        return performance.now() - start;
      },
      repeat: () => tool.query(read, owner),
    });
    const [s, p, f, q, r] = ["stringify", "parse", "fold", "first", "repeat"].map((name) => summary(times[name]));
    const size = foldedBytes(folded);
    foldedSizes.push(size);
    console.log(
      `${label.padEnd(7)} |${cell(s)} |${cell(p)} |${cell(f)} | ${(f.median / s.median).toFixed(2).padStart(7)}  |${cell(q)} |${cell(r)} | ${(q.median / p.median).toFixed(2).padStart(10)}  | ${size}`,
    );
    await plugin.onShutdown();
  }
  const spread = (Math.max(...foldedSizes) / Math.min(...foldedSizes) - 1) * 100;
  console.log(`folded size spread across sizes: ${spread.toFixed(1)}% (target: within 10%)`);
}
