/**
 * Queries answered over lists read batch by batch (S14.6): for a selection `{ stream }` (chosen by
 * `selectorFor`) the query pulls each batch from the answer's `AnswerReader` and walks it, keeping only
 * the page it returns. A nodelist takes its item plan (`itemPlanOf`); a search walks what lies outside
 * the lists and wide objects, and each list's items and each wide object's members where it stands, in
 * document order, so hits, `total` and pages are those of the whole answer. A batch whose JSON text
 * cannot hold a match is not even parsed.
 *
 * Resolves to "lost" when a piece is missing, expired or tampered (the handle reads as not found), and to
 * "unavailable" when the storage fails between two batches (the reader's `ReadFailed`); anything else thrown
 * is the query's own.
 */
import { ReadFailed, type AnswerReader, type BatchedPart } from "../../records/read/answer-reader.js";
import { descendantNodes } from "./descendants-over-lists.js";
import { listNodes } from "./list-nodes.js";
import { memberNodes } from "./member-nodes.js";
import { CostMeter } from "../jsonpath/jsonpath.js";
import { NodelistPager } from "../paths/nodelist.js";
import { formatPath, resolveSegments } from "../paths/path.js";
import type { QueryArguments, QueryPlan } from "../paths/plan.js";
import type { Selection } from "../paths/selection.js";
import { nodelistResult, type QueryResult } from "../query.js";
import { searchResult, searchWindow, type SearchConfig } from "../search/search-query.js";
import { Search, type StartNode } from "../search/search.js";
import { hitCounter, textMayHold } from "../search/text.js";
import type { BatchWorkers } from "../workers/pool.js";
import { describeSearched, plural } from "../refusals/notes.js";
import { Aggregation } from "../aggregate/aggregation.js";
import { tooDeepToAggregate, type NodelistPlan } from "../aggregate/aggregate.js";

/** The part a stream reads (`{ stream }`): one list, one wide object, or neither: each where it stands. */
interface Streamed {
  readonly list?: number;
  readonly object?: number;
}

/**
 * The answer of `plan` over the parts `stream` names, pulled batch by batch from `reader` (for
 * `{ stream: "all" }`, what lies outside its lists and wide objects read already: `reader.root`).
 */
export async function answerOverBatches(
  reader: AnswerReader,
  stream: Extract<Selection, { stream: unknown }>,
  plan: QueryPlan,
  args: QueryArguments,
  config: SearchConfig,
  workers?: BatchWorkers,
  meter = new CostMeter(),
): Promise<QueryResult | ReadFailed["reason"]> {
  const part: Streamed =
    typeof stream.stream === "number" ? { list: stream.stream } : "object" in stream ? { object: stream.object } : {};
  try {
    return await answerOver(reader, part, plan, args, config, workers, meter);
  } catch (error) {
    if (error instanceof ReadFailed) return error.reason;
    throw error;
  }
}

async function answerOver(
  reader: AnswerReader,
  part: Streamed,
  plan: QueryPlan,
  args: QueryArguments,
  config: SearchConfig,
  workers: BatchWorkers | undefined,
  meter: CostMeter,
): Promise<QueryResult> {
  if (args.search !== undefined) return searchOverBatches(reader, part, plan, args.search, args, config, meter);
  if (plan.kind !== "nodelist" || !plan.items)
    throw new Error("unreachable: a stream is selected only for an item plan");
  const { items } = plan;
  if (args.aggregate) return aggregateOverBatches(reader, part, plan, args, config.sliceLimitBytes, workers, meter);
  return nodelistResult(
    async () => {
      const pager = new NodelistPager(plan.path, args, config.sliceLimitBytes, plan.compiled.watch);
      meter.watch = pager.watch; // what each batch visits is told to the one watch (S18.2)
      try {
        if (part.list !== undefined)
          await listNodes(reader, part.list, items, { list: plan.path, asked: plan.path }, pager, meter, workers);
        else if (part.object !== undefined)
          await memberNodes(reader, part.object, items, plan.path, pager, meter, workers);
        else await descendantNodes(reader, items, plan.path, pager, meter, workers); // `$..title` above the lists
        return pager.page();
      } finally {
        meter.watch = undefined; // the watch is this evaluation's: nothing after it reports into it
      }
    },
    plan.path,
    config.sliceLimitBytes,
  );
}

/**
 * An aggregate over lists read batch by batch (S24.3): the nodes a filter would page through, taken by an
 * `Aggregation`; a list counted on the batch workers comes back as their states, and no batch is read
 * again here (an aggregate has no page of nodes).
 */
async function aggregateOverBatches(
  reader: AnswerReader,
  part: Streamed,
  plan: NodelistPlan,
  args: QueryArguments,
  sliceLimitBytes: number,
  workers: BatchWorkers | undefined,
  meter: CostMeter,
): Promise<QueryResult> {
  const items = plan.items!;
  const aggregation = new Aggregation(args.aggregate!, plan.path, plan.compiled.watch, meter);
  meter.watch = aggregation.watch; // what each batch visits is told to the one watch (S18.2)
  try {
    if (part.list !== undefined)
      await listNodes(reader, part.list, items, { list: plan.path, asked: plan.path }, aggregation, meter, workers);
    else if (part.object !== undefined)
      await memberNodes(reader, part.object, items, plan.path, aggregation, meter, workers);
    else await descendantNodes(reader, items, plan.path, aggregation, meter, workers);
  } catch (error) {
    throw tooDeepToAggregate(plan.path, error);
  } finally {
    meter.watch = undefined;
  }
  return aggregation.result(args, sliceLimitBytes);
}

/**
 * A search under a singular path: at a list or a wide object (its batches), or above them (the parts
 * outside them, each list and wide object where it stands).
 */
async function searchOverBatches(
  reader: AnswerReader,
  streamed: Streamed,
  plan: QueryPlan,
  needle: string,
  args: QueryArguments,
  config: SearchConfig,
  meter: CostMeter,
): Promise<QueryResult> {
  if (plan.kind !== "singular") throw new Error("unreachable: a search streams under a singular path only");
  const window = searchWindow(args, config);
  const search = new Search(needle, { ...window, meter });
  const mayHold = textMayHold(needle);
  const count = hitCounter(needle);
  // A batch whose text cannot hold the needle is skipped; one whose hits all fall off the page is counted
  // from its text; the rest are parsed and walked. A wide object's batch is text of keys and values alike,
  // and a key holding the needle is a hit as a string is, so the same rules hold for it.
  // Every batch read costs its decryption, one parsed its parse too (S21.1): the read charges them.
  const admit = mayHold && ((text: string) => mayHold(text) && !(count && search.countedFromText(text, count)));
  const walkPart = async (part: BatchedPart, steps: readonly (string | number)[]) => {
    if ("list" in part) {
      for await (const { first, text, items } of reader.batches(part.list))
        if (text === undefined || !admit || admit(text)) search.walkItems(items(), first, steps);
    } else {
      for await (const { text, members } of reader.memberBatches(part.object))
        if (!admit || admit(text)) search.walkAll({ value: members(), steps }); // a batch walks as the object would
    }
  };
  let start: StartNode;
  const one: BatchedPart | undefined =
    streamed.list !== undefined
      ? { list: streamed.list }
      : streamed.object !== undefined
        ? { object: streamed.object }
        : undefined;
  if (one) {
    start = {
      value: undefined,
      steps: "list" in one ? reader.lists[one.list]!.path : reader.objects[one.object]!.path,
    };
    await walkPart(one, start.steps);
  } else {
    const at = resolveSegments(reader.root, plan.segments, plan.path);
    start = { value: at.value, steps: at.steps };
    // The path is above the parts (`selectorFor`), never at one: each is met where it stands.
    const walk = search.start(start, (container, key) => reader.partAt(container, key));
    for (let next = walk && search.run(walk, true); next; next = search.run(walk!, true)) {
      if (next === "yielded") {
        // held the thread long enough (S21.4): other calls first
        await meter.yieldToLoop();
        continue;
      }
      await walkPart(next.part, next.steps);
    }
  }
  const searched = () => {
    if (one)
      return "list" in one
        ? plural(reader.lists[one.list]!.length, "a list of", "item")
        : plural(reader.objects[one.object]!.length, "an object of", "key");
    return describeSearched(start.value); // as a read of the whole describes it: the keys of the object at the path
  };
  return searchResult(search.hits, search.total, formatPath(start.steps), window.offset, config, { needle, searched });
}
