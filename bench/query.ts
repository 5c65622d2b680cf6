/**
 * The query part (S14.6, was bench/filter.ts): JSONPath filters, a search and a singular read through
 * `result_query` over the 10 MB ticket answer, beside one `JSON.parse` of the same answer timed in the same
 * rounds, with a fresh handle per round (nothing served from a cache). Goals: a filter or a search ≤ 1.0×
 * a parse (limit 1.5×), a singular query ≤ 0.2×. Peak memory of the filter is measured apart, in untimed
 * rounds after a forced GC, beside the heap the parsed answer takes. Runtime-neutral: Node passes its heap
 * measure, the page passes none.
 */
import type { StorageConfig } from "mcp-result-handles";
import { ticketsOf } from "./answers.js";
import type { BenchApi, Keep } from "./measure.js";
import { interleaved, ratio, spread, type Ratio, type Spread } from "./timing.js";

export const QUERIES = {
  // The filter; the ticket rows have no owner or amount, so it selects nothing after reading every row.
  filter: { path: '$.rows[?@.owner == "user5" && @.amount > 80000]' },
  // A filter that selects: 1 row in 97 × 2 of 5 priorities (first page of it).
  ticketFilter: { path: '$.rows[?@.assignee.name == "Agent 5" && @.priority > 3]', limit: 5 },
  // A filter no text can narrow (every batch parsed and every row compared): 2 rows in 5 pass.
  numericFilter: { path: "$.rows[?@.priority > 3]", limit: 5 },
  // S24.3: the same filter's nodes aggregated (groups by status, the mean priority): at most its cost.
  aggregate: { path: "$.rows[?@.priority > 3]", aggregate: { by: "status", avg: "priority" } },
  // Descendants by name from the root (every row's title): the rows read where they stand.
  descendants: { path: "$..title", limit: 5 },
  // Case-insensitive text under $.rows: every leaf read, a handful of hits.
  search: { path: "$.rows", search: "T-424", limit: 5 },
  // The model's first search, at the root: text in every row (every batch parsed, every leaf matched).
  broadSearch: { path: "$", search: "printer", limit: 5 },
  // The middle row's title (the index is set per answer): one piece read, in an answer stored in pieces.
  singular: { path: "$.rows[1000].title" },
} as const;
export type QueryName = keyof typeof QUERIES;

/** Heap in use now, and a full GC: what Node gives (with --expose-gc set at run time); absent in a page. */
export interface HeapProbe {
  used(): number;
  gc(): void;
}

export interface QueryPartResult {
  runtime: string;
  store: string;
  /** UTF-8 bytes of the answer's JSON. */
  bytes: number;
  rows: number;
  rounds: number;
  times: Record<"parse" | QueryName, Spread>;
  ratios: Record<QueryName, Ratio>;
  /** What each query selected (nodes, or hits for the search), from the last round: the work is real. */
  totals: Record<QueryName, number>;
  /** Node only: heap the parsed answer holds, and the filter's heap growth before any collection, in bytes. */
  memory: { parsedBytes: number; filterPeakBytes: number } | null;
  /** Pieces the build's batch workers (S14.6) counted for this store's queries (0: none took part). */
  workerJobs: number;
  /**
   * Per query refused in some rounds (a batch job whose worker stayed silent too long, S21.4): how many rounds,
   * and the first refusal's code and words. Those rounds timed a refusal, not the query's work.
   */
  refusals: Partial<Record<QueryName, { rounds: number; code: string; message: string }>>;
}

/** A coded refusal of `result_query` (its `ResultQueryError`, in any build: known by its code). */
function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return error instanceof Error && typeof code === "string" ? code : undefined;
}

const owner = { session: "bench-query", caller: "bench" };
const utf8Length = (text: string): number => new TextEncoder().encode(text).byteLength;

export async function runQueryPart(
  api: BenchApi,
  runtime: string,
  stores: readonly string[],
  storage: (store: string, keep: Keep) => StorageConfig,
  options: { bytes: number; rounds: number; heap?: HeapProbe },
  report: (row: QueryPartResult) => void,
): Promise<QueryPartResult[]> {
  const value = ticketsOf(options.bytes);
  const json = JSON.stringify(value);
  const bytes = utf8Length(json);
  const names = Object.keys(QUERIES) as QueryName[];
  const memoryRounds = options.heap ? 2 : 0;
  const warmup = 1;
  const results: QueryPartResult[] = [];
  for (const store of stores) {
    const handlesPer = options.rounds + warmup;
    const plugin = api.ResultHandlesPlugin.init({
      thresholdBytes: 16_384,
      ttlSeconds: 300,
      storage: storage(store, { answers: names.length * handlesPer + memoryRounds + 1, bytes }),
    });
    plugin.logger = { warn: (message) => console.error(`[${runtime}] ${message.slice(0, 200)}`) };
    const tool = new api.ResultQueryTool(() => [plugin]);
    const fold = async () => {
      const folded = await api.foldToolResult(plugin, {
        toolName: "bench",
        result: { structuredContent: value },
        owner,
      });
      const handle = (folded.structuredContent as { handle?: string } | undefined)?.handle;
      if (!handle) throw new Error(`${runtime} ${store}: the answer did not fold`);
      return handle;
    };
    try {
      // Every handle folded before the loop: untimed work inside a round would pay the GC debt of the timed ones.
      const jobsBefore = plugin.workers?.answered ?? 0;
      const unread = Object.fromEntries(names.map((name) => [name, [] as string[]])) as Record<QueryName, string[]>;
      for (const name of names) for (let i = 0; i < handlesPer; i++) unread[name].push(await fold());
      const totals = {} as Record<QueryName, number>;
      const refusals: QueryPartResult["refusals"] = {};
      const run = async (name: QueryName, handle: string | undefined) => {
        const query =
          name === "singular" ? { path: `$.rows[${Math.floor(value.rows.length / 2)}].title` } : QUERIES[name];
        let result;
        try {
          result = await tool.query({ handle, ...query }, owner);
        } catch (error) {
          // a refusal is an answer of result_query, recorded as such: the bench goes on (never a crash)
          const code = codeOf(error);
          if (code === undefined) throw error;
          const seen = refusals[name];
          if (seen) seen.rounds++;
          else refusals[name] = { rounds: 1, code, message: (error as Error).message };
          return;
        }
        if (result.value === undefined && result.groups === undefined)
          throw new Error(`${runtime} ${store} ${name}: no answer`);
        totals[name] = name === "singular" ? 1 : ((result as { total?: number }).total ?? -1);
      };
      const tasks = {
        parse: () => JSON.parse(json),
        ...Object.fromEntries(names.map((name) => [name, () => run(name, unread[name].pop())])),
      };
      const times = await interleaved(options.rounds, tasks as Record<"parse" | QueryName, () => unknown>, warmup);
      let memory: QueryPartResult["memory"] = null;
      if (options.heap)
        memory = await measureMemory(
          options.heap,
          json,
          await Promise.all(Array.from({ length: memoryRounds }, fold)),
          (handle) => run("filter", handle),
        );
      const row: QueryPartResult = {
        runtime,
        store,
        bytes,
        rows: value.rows.length,
        rounds: options.rounds,
        times: Object.fromEntries(
          Object.entries(times).map(([name, values]) => [name, spread(values as number[])]),
        ) as QueryPartResult["times"],
        ratios: Object.fromEntries(
          names.map((name) => [name, ratio(times[name], times.parse)]),
        ) as QueryPartResult["ratios"],
        totals,
        memory,
        workerJobs: (plugin.workers?.answered ?? 0) - jobsBefore,
        refusals,
      };
      report(row);
      results.push(row);
    } finally {
      await plugin.onShutdown();
    }
  }
  return results;
}

/**
 * The filter's heap growth from a collected heap to its answer, before anything collects it (the
 * largest of the rounds; a collection during the query would only lower it), beside what one parse of
 * the answer keeps alive.
 */
const held: { value: unknown } = { value: undefined };

async function measureMemory(
  heap: HeapProbe,
  json: string,
  handles: string[],
  filter: (handle: string) => Promise<void>,
) {
  // Collected until two readings agree, yielding to the event loop between: a heap read straight after one
  // collection can still count what sweeping has yet to give back (a 100 KB parse came out negative).
  const settled = async () => {
    let last = Number.NaN;
    for (let round = 0; round < 8; round++) {
      heap.gc();
      await new Promise((resolve) => setTimeout(resolve, 1));
      const used = heap.used();
      if (Math.abs(used - last) < 1024) return used;
      last = used;
    }
    return last;
  };
  const beforeParse = await settled();
  // held from outside: a local the code no longer reads may be collected before it is measured
  held.value = JSON.parse(json);
  const parsedBytes = (await settled()) - beforeParse;
  held.value = undefined;
  let filterPeakBytes = 0;
  for (const handle of handles) {
    const before = await settled();
    await filter(handle);
    filterPeakBytes = Math.max(filterPeakBytes, heap.used() - before);
  }
  return { parsedBytes, filterPeakBytes };
}
