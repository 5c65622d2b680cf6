import {
  DEFAULT_THRESHOLD_BYTES,
  MAX_RESULT_SIZE_META_KEY,
  QUERY_CALLS_PER_OWNER,
  RESULT_QUERY_TOOL_NAME,
  MANY_FIELDS,
} from "../../defaults.js";
import type { Owner } from "../../records/crypto/keys.js";
import { describeError, ResultQueryError } from "../../errors.js";
import { ReadFailed, type AnswerReader } from "../../records/read/answer-reader.js";
import { answerOverBatches } from "../over-lists/over-lists.js";
import { readRootsFirst } from "../over-lists/roots-first.js";
import type { BatchWorkers } from "../workers/pool.js";
import { quoteArgument } from "../../util/quote-argument.js";
import { callSliceLimit, hostCutOf, largestAnswerChars, type ResultHandlesConfig } from "../../config.js";
import type { ReadCharge } from "../../records/read/answer-state.js";
import { planPath, selectorFor } from "../paths/plan.js";
import { planReference } from "../paths/reference-plan.js";
import { selectionBytes } from "../paths/selection-bytes.js";
import { readSelection, selectionOf } from "../paths/selection.js";
import { refuseOverIndex } from "../refusals/index-cost.js";
import { searchQueryYielding } from "../search/search-query.js";
import { answerPlan, answerPlanYielding, parseQueryArguments, searchWithFields, type QueryResult } from "../query.js";
import {
  ANNOTATIONS,
  describeResultQuery,
  INPUT_JSON_SCHEMA,
  OUTPUT_JSON_SCHEMA,
  passThroughSchema,
} from "./listing.js";
import { CostMeter } from "../cost.js";
import { StoreCall, type ResultHandleStore } from "../../records/store.js";
import { textResult, type ToolResult } from "../../util/tool-result.js";
import { jsonSize, withKnownSizes } from "../../util/size.js";
import { withNotes } from "../refusals/notes.js";
import { aggregatePlan } from "../aggregate/aggregate.js";
import { yieldToLoop } from "../../util/yield.js";
import { OwnerCalls } from "./owner-calls.js";

/**
 * Every owner's calls under way in this process, whichever server and plugin instance they come to (a
 * stateless host makes a server a request, and one owner's calls come to many).
 */
const ownerCalls = new OwnerCalls(QUERY_CALLS_PER_OWNER);

/** A plugin instance as `result_query` sees it: where its handles live and how large a slice may be. */
export interface HandleSource {
  readonly config: ResultHandlesConfig;
  store(): Promise<ResultHandleStore>;
  /** Threads to count a filter's batches on (S14.6); without them, everything runs on the calling thread. */
  readonly workers?: BatchWorkers;
}

/** The caller, or how to find it per source when hosts resolve owners per plugin instance. */
export type OwnerOf = Owner | ((source: HandleSource) => Owner);

/**
 * The `result_query` tool (S7). Hosts register `name`, `description`, `inputSchema` and `outputSchema`
 * and route calls to `handler`, which answers every refusal as an `isError` result (S7.6).
 */
export class ResultQueryTool {
  readonly name = RESULT_QUERY_TOOL_NAME;
  readonly title = "Read part of a folded answer";
  /** The description with the sentence on references (S15.1), as listed where they resolve (S18.3). */
  readonly description = describeResultQuery(true);
  /** The description as listed on a host where references resolve, or not (S15.3, S18.3). */
  descriptionFor(references: boolean): string {
    return describeResultQuery(references);
  }
  /**
   * S18.5: `_meta` of the `tools/list` entry. `anthropic/maxResultSizeChars` is the largest answer this
   * tool returns, as characters, under the largest slice limit of the instances; so Claude Code keeps the
   * plugin's own slices in context instead of spilling them to a file.
   */
  listingMeta(): Record<string, unknown> {
    const limits = this.sources().map((source) => source.config.sliceLimitBytes);
    const limit = limits.length > 0 ? Math.max(...limits) : DEFAULT_THRESHOLD_BYTES;
    return { [MAX_RESULT_SIZE_META_KEY]: largestAnswerChars(limit) };
  }
  readonly inputJsonSchema: Record<string, unknown> = INPUT_JSON_SCHEMA;
  readonly outputJsonSchema: Record<string, unknown> = OUTPUT_JSON_SCHEMA;
  readonly inputSchema = passThroughSchema(INPUT_JSON_SCHEMA);
  readonly outputSchema = passThroughSchema(OUTPUT_JSON_SCHEMA);
  readonly annotations = ANNOTATIONS;

  constructor(private readonly sources: () => readonly HandleSource[]) {}

  /** Handles a call; refusals come back as `{ isError: true, structuredContent: { error } }`, never thrown. */
  async handler(args: unknown, owner: OwnerOf, client?: string): Promise<ToolResult> {
    try {
      const result = (await this.queryUntil(args, owner, client)).result;
      return textResult(result as unknown as Record<string, unknown>);
    } catch (error) {
      return refusalResult(error);
    }
  }

  /** Reads one slice; throws `ResultQueryError`. */
  async query(rawArgs: unknown, owner: OwnerOf): Promise<QueryResult> {
    return (await this.queryUntil(rawArgs, owner)).result;
  }

  /**
   * `query`, and when the handle expires (epoch ms): a resource read says how long its answer holds (S15.4). It runs
   * as one of the owner's calls under way (`OwnerCalls`; the owner the first instance names tells owners apart).
   */
  queryUntil(rawArgs: unknown, owner: OwnerOf, client?: string): Promise<{ result: QueryResult; expiresAt: number }> {
    const first = this.sources()[0];
    const named = typeof owner === "function" ? (first ? owner(first) : {}) : owner;
    return ownerCalls.run(named, () => this.queryAsOwnerCall(rawArgs, owner, client));
  }

  private async queryAsOwnerCall(
    rawArgs: unknown,
    owner: OwnerOf,
    client?: string,
  ): Promise<{ result: QueryResult; expiresAt: number }> {
    const storeCall = new StoreCall(); // what the call waits for its stores, in all (S26.3)
    const args = parseQueryArguments(rawArgs);
    // S21.4: a request of 100,000 `fields` took its transport's parse and this one's in one piece; the rest waits
    // its turn.
    if ((args.fields?.length ?? 0) > MANY_FIELDS) await yieldToLoop();
    const parsed = planPath(args.path); // parsed once, whatever the number of instances; the store reads its selection
    // a path an aggregate cannot run over is refused before anything is read (S24.1)
    if (args.aggregate) aggregatePlan(parsed);
    const meterOf = callMeters();
    // S23.2: slices within the calling host's cut as well as the threshold (the instance's own table).
    const configOf = (source: HandleSource): ResultHandlesConfig => {
      const limit = callSliceLimit(source.config, hostCutOf(source.config, client));
      return limit === source.config.sliceLimitBytes ? source.config : { ...source.config, sliceLimitBytes: limit };
    };
    const { reader, source } = await this.find(args.handle, owner, "shared", meterOf, storeCall);
    const config = configOf(source);
    // one meter for all the call does (S21.1): its reads, the summary's check, the query
    const meter = meterOf(source);
    const mode = { kind: "page", sliceLimitBytes: config.sliceLimitBytes } as const;
    // S26.1: the queries from the root inside its filters read first, each only as far as the filter reads it; the
    // query, bound to them, then reads as any filter does, not the whole answer
    const plan = await served(args.handle, () => readRootsFirst(reader, parsed, args, mode, source.workers, meter));
    const selection = selectionOf(reader, selectorFor(plan, args, mode));
    if (typeof selection === "object" && "stream" in selection) {
      if (selection.stream === "all") await served(args.handle, () => reader.outside());
      const streamed = await answerOverBatches(reader, selection, plan, args, config, source.workers, meter);
      if (streamed === "lost") throw handleNotFound(args.handle);
      // the store failed between two batches (S9.1): try again
      if (streamed === "unavailable") throw storeUnavailable();
      if (args.fieldsOfSearch) throw searchWithFields(args, args.fieldsOfSearch, streamed.value);
      return { result: withNotes(streamed, args.notes), expiresAt: reader.expiresAt };
    }
    if (selection === "all") refuseOverIndex(plan, args, reader, meter); // a cost the index knows (S26.1)
    let value = await served(args.handle, () => readSelection(reader, selection));
    if (typeof selection === "object" && "summary" in selection) {
      // Read as a summary (S16.4): a refusal built from it is the refusal of the whole (every part counts at
      // its whole size); a slice that fits is read whole and answered from that.
      try {
        withKnownSizes(() => answerPlan(value, plan, args, config.sliceLimitBytes, meter));
      } catch (error) {
        if (error instanceof ResultQueryError && error.code === "RESULT_SLICE_TOO_LARGE") throw error;
      }
      value = await served(args.handle, () => reader.all());
    }
    const result =
      args.search !== undefined
        ? await searchQueryYielding(value, plan, { ...args, search: args.search }, config, meter)
        : await answerPlanYielding(value, plan, args, config.sliceLimitBytes, meter);
    if (args.fieldsOfSearch) throw searchWithFields(args, args.fieldsOfSearch, result.value);
    return { result: withNotes(result, args.notes), expiresAt: reader.expiresAt };
  }

  /**
   * S15.1, S15.2: the value a `{ $result, path }` reference names, whole (nothing cut or paged), read for
   * `owner` from any instance's store exactly as `query` reads it; anything that does not resolve throws
   * the `ResultQueryError` that `result_query` would answer for that handle and path, with its text. Read
   * afresh (`fresh`), the tool that receives it may change it without touching what later queries see;
   * `shared` serves a reader that only looks (a resource read). `storeCall`: the tool call's, so its store
   * deadline spans all its references (S26.3); one of its own when left out. `meters`: the call's, shared by
   * all its references (S26.2); fresh when left out. `opened`: the call's answers `referenceBytes` opened, a fresh
   * read takes its own from there rather than opening it again.
   */
  async referenced(
    handle: unknown,
    path: unknown,
    owner: OwnerOf,
    read: "fresh" | "shared" = "fresh",
    storeCall = new StoreCall(),
    meters: CallMeters = callMeters(),
    opened?: OpenedReferences,
  ): Promise<{ value: unknown; expiresAt: number }> {
    const args = parseQueryArguments({ handle, path });
    const given = path === undefined ? undefined : args.path;
    const reference = planReference(given); // parsed once: what the store reads, and what is taken from it
    const key = referenceKey(args.handle, path);
    const kept = read === "fresh" ? opened?.get(key) : undefined;
    opened?.delete(key);
    const found = kept ?? (await this.find(args.handle, owner, read, meters, storeCall));
    kept?.chargeTo(meters(kept.source)); // what its opening read, charged now as if it were opened here (S21.1)
    const { reader } = found;
    const selection = selectionOf(reader, reference.select);
    // what the reference reads, from the index (S21.1: references are charged by their bytes)
    const bytes = reader.whole ? 0 : selectionBytes(selection, reader.lists, reader.strings, reader.objects);
    if (typeof selection === "object" && "stream" in selection)
      throw new Error("unreachable: a reference reads its value whole, never in batches");
    // the holding instance's limit (S21.1), charged with the read already, and with the call's other references (S26.2)
    const meter = meters(found.source);
    // S26.2 S21.4: the reads of a call's references, side by side, each decrypt and parse in one piece, one after
    // another, each yielding first once the call has held the thread long enough (four read in a row held it
    // 14-60 ms)
    const value = await meters.oneAtATime(async () => {
      if (meter.shouldYield()) await meter.yieldToLoop();
      return served(args.handle, () => readSelection(reader, selection));
    });
    meter.charge("references", bytes);
    return { value: await reference.value(value, meter), expiresAt: reader.expiresAt };
  }

  /**
   * Refuses a reference whose handle or path `referenced` would refuse before reading anything (S21.2): a path of no
   * form, a query over a static limit. Says whether `referenced` may still refuse it for its path: a singular path may
   * name nothing (RESULT_PATH_NOT_FOUND); a query's list of nodes may be empty, never missing.
   */
  checkReference(handle: unknown, path: unknown): boolean {
    const args = parseQueryArguments({ handle, path });
    const plan = planPath(args.path);
    if (plan.kind === "refused") throw plan.error;
    return plan.kind === "singular";
  }

  /**
   * About how many bytes a reference will resolve to, from the answer's index alone (S21.2): every
   * reference of a call is sized before the first is read. Throws what `referenced` would for a handle
   * that does not resolve. The answer it opened is kept in `opened` for the reference's read (`referenced`), which
   * charges what the opening read to the call's meter: each answer is opened once a reference.
   */
  async referenceBytes(
    handle: unknown,
    path: unknown,
    owner: OwnerOf,
    storeCall = new StoreCall(),
    opened?: OpenedReferences,
  ): Promise<number> {
    const args = parseQueryArguments({ handle, path });
    const reference = planReference(path === undefined ? undefined : args.path);
    const held: Parameters<ReadCharge>[] = [];
    let meter: CostMeter | undefined;
    const charge: ReadCharge = (kind, count) => (meter ? meter.charge(kind, count) : void held.push([kind, count]));
    const found = await this.find(args.handle, owner, opened ? "fresh" : "shared", undefined, storeCall, charge);
    opened?.set(referenceKey(args.handle, path), {
      ...found,
      chargeTo(to) {
        meter = to;
        for (const [kind, count] of held.splice(0)) to.charge(kind, count);
      },
    });
    const { reader } = found;
    if (reader.whole) return 0;
    const { lists, strings, objects } = reader;
    return selectionBytes(reference.select(lists, strings, objects), lists, strings, objects);
  }

  /**
   * The JSON size of the whole answer, from its summary (S16.4): what a whole read would cost, known before it (S21.3).
   */
  async answerBytes(handle: string, owner: OwnerOf, storeCall = new StoreCall()): Promise<number> {
    const { reader } = await this.find(handle, owner, "shared", undefined, storeCall);
    const value = await served(handle, () => reader.summary(0));
    return withKnownSizes(() => jsonSize(value));
  }

  /**
   * The first instance (in install order) holding the handle for its owner, and the answer's reader (its
   * main record read: the parts are read as the query asks for them).
   */
  private async find(
    handle: string,
    owner: OwnerOf,
    read: "shared" | "fresh",
    meterOf?: (source: HandleSource) => CostMeter,
    storeCall = new StoreCall(),
    charge?: ReadCharge,
  ): Promise<{ reader: AnswerReader; source: HandleSource }> {
    // Every instance's store is asked at once, so a slow or hung store costs one timeout, not one per
    // instance; the first instance (in install order) that holds the handle answers.
    const reads = this.sources().map((source) => ({
      source,
      found: source
        .store()
        .then((store) =>
          store.open(handle, typeof owner === "function" ? owner(source) : owner, {
            shared: read === "shared",
            charge: charge ?? (meterOf && chargeTo(meterOf(source))),
            call: storeCall,
          }),
        )
        .then(
          (reader): AnswerReader | "not found" | "unavailable" => reader ?? "not found",
          // a meter's refusal is the call's answer
          (error: unknown) => (error instanceof ResultQueryError ? error : ("unavailable" as const)),
        ),
    }));
    let unavailable = false;
    for (const read of reads) {
      const found = await read.found;
      if (found instanceof ResultQueryError) throw found;
      if (found === "unavailable") unavailable = true;
      else if (found !== "not found") return { reader: found, source: read.source };
    }
    if (unavailable) throw storeUnavailable();
    throw handleNotFound(handle);
  }
}

/**
 * A read of the answer's parts, its failures answered as `result_query` answers them: the call's meter
 * refusing the read (S21.1) as it is, a piece lost as the handle not found (S8.5), a failing store as
 * unavailable (S9.1).
 */
async function served<T>(handle: string, reading: () => Promise<T>): Promise<T> {
  try {
    return await reading();
  } catch (error) {
    if (error instanceof ResultQueryError) throw error;
    if (error instanceof ReadFailed && error.reason === "lost") throw handleNotFound(handle);
    throw storeUnavailable();
  }
}

function storeUnavailable(): ResultQueryError {
  return new ResultQueryError(
    "RESULT_STORE_UNAVAILABLE",
    "The result store could not be read right now. Try the same call again in a moment.",
  );
}

function handleNotFound(handle: string): ResultQueryError {
  return new ResultQueryError(
    "RESULT_HANDLE_NOT_FOUND",
    `No answer is kept for handle ${quoteArgument(handle)}: it expired, was evicted, ` +
      `or was not issued to this session and caller. Call the original tool again for a new handle.`,
  );
}

/**
 * A refusal as a tool result (S7.6): its text starts with the code. `structured: false` leaves out
 * `{ error }` for a tool whose own output schema would not admit it (an SDK v1 client checks it, S7.9).
 */
export function refusalResult(error: unknown, structured = true): ToolResult {
  const refusal = asQueryError(error);
  return {
    content: [{ type: "text", text: `${refusal.code}: ${refusal.message}` }],
    ...(structured ? { structuredContent: { error: { code: refusal.code, message: refusal.message } } } : {}),
    isError: true,
  };
}

function asQueryError(error: unknown): ResultQueryError {
  return error instanceof ResultQueryError ? error : new ResultQueryError("INVALID_INPUT", describeError(error));
}

/**
 * The answers a call's references opened to be sized (`referenceBytes`), each kept for its reference's read
 * (`referenced`): an answer opened once a reference, not once to size it and again to read it (S21.2). One map per
 * call, keyed by `referenceKey`.
 */
export type OpenedReferences = Map<
  string,
  { reader: AnswerReader; source: HandleSource; chargeTo(meter: CostMeter): void }
>;

/** One reference of a call: its handle and path as given. */
const referenceKey = (handle: string, path: unknown) => JSON.stringify([handle, path ?? null]);

/**
 * The meters of one call: one per instance it asks (each with its own costLimit); the holding instance's is
 * the call's (S21.1). Every reference of a call draws on the same ones (S26.2: `callMeters` once per call).
 */
type CallMeters = ((source: HandleSource) => CostMeter) & {
  /** The largest share of its cost limit one of the call's meters has spent so far (0 to 1 and past it). */
  share(): number;
  /** Runs `work` once the call's work before it, given here too, has ended: one read at a time (S26.2). */
  oneAtATime<T>(work: () => Promise<T>): Promise<T>;
};

/** Fresh meters for one call. */
export function callMeters(): CallMeters {
  const meters = new Map<HandleSource, CostMeter>();
  const meterOf = (source: HandleSource) =>
    meters.get(source) ?? meters.set(source, new CostMeter(source.config.costLimit, undefined, true)).get(source)!;
  const share = () => Math.max(0, ...[...meters.values()].map((meter) => meter.spent / meter.limit));
  let last: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(work: () => Promise<T>): Promise<T> => {
    const run = last.then(work);
    last = run.catch(() => undefined);
    return run;
  };
  return Object.assign(meterOf, { share, oneAtATime });
}

/** What a store read decrypts and parses, charged to `meter` before it is done (S21.1). */
function chargeTo(meter: CostMeter): ReadCharge {
  return (kind, count) => meter.charge(kind, count);
}
