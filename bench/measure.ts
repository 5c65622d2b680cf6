/**
 * The measurements, through the package's public API only (so they hold whatever the record format):
 * fold against `JSON.stringify`, the first `result_query` of 20 items and a repeated one against
 * `JSON.parse` of the whole answer. Runtime-neutral: Node runs it on the built Node entry, the page on
 * the built page entry (page/main.ts).
 */
import type * as PublicApi from "mcp-result-handles";
import type { StorageConfig, ToolResult } from "mcp-result-handles";
import { answerIn, SHAPES, ticketsOf, type FormName, type ShapeName } from "./answers.js";
import { interleaved, ratio, spread, type Ratio, type Spread } from "./timing.js";

/** What the bench uses of a build; both entries have it. */
export type BenchApi = Pick<typeof PublicApi, "foldToolResult" | "ResultQueryTool" | "RESULT_HANDLE_META_KEY"> & {
  ResultHandlesPlugin: { init(options: PublicApi.ResultHandlesOptions): PublicApi.ResultHandlesPluginCore };
};

/**
 * One fold of `value` as a tool's structuredContent, timed in ms; throws when it did not fold (`label` says whose).
 */
export async function timedFold(
  api: Pick<typeof PublicApi, "foldToolResult">,
  plugin: PublicApi.ResultHandlesPluginCore,
  value: unknown,
  owner: { session: string; caller: string },
  label: string,
): Promise<number> {
  const started = performance.now();
  const folded = await api.foldToolResult(plugin, {
    toolName: "bench",
    result: { structuredContent: value as Record<string, unknown> },
    owner,
  });
  if (!(folded.structuredContent as { handle?: string } | undefined)?.handle)
    throw new Error(`${label}: the answer did not fold`);
  return performance.now() - started;
}

/**
 * How much a memory store must keep for a case: `answers` answers of `bytes` bytes of JSON. In bytes, not
 * records: how many records an answer takes is the store's business (one, or pieces and an index).
 */
export interface Keep {
  answers: number;
  bytes: number;
}

/** A memory store's limits for `keep`, with room for each answer's encryption and index overhead. */
export const memoryFor = (keep: Keep): StorageConfig => ({
  type: "memory",
  memory: { maxEntries: 0, maxBytes: keep.answers * Math.ceil(keep.bytes * 1.25 + 1_048_576) },
  timeoutMs: 60_000,
});

/** One row of the bench: an answer in one form, folded and read on one store. */
export interface CaseSpec {
  part: string;
  store: string;
  form: FormName;
  /** Ticket rows of about this many bytes, or one of S4.8's shapes. */
  answer: { tickets: number; label: string } | { shape: ShapeName };
  rounds: number;
  /** Also time result_query (ticket answers only). */
  query: boolean;
}

export interface CaseResult extends Omit<CaseSpec, "answer"> {
  runtime: string;
  answer: string;
  /** UTF-8 bytes of the answer's JSON. */
  bytes: number;
  /** UTF-8 bytes of the folded structuredContent, or null when the answer came back whole. */
  foldedBytes: number | null;
  /** Rounds whose fold came back unfolded (a store failure or timeout): their times are not a fold's. */
  unfolded: number;
  times: Record<string, Spread>;
  ratios: { fold: Ratio; firstQuery?: Ratio; repeatQuery?: Ratio };
}

const owner = { session: "bench-session", caller: "bench" };
export const THRESHOLD_BYTES = 16_384;
const handleOf = (result: ToolResult): string => (result.structuredContent as { handle: string }).handle;
const utf8Length = (text: string): number => new TextEncoder().encode(text).byteLength;

function answerOf(spec: CaseSpec): { label: string; value: unknown } {
  if ("shape" in spec.answer) return { label: spec.answer.shape, value: SHAPES[spec.answer.shape]() };
  return { label: spec.answer.label, value: ticketsOf(spec.answer.tickets) };
}

/**
 * Runs the cases in order. `storage` gives each store's config; every case opens its own plugins (one
 * folds, one serves first reads, one holds the handle read again and again), so a store that keeps few
 * answers never evicts the repeatedly read one.
 */
export async function runCases(
  api: BenchApi,
  runtime: string,
  cases: readonly CaseSpec[],
  storage: (store: string, keep: Keep) => StorageConfig,
  report: (result: CaseResult) => void,
): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  let cached: { key: string; label: string; value: unknown } | undefined;
  for (const spec of cases) {
    const key = JSON.stringify(spec.answer);
    if (cached?.key !== key) {
      cached = undefined; // let the previous answer go before building the next
      cached = { key, ...answerOf(spec) };
    }
    const first = results.length === 0;
    const result = await runCase(
      api,
      runtime,
      spec,
      cached.label,
      cached.value,
      (keep) => storage(spec.store, keep),
      first,
    );
    report(result);
    results.push(result);
  }
  return results;
}

async function runCase(
  api: BenchApi,
  runtime: string,
  spec: CaseSpec,
  label: string,
  value: unknown,
  storage: (keep: Keep) => StorageConfig,
  first: boolean,
): Promise<CaseResult> {
  // Untimed rounds first, a fifth of the timed ones, and 30 more for a runtime's first case: it runs on
  // code not yet optimised (in a fresh page its 100 KB fold read 5.6–7× a stringify where the next case,
  // doing more, read 4.4×).
  const warmup = spec.rounds >= 5 ? Math.max(1, Math.round(spec.rounds / 5)) + (first ? 30 : 0) : 0;
  const json = JSON.stringify(value);
  const bytes = utf8Length(json);
  const plugin = (answers: number) => {
    const instance = api.ResultHandlesPlugin.init({
      thresholdBytes: THRESHOLD_BYTES,
      ttlSeconds: 120,
      storage: storage({ answers, bytes }),
    });
    instance.logger = { warn: (message) => console.error(`[${runtime}] ${message.slice(0, 200)}`) };
    return instance;
  };
  // A memory store keeps what each needs: the fold's latest, every handle waiting for its first read, the one read
  // again.
  const [folding, firstReads, repeatReads] = [plugin(1), plugin(spec.rounds + warmup), plugin(1)];
  const input = answerIn(spec.form, value);
  const isFolded = (result: ToolResult): boolean => result._meta?.[api.RESULT_HANDLE_META_KEY] !== undefined;
  const fold = (on: PublicApi.ResultHandlesPluginCore) =>
    api.foldToolResult(on, { toolName: "bench", result: input, owner });
  let unfolded = 0;
  let foldedBytes: number | null = null;
  try {
    const tasks: Record<string, () => unknown> = {
      stringify: () => JSON.stringify(value),
      fold: async () => {
        const result = await fold(folding);
        if (!isFolded(result)) unfolded++;
        else foldedBytes ??= utf8Length(JSON.stringify(result.structuredContent));
      },
    };
    if (spec.query) {
      // 20 rows from the middle of the list: with an answer stored in pieces, neither the first nor the last piece.
      const rows = (value as { rows: { id: string }[] }).rows;
      const read = { path: "$.rows", offset: Math.floor(rows.length / 2), limit: 20 };
      const repeated = await fold(repeatReads);
      if (!isFolded(repeated)) throw new Error(`${runtime} ${spec.store}: the ${label} answer did not fold`);
      // One new handle per round, all folded before the loop: untimed work inside a round would absorb the
      // GC debt of the tasks before it and flatter the timed read that follows.
      const unread: string[] = [];
      for (let round = 0; round < spec.rounds + warmup; round++) unread.push(handleOf(await fold(firstReads)));
      const firstTool = new api.ResultQueryTool(() => [firstReads]);
      const repeatTool = new api.ResultQueryTool(() => [repeatReads]);
      const check = (slice: PublicApi.QueryResult) => {
        const items = slice.value as { id?: string }[];
        if (!Array.isArray(items) || items.length !== 20 || items[0]?.id !== rows[read.offset]?.id) {
          throw new Error(`${runtime} ${spec.store}: result_query did not return the 20 rows asked for`);
        }
      };
      Object.assign(tasks, {
        parse: () => JSON.parse(json),
        firstQuery: async () => check(await firstTool.query({ ...read, handle: unread.pop() }, owner)),
        repeatQuery: async () => check(await repeatTool.query({ ...read, handle: handleOf(repeated) }, owner)),
      });
    }
    const times = await interleaved(spec.rounds, tasks, warmup);
    const ratios: CaseResult["ratios"] = { fold: ratio(times.fold!, times.stringify!) };
    if (spec.query) {
      ratios.firstQuery = ratio(times.firstQuery!, times.parse!);
      ratios.repeatQuery = ratio(times.repeatQuery!, times.parse!);
    }
    const { answer: _, ...rest } = spec;
    return {
      ...rest,
      runtime,
      answer: label,
      bytes,
      foldedBytes,
      unfolded,
      times: Object.fromEntries(Object.entries(times).map(([name, values]) => [name, spread(values)])),
      ratios,
    };
  } finally {
    await Promise.all([folding, firstReads, repeatReads].map((instance) => instance.onShutdown()));
  }
}
