// `node bench/query.bench.mjs [size] [--storage memory|sqlite|redis]` (after `npm run build`; SQLite and
// Redis need `--import tsx`, for the test suite's redis-server helper): the store's side of fold and query
// (issue 9, S8.5). Baselines (JSON.stringify, JSON.parse) and candidates run interleaved in the same loop,
// no forced GC inside timed sections; prints medians and the interquartile spread. Figures are noisy on a
// shared machine. Redis runs as a throwaway redis-server on loopback, stopped at the end.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { MemoryStorage, ResultHandleStore, ResultHandlesPlugin, ResultQueryTool, createResultHandleStore, foldToolResult } from "mcp-result-handles";

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
  for (let size = 12, i = 0; size < bytes; i++) {
    const row = ticket(i);
    rows.push(row);
    size += JSON.stringify(row).length + 1;
  }
  return { rows, total: rows.length };
}

const sizes = [
  ["100 KB", 100_000, 41],
  ["1 MB", 1_000_000, 21],
  ["10 MB", 10_000_000, 11],
];
const argv = process.argv.slice(2);
const storageType = argv.includes("--storage") ? argv[argv.indexOf("--storage") + 1] : "memory";
const only = argv.find((arg, i) => !arg.startsWith("--") && argv[i - 1] !== "--storage");
const dir = mkdtempSync(join(tmpdir(), "result-handles-query-bench-"));
let redis;
if (storageType === "redis") {
  const { startRedisServer } = await import("../test/helpers/redis-server.ts");
  redis = await startRedisServer();
}
let sqliteFiles = 0;
/** A fresh storage config of the chosen type (one SQLite file per store). */
function storageConfig() {
  if (storageType === "sqlite") return { type: "sqlite", sqlite: { path: join(dir, `bench-${sqliteFiles++}.sqlite`) } };
  if (storageType === "redis") return { type: "redis", redis: { url: redis.url } };
  return { type: "memory", memory: { maxEntries: 0, maxBytes: 64 * 1024 * 1024 } };
}

const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const fmt = (ms) => (ms < 1 ? ms.toFixed(3) : ms.toFixed(1)).padStart(7);
const cell = (xs) => `${fmt(quantile(xs, 0.5))} (${fmt(quantile(xs, 0.25)).trim()}–${fmt(quantile(xs, 0.75)).trim()})`;
const ratio = (xs, base) => (quantile(xs, 0.5) / quantile(base, 0.5)).toFixed(3);

async function time(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

console.log(`Node ${process.version}, ${process.arch}; ms, median (p25–p75); store: ${storageType}`);
const results = [];
for (const [label, bytes, rounds] of sizes) {
  if (only && only !== label) continue;
  const value = answerOf(bytes);
  const json = JSON.stringify(value);
  const plugin = ResultHandlesPlugin.init({ storage: storageConfig() });
  plugin.logger = { warn: (message) => console.error(message) };
  const tool = new ResultQueryTool(() => [plugin]);
  const args = { path: "$.rows", offset: Math.floor(value.rows.length / 2), limit: 20 };
  const t = { stringify: [], parse: [], fold: [], foldText: [], first: [], repeat: [] };
  const store =
    storageType === "memory"
      ? new ResultHandleStore(new MemoryStorage("bench", { maxEntries: 0, maxBytes: 64 * 1024 * 1024 }), 60)
      : await createResultHandleStore({ storage: storageConfig(), namespace: "bench", ttlSeconds: 60 });
  for (let round = -2; round < rounds; round++) {
    const stringify = await time(() => JSON.stringify(value));
    const parse = await time(() => JSON.parse(json));
    let folded;
    const fold = await time(async () => {
      folded = await foldToolResult(plugin, { toolName: "tickets", result: { structuredContent: value }, owner });
    });
    // The usual MCP answer: a text repeating structuredContent (S4.2).
    const foldText = await time(() =>
      foldToolResult(plugin, { toolName: "tickets", result: { structuredContent: value, content: [{ type: "text", text: json }] }, owner }),
    );
    const handle = folded.structuredContent?.handle;
    if (!handle) throw new Error("the answer did not fold");
    let answer;
    const first = await time(async () => {
      answer = await tool.query({ ...args, handle }, owner);
    });
    if (answer.value.length !== 20 || answer.value[0].id !== value.rows[args.offset].id) throw new Error("wrong slice");
    const repeat = await time(() => tool.query({ ...args, handle }, owner));
    if (round < 0) continue; // warm-up
    Object.entries({ stringify, parse, fold, foldText, first, repeat }).forEach(([k, v]) => t[k].push(v));
  }
  // The store alone, away from the fold's garbage: serialise into pieces, derive keys, encrypt, store;
  // then a whole read (every piece decrypted and parsed) against JSON.stringify and JSON.parse.
  const alone = { stringify: [], parse: [], save: [], read: [] };
  for (let round = -2; round < rounds; round++) {
    const stringify = await time(() => JSON.stringify(value));
    const parse = await time(() => JSON.parse(json));
    const handle = store.newHandle();
    const save = await time(() => store.save(handle, value, owner));
    let back;
    const read = await time(async () => {
      back = await store.read(handle, owner);
    });
    if (back.value.rows.length !== value.rows.length) throw new Error("wrong read");
    if (round >= 0) Object.entries({ stringify, parse, save, read }).forEach(([k, v]) => alone[k].push(v));
  }
  await plugin.onShutdown();
  await store.onShutdown();
  const row = {
    size: label,
    bytes: json.length,
    stringify: quantile(t.stringify, 0.5),
    parse: quantile(t.parse, 0.5),
    fold: quantile(t.fold, 0.5),
    firstQuery: quantile(t.first, 0.5),
    repeatQuery: quantile(t.repeat, 0.5),
    foldText: quantile(t.foldText, 0.5),
    save: quantile(alone.save, 0.5),
    wholeRead: quantile(alone.read, 0.5),
    foldPerStringify: Number(ratio(t.fold, t.stringify)),
    foldTextPerStringify: Number(ratio(t.foldText, t.stringify)),
    savePerStringify: Number(ratio(alone.save, alone.stringify)),
    wholeReadPerParse: Number(ratio(alone.read, alone.parse)),
    firstPerParse: Number(ratio(t.first, t.parse)),
    repeatPerParse: Number(ratio(t.repeat, t.parse)),
  };
  results.push(row);
  console.log(`\n${label} (${rounds} rounds)`);
  console.log(`  JSON.stringify   ${cell(t.stringify)}`);
  console.log(`  JSON.parse       ${cell(t.parse)}`);
  console.log(`  fold             ${cell(t.fold)}   fold/stringify ${row.foldPerStringify}`);
  console.log(`  fold text+struct ${cell(t.foldText)}   fold/stringify ${row.foldTextPerStringify}`);
  console.log(`  first query      ${cell(t.first)}   first/parse ${row.firstPerParse}`);
  console.log(`  repeated query   ${cell(t.repeat)}   repeat/parse ${row.repeatPerParse}`);
  console.log(`  store alone: stringify ${cell(alone.stringify).trim()}, parse ${cell(alone.parse).trim()}`);
  console.log(`  store.save       ${cell(alone.save)}   save/stringify ${row.savePerStringify}`);
  console.log(`  store.read whole ${cell(alone.read)}   read/parse ${row.wholeReadPerParse}`);
}
await redis?.dispose();
rmSync(dir, { recursive: true, force: true });
if (process.argv.includes("--json")) console.log(JSON.stringify(results));
