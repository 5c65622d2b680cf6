/**
 * `node --import tsx bench/filter.ts`: JSONPath filters through `result_query` over the 10 MB ticket
 * answer (S14.6), beside one `JSON.parse` of the same answer timed in the same rounds, on memory, SQLite
 * and Redis, with a fresh handle per round (nothing served from a cache). A singular read of one row is
 * timed beside them (goal ≤ 0.2× a parse). Prints a table; asserts only that the queries answer.
 *
 * Options: BENCH_SIZE (bytes, default 10000000), BENCH_ROUNDS (default 9), BENCH_STORES (default
 * memory,sqlite,redis). Uses the built package (dist/node) when present, else the sources.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type * as PublicApi from "mcp-result-handles";
import { ticketsOf } from "./answers.js";
import { openNodeStores } from "./stores.js";
import { interleaved, ratio, spread } from "./timing.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const entry = existsSync(`${root}dist/node/index.js`) ? `${root}dist/node/index.js` : `${root}src/node/index.ts`;
const api = (await import(entry)) as typeof PublicApi;

const bytes = Number(process.env.BENCH_SIZE ?? 10_000_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 9);
const storeNames = (process.env.BENCH_STORES ?? "memory,sqlite,redis").split(",");
const owner = { session: "bench-filter", caller: "bench" };
const QUERIES = {
  // The issue's filter; the ticket rows have no owner or amount, so it selects nothing after reading every row.
  issueFilter: '$.rows[?@.owner == "user5" && @.amount > 80000]',
  ticketFilter: '$.rows[?@.assignee.name == "Agent 5" && @.priority > 3]',
  descendant: "$..title",
  singular: "$.rows[1000].title",
  // Reads the whole answer like a filter (a key outside the indexed list) but selects one value: the cost of the read alone.
  wholeRead: "$.total",
} as const;
type QueryName = keyof typeof QUERIES;

const value = ticketsOf(bytes);
const json = JSON.stringify(value);
console.log(`Node ${process.version}, ${entry.includes("dist") ? "built package" : "sources"}; answer ${json.length} bytes, ${value.rows.length} rows; ${rounds} rounds`);
console.log("store   query          ms median (p25-p75)   × parse (per round)   parse ms   peak heap over the answer");

const stores = await openNodeStores({ redis: storeNames.includes("redis"), upstash: false });
try {
  for (const store of storeNames) {
    const names = Object.keys(QUERIES) as QueryName[];
    const handlesPer = rounds + 1; // the warm-up round takes a handle too
    const plugin = api.ResultHandlesPlugin.init({
      thresholdBytes: 16_384,
      ttlSeconds: 300,
      storage: stores.storage(store, { answers: names.length * handlesPer + 1, bytes: json.length }),
    });
    plugin.logger = { warn: (message) => console.error(message.slice(0, 200)) };
    const tool = new api.ResultQueryTool(() => [plugin]);
    const unread = Object.fromEntries(names.map((name) => [name, [] as string[]])) as Record<QueryName, string[]>;
    for (const name of names) {
      for (let i = 0; i < handlesPer; i++) {
        const folded = await api.foldToolResult(plugin, { toolName: "bench", result: { structuredContent: value }, owner });
        unread[name].push((folded.structuredContent as { handle: string }).handle);
      }
    }
    const peaks: Record<string, number> = {};
    const task = (name: QueryName) => async () => {
      const before = process.memoryUsage().heapUsed;
      const result = await tool.query({ handle: unread[name].pop(), path: QUERIES[name], ...(name === "descendant" ? { limit: 5 } : {}) }, owner);
      if (result.value === undefined) throw new Error(`${store} ${name}: no answer`);
      peaks[name] = Math.max(peaks[name] ?? 0, process.memoryUsage().heapUsed - before);
    };
    const tasks = { parse: () => JSON.parse(json), ...Object.fromEntries(names.map((name) => [name, task(name)])) } as Record<QueryName | "parse", () => unknown>;
    const times = await interleaved(rounds, tasks, 1);
    const parse = spread(times.parse!);
    for (const name of names) {
      const own = spread(times[name]!);
      const r = ratio(times[name]!, times.parse!);
      console.log(
        `${store.padEnd(7)} ${name.padEnd(14)} ${own.median.toFixed(1).padStart(7)} (${own.p25.toFixed(0)}-${own.p75.toFixed(0)})`.padEnd(45) +
          `${r.perRound.median.toFixed(2)}× (${r.perRound.p25.toFixed(2)}-${r.perRound.p75.toFixed(2)})`.padEnd(22) +
          `${parse.median.toFixed(1).padStart(8)}   ${(peaks[name]! / 1e6).toFixed(0)} MB`,
      );
    }
    await plugin.onShutdown();
  }
} finally {
  await stores.close();
}
