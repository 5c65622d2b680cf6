/**
 * Queries answered over lists read batch by batch (S14.6): the store hands a `StreamedAnswer` (selection
 * `{ stream }`, chosen by `selectorFor`), and the query walks each batch as it comes, keeping only the
 * page it returns. A nodelist takes its item plan (`itemPlanOf`); a search walks the parts outside
 * the lists and wide objects, and each list's items and each wide object's members where it stands, in
 * document order, so hits, `total` and pages are those of the whole answer. A batch whose JSON text
 * cannot hold a match is not even parsed.
 *
 * Resolves to "lost" when a piece is missing, expired or tampered (the handle reads as not found), and to
 * "unavailable" when the storage fails between two batches; anything else thrown is the query's own.
 */
import type { BatchedPart, BatchReading, StreamedAnswer } from "../../records/read/batch-source.js";
import { descendantNodes } from "./descendants-over-lists.js";
import { listNodes } from "./list-nodes.js";
import { CostMeter } from "../jsonpath/jsonpath.js";
import { NodelistPager } from "../paths/nodelist.js";
import { formatPath, resolveSegments } from "../paths/path.js";
import type { QueryArguments, QueryPlan } from "../paths/plan.js";
import { nodelistResult, type QueryResult } from "../query.js";
import { searchResult, searchWindow, type SearchConfig } from "../search/search-query.js";
import { Search, type StartNode } from "../search/search.js";
import { hitCounter, textMayHold } from "../search/text.js";
import type { BatchWorkers } from "../workers/pool.js";
import { describeSearched, plural } from "../refusals/notes.js";
import { Aggregation } from "../aggregate/aggregation.js";
import { tooDeepToAggregate, type NodelistPlan } from "../aggregate/aggregate.js";

export async function answerOverBatches(
  answer: StreamedAnswer,
  plan: QueryPlan,
  args: QueryArguments,
  config: SearchConfig,
  workers?: BatchWorkers,
  meter = new CostMeter(),
): Promise<QueryResult | Exclude<BatchReading, "read">> {
  if (args.search !== undefined) return searchOverBatches(answer, plan, args.search, args, config, meter);
  if (plan.kind !== "nodelist" || !plan.items)
    throw new Error("unreachable: a stream is selected only for an item plan");
  const { items } = plan;
  if (args.aggregate) return aggregateOverBatches(answer, plan, args, config.sliceLimitBytes, workers, meter);
  let reading: BatchReading = "read";
  const result = await nodelistResult(
    async () => {
      const pager = new NodelistPager(plan.path, args, config.sliceLimitBytes, plan.compiled.watch);
      meter.watch = pager.watch; // what each batch visits is told to the one watch (S18.2)
      try {
        const ended =
          answer.list !== undefined
            ? await listNodes(answer, answer.list, items, { list: plan.path, asked: plan.path }, pager, meter, workers)
            : await descendantNodes(answer, items, plan.path, pager, meter, workers); // `$..title` above the lists
        if (ended === "lost" || ended === "unavailable") reading = ended;
        return pager.page();
      } finally {
        meter.watch = undefined; // the watch is this evaluation's: nothing after it reports into it
      }
    },
    plan.path,
    config.sliceLimitBytes,
  );
  return reading === "read" ? result : reading;
}

/**
 * An aggregate over lists read batch by batch (S24.3): the nodes a filter would page through, taken by an
 * `Aggregation`; a list counted on the batch workers comes back as their states, and no batch is read
 * again here (an aggregate has no page of nodes).
 */
async function aggregateOverBatches(
  answer: StreamedAnswer,
  plan: NodelistPlan,
  args: QueryArguments,
  sliceLimitBytes: number,
  workers: BatchWorkers | undefined,
  meter: CostMeter,
): Promise<QueryResult | Exclude<BatchReading, "read">> {
  const items = plan.items!;
  const aggregation = new Aggregation(args.aggregate!, plan.path, plan.compiled.watch, meter);
  meter.watch = aggregation.watch; // what each batch visits is told to the one watch (S18.2)
  let ended: BatchReading | "stopped";
  try {
    ended =
      answer.list !== undefined
        ? await listNodes(
            answer,
            answer.list,
            items,
            { list: plan.path, asked: plan.path },
            aggregation,
            meter,
            workers,
          )
        : await descendantNodes(answer, items, plan.path, aggregation, meter, workers);
  } catch (error) {
    throw tooDeepToAggregate(plan.path, error);
  } finally {
    meter.watch = undefined;
  }
  if (ended === "lost" || ended === "unavailable") return ended;
  return aggregation.result(args, sliceLimitBytes);
}

/**
 * A search under a singular path: at a list or a wide object (its batches), or above them (the parts
 * outside them, each list and wide object where it stands).
 */
async function searchOverBatches(
  answer: StreamedAnswer,
  plan: QueryPlan,
  needle: string,
  args: QueryArguments,
  config: SearchConfig,
  meter: CostMeter,
): Promise<QueryResult | Exclude<BatchReading, "read">> {
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
  const walkPart = (part: BatchedPart, steps: readonly (string | number)[]) =>
    "list" in part
      ? answer.forEachBatch(part.list, { admit, visit: (first, items) => search.walkItems(items, first, steps) })
      : answer.forEachMemberBatch(part.object, {
          admit,
          visit: (members) => search.walkAll({ value: members, steps }),
        }); // a batch walks as the object would
  let start: StartNode;
  const one: BatchedPart | undefined =
    answer.list !== undefined
      ? { list: answer.list }
      : answer.object !== undefined
        ? { object: answer.object }
        : undefined;
  if (one) {
    start = {
      value: undefined,
      steps: "list" in one ? answer.lists[one.list]!.path : answer.objects[one.object]!.path,
    };
    const reading = await walkPart(one, start.steps);
    if (reading !== "read") return reading;
  } else {
    const at = resolveSegments(answer.root, plan.segments, plan.path);
    start = { value: at.value, steps: at.steps };
    // The path is above the parts (`selectorFor`), never at one: each is met where it stands.
    const walk = search.start(start, (container, key) => answer.partAt(container, key));
    for (let next = walk && search.run(walk, true); next; next = search.run(walk!, true)) {
      if (next === "yielded") {
        // held the thread long enough (S21.4): other calls first
        await meter.yieldToLoop();
        continue;
      }
      const reading = await walkPart(next.part, next.steps);
      if (reading !== "read") return reading;
    }
  }
  const searched = () => {
    if (one)
      return "list" in one
        ? plural(answer.lists[one.list]!.length, "a list of", "item")
        : plural(answer.objects[one.object]!.length, "an object of", "key");
    return describeSearched(start.value); // as a read of the whole describes it: the keys of the object at the path
  };
  return searchResult(search.hits, search.total, formatPath(start.steps), window.offset, config, { needle, searched });
}
