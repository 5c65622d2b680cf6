/**
 * `npm run bench`: the whole bench, through the package's public API on its built entries
 * (dist/node in Node, dist/browser in Chromium). Prints tables as rows finish, writes JSON
 * (bench/results/latest.json) and draws docs/bench.svg. Asserts nothing but that folds fold and queries answer.
 *
 * Options (arguments or environment variables):
 *   --parts=node,stores,shapes,chromium,http,query,reference,cluster
 *                                              BENCH_PARTS   which parts (default: all); query: filters, search and a
 *                                                            singular JSONPath read (S14.6); reference: an answer
 *                                                            passed
 *                                                            by $result (S15.1); cluster: folds on a 3-master Redis
 *                                                            Cluster
 *                                                            (S17.2). These three run on the largest size asked up to
 *                                                            10 MB
 *   --query-runtimes=node,chromium BENCH_QUERY_RUNTIMES where the query part runs (default: node, and chromium
 *                                                            when the chromium part runs too)
 *   --query-stores=memory,sqlite,redis BENCH_QUERY_STORES the query part's Node stores (default: all three; the shared
 *                                                            better-sqlite3 build loads only in the Node it was built
 *                                                            for)
 *   --sizes=100KB,1MB,10MB,50MB                BENCH_SIZES   answer sizes (default: all; quick: 100KB,1MB)
 *   --rounds=N                                 BENCH_ROUNDS  rounds of every loop (default: per size)
 *   --quick                                    BENCH_QUICK=1 few rounds, small sizes
 *   --out=FILE                                 BENCH_OUT     where the JSON goes (default: bench/results/latest.json
 *                                                            for a whole run, else the temp folder)
 *   --chart=FILE|none                          BENCH_CHART   where the SVG goes (default: docs/bench.svg for a whole
 *                                                            run, else none)
 *   --compare=FILE,... BENCH_COMPARE other runs' JSON drawn in the chart too, named by their Node
 *                                                            version (default: bench/results/node24.json when present)
 *   --redraw BENCH_REDRAW=1 only draw the chart again from the JSON, print the goals as Markdown
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type * as PublicApi from "mcp-result-handles";
import { SHAPES, type FormName, type ShapeName } from "./answers.js";
import { drawChart } from "./chart.js";
import { runInChromium } from "./chromium.js";
import { runClusterPart, type ClusterPartResult } from "./cluster.js";
import { overHttp, type HttpResult } from "./http.js";
import { runCases, THRESHOLD_BYTES, type CaseResult, type CaseSpec } from "./measure.js";
import { runQueryPart, type QueryPartResult } from "./query.js";
import { runReferencePart, type ReferencePartResult } from "./reference.js";
import {
  checkGoals,
  goalsMarkdown,
  printCase,
  printCaseHeader,
  printCluster,
  printGoals,
  printHttp,
  printQuery,
  printQueryHeader,
  printReference,
  printRoundTrip,
  printRoundTripHeader,
  type GoalCheck,
} from "./report.js";
import { openNodeStores, storeRoundTrips, type RoundTripResult } from "./stores.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const PARTS = ["node", "stores", "shapes", "chromium", "http", "query", "reference", "cluster"] as const;
type Part = (typeof PARTS)[number];

/**
 * Sizes and their rounds: enough for a steady median, few enough that the whole bench takes about 5 minutes on 2 cores.
 */
const SIZES = [
  { label: "100 KB", bytes: 100_000, rounds: 31, pageRounds: 31 },
  { label: "1 MB", bytes: 1_000_000, rounds: 15, pageRounds: 15 },
  { label: "10 MB", bytes: 10_000_000, rounds: 15, pageRounds: 13 },
  { label: "50 MB", bytes: 50_000_000, rounds: 7, pageRounds: 5 },
];
const SHAPE_ROUNDS = 25;
const HTTP_ROUNDS = 9;
const PART_ROUNDS = 9;

function option(name: string): string | undefined {
  const arg = process.argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (arg) return arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : "1";
  return process.env[`BENCH_${name.toUpperCase()}`];
}

const quick = option("quick") === "1";
const parts = new Set((option("parts")?.split(",") ?? PARTS).map((p) => p.trim()) as Part[]);
for (const part of parts) if (!PARTS.includes(part)) throw new Error(`unknown part "${part}": use ${PARTS.join(", ")}`);
const sizeFilter =
  option("sizes")
    ?.split(",")
    .map((s) => s.trim().toUpperCase().replace(/\s/g, "")) ?? (quick ? ["100KB", "1MB"] : undefined);
const sizes = SIZES.filter((s) => !sizeFilter || sizeFilter.includes(s.label.replace(/\s/g, "").toUpperCase()));
const roundsOverride = option("rounds") ? Number(option("rounds")) : quick ? 5 : undefined;
/** The query, reference and cluster parts' answer: the largest size asked, up to 10 MB. */
const queryRuntimes = new Set(
  option("query-runtimes")
    ?.split(",")
    .map((r) => r.trim()) ?? (parts.has("query") ? ["node", ...(parts.has("chromium") ? ["chromium"] : [])] : []),
);
if (queryRuntimes.size) parts.add("query");
const partBytes = Math.min(
  10_000_000,
  ...sizes
    .map((s) => s.bytes)
    .sort((a, b) => b - a)
    .slice(0, 1),
);
// Only a whole run replaces the committed figures and chart; a part, a size or quick mode writes to the temp folder.
const whole = !quick && parts.size === PARTS.length && !sizeFilter && roundsOverride === undefined;
const out =
  option("out") ?? (whole ? `${root}bench/results/latest.json` : join(tmpdir(), "mcp-result-handles-bench.json"));
const chart = option("chart") ?? (whole || option("redraw") === "1" ? `${root}docs/bench.svg` : "none");

type Results = {
  generatedAt: string;
  machine: { node: string; chromium: string | null; cores: number; loadavg: { start: number[]; end: number[] } };
  cases: CaseResult[];
  http: HttpResult | null;
};
const caption = (r: Results) =>
  `Node ${r.machine.node}${r.machine.chromium ? `, Chromium ${r.machine.chromium}` : ""}, ${r.machine.cores} cores, ` +
  `load average ${r.machine.loadavg.start[0]} at start, ${r.machine.loadavg.end[0]} at end ` +
  `(other jobs ran: figures are noisy); ${r.generatedAt.slice(0, 16)} UTC`;
const compare = (option("compare")?.split(",") ?? [`${root}bench/results/node24.json`]).filter(
  (file) => file && resolve(file) !== resolve(out) && existsSync(file),
);
/** Another run's Node cases, their runtime named by its Node version, e.g. "node v24.21.0". */
function comparedCases(): CaseResult[] {
  return compare.flatMap((file) => {
    const other = JSON.parse(readFileSync(file, "utf8")) as Results;
    return other.cases
      .filter((c) => c.runtime === "node")
      .map((c) => ({ ...c, runtime: `node ${other.machine.node}` }));
  });
}
function writeChart(r: Results): void {
  const compared = comparedCases();
  const others = compared.length
    ? `; ${[...new Set(compared.map((c) => c.runtime))].join(", ")} from a ` +
      `separate run (${compare.map((f) => basename(f)).join(", ")})`
    : "";
  mkdirSync(dirname(chart), { recursive: true });
  const own = r.cases.map((c) => (c.runtime === "node" ? { ...c, runtime: `node ${r.machine.node}` } : c));
  writeFileSync(
    chart,
    drawChart([...own, ...compared], { caption: caption(r) + others, ...(r.http ? { http: r.http } : {}) }),
  );
  console.log(`wrote ${chart}`);
}
if (option("redraw") === "1") {
  const saved = JSON.parse(readFileSync(out, "utf8")) as Results & { goals: GoalCheck[] };
  writeChart(saved);
  console.log(goalsMarkdown(saved.goals));
  process.exit(0);
}

const loadavg = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).map(Number);
const started = Date.now();
const load = { start: loadavg(), atParts: {} as Record<string, number[]>, end: [] as number[] };

const rounds = (base: number) => roundsOverride ?? base;
/** The query part's heap measure: heap in use, and a full GC (exposed now, for that part only). */
const heapProbe = () => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  return { used: () => process.memoryUsage().heapUsed, gc };
};
const sizeCases = (
  part: string,
  store: string,
  forms: readonly FormName[],
  page: boolean,
  maxBytes = Infinity,
): CaseSpec[] =>
  sizes
    .filter((s) => s.bytes <= maxBytes)
    .flatMap((s) =>
      forms
        .filter((form) => form !== "pretty" || (s.label === "10 MB" && !quick))
        .map((form) => ({
          part,
          store,
          form,
          answer: { tickets: s.bytes, label: s.label },
          rounds: rounds(page ? s.pageRounds : s.rounds),
          query: true,
        })),
    );
const shapeCases = (): CaseSpec[] =>
  (Object.keys(SHAPES) as ShapeName[]).map((shape) => ({
    part: "shapes",
    store: "memory",
    form: "structured",
    answer: { shape },
    rounds: rounds(quick ? 5 : SHAPE_ROUNDS),
    query: false,
  }));

// The built Node entry (tsx would map the package name to src/); typed by the sources' public API.
const api = (await import(`${root}dist/node/index.js`)) as typeof PublicApi;

const cases: CaseResult[] = [];
let roundTrips: RoundTripResult[] = [];
let http: HttpResult | null = null;
let chromiumVersion: string | null = null;
let queries: QueryPartResult[] = [];
let references: ReferencePartResult[] = [];
let cluster: ClusterPartResult | null = null;

console.log(
  `Node ${process.version}, ${cpus().length} cores, load average ` +
    `${load.start.join(" ")}; threshold ${THRESHOLD_BYTES} bytes`,
);
console.log(
  `ms as median (25th-75th percentile) of the rounds; ratios are the median of ` +
    `each round's own ratio (candidate / baseline timed beside it)`,
);

const usesRedis = parts.has("stores") || parts.has("query") || parts.has("reference") || parts.has("cluster");
const stores = await openNodeStores({ redis: usesRedis, upstash: parts.has("stores"), cluster: parts.has("cluster") });
try {
  if (parts.has("node") || parts.has("stores") || parts.has("shapes")) {
    console.log("\nNode, built package: fold against JSON.stringify, result_query against JSON.parse");
    printCaseHeader();
    const nodeCases = [
      ...(parts.has("node") ? sizeCases("sizes", "memory", ["structured", "text", "pretty"], false) : []),
      ...(parts.has("stores")
        ? ["sqlite", "redis"].flatMap((store) => sizeCases("sizes", store, ["structured"], false, 10_000_000))
        : []),
      ...(parts.has("shapes") ? shapeCases() : []),
    ];
    cases.push(...(await runCases(api, "node", nodeCases, (store, keep) => stores.storage(store, keep), printCase)));
    load.atParts.node = loadavg();
  }
  if (parts.has("stores")) {
    console.log(
      "\nStore round trip through createResultHandleStore: save (seal + store) " +
        "against stringify, read (fetch + open + parse) against parse",
    );
    printRoundTripHeader();
    const tripSizes = sizes
      .filter((s) => s.bytes >= 1_000_000 && s.bytes <= 10_000_000)
      .map((s) => ({ ...s, rounds: rounds(s.bytes > 1e6 ? 5 : 11) }));
    roundTrips = await storeRoundTrips(
      api.createResultHandleStore,
      stores,
      ["memory", "sqlite", "redis", "upstash"],
      tripSizes,
      printRoundTrip,
    );
    load.atParts.stores = loadavg();
  }
  if (queryRuntimes.has("node")) {
    console.log(
      `\nNode, JSONPath filters, search and a singular read over ${partBytes / 1e6} MB ` +
        `through result_query, a fresh handle per round, against JSON.parse`,
    );
    printQueryHeader();
    const options = { bytes: partBytes, rounds: rounds(PART_ROUNDS), heap: heapProbe() };
    const queryStores = option("query-stores")
      ?.split(",")
      .map((store) => store.trim()) ?? ["memory", "sqlite", "redis"];
    queries = await runQueryPart(
      api,
      "node",
      queryStores,
      (store, keep) => stores.storage(store, keep),
      options,
      printQuery,
    );
    load.atParts.query = loadavg();
  }
  if (parts.has("reference")) {
    console.log(
      `\nA ${partBytes / 1e6} MB answer passed by { "$result": handle, "path": "$.rows" } to a ` +
        `second tool, against folding it once and typing it inline (in-memory MCP link)`,
    );
    const options = { bytes: partBytes, rounds: rounds(PART_ROUNDS) };
    references = await runReferencePart(
      api,
      ["memory", "redis"],
      (store, keep) => stores.storage(store, keep),
      options,
      printReference,
    );
    load.atParts.reference = loadavg();
  }
  if (parts.has("cluster")) {
    console.log(`\nFolding ${partBytes / 1e6} MB on a 3-master Redis Cluster beside one Redis`);
    cluster = await runClusterPart(
      api,
      { redis: stores.storage("redis"), cluster: stores.storage("cluster") },
      { bytes: partBytes, rounds: rounds(PART_ROUNDS) },
    );
    printCluster(cluster);
    load.atParts.cluster = loadavg();
  }
} finally {
  await stores.close();
}

if (parts.has("chromium") || queryRuntimes.has("chromium")) {
  const pageCases = parts.has("chromium")
    ? [...sizeCases("sizes", "memory", ["structured", "text"], true), ...(parts.has("shapes") ? shapeCases() : [])]
    : [];
  if (pageCases.length) {
    console.log(
      "\nChromium, built page entry (memory store): fold against JSON.stringify, result_query against JSON.parse",
    );
    printCaseHeader();
  }
  const pageQueries = queryRuntimes.has("chromium")
    ? { bytes: partBytes, rounds: rounds(PART_ROUNDS), report: printQuery }
    : undefined;
  if (pageQueries)
    console.log(
      `\nChromium: the query part over ${partBytes / 1e6} MB on the page's memory store (no heap measure in a page)`,
    );
  if (pageQueries) printQueryHeader();
  const page = await runInChromium(pageCases, printCase, pageQueries);
  chromiumVersion = page.version;
  cases.push(...page.results);
  queries.push(...page.queries);
  load.atParts.chromium = loadavg();
}

if (parts.has("http")) {
  const bytes = quick ? 1_000_000 : 10_000_000;
  console.log(
    `\nOver HTTP through the demo server: one ${bytes / 1e6} MB answer ` +
      `(text + structuredContent), folded against unfolded`,
  );
  http = await overHttp(bytes, rounds(HTTP_ROUNDS));
  printHttp(http);
  load.atParts.http = loadavg();
}

load.end = loadavg();
const goals = checkGoals(cases, queries);
console.log("\nGoals (headline: median of per-round ratios)");
printGoals(goals);

const commit = (() => {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
  } catch {
    return null;
  }
})();
const results = {
  formatVersion: 1,
  generatedAt: new Date().toISOString(),
  durationSeconds: Math.round((Date.now() - started) / 1000),
  options: { quick, parts: [...parts], sizes: sizes.map((s) => s.label), roundsOverride: roundsOverride ?? null },
  machine: {
    node: process.version,
    chromium: chromiumVersion,
    platform: process.platform,
    arch: process.arch,
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? null,
    loadavg: load,
  },
  commit,
  thresholdBytes: THRESHOLD_BYTES,
  cases,
  storeRoundTrips: roundTrips,
  http,
  queries,
  references,
  cluster,
  goals,
};
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
console.log(`\nwrote ${out}`);
if (chart !== "none") writeChart(results);
console.log(`done in ${results.durationSeconds} s; load average at the end ${load.end.join(" ")}`);
