/**
 * One list's nodes into a nodelist page (S14.6): its batches pulled from the reader in order, each parsed
 * on its own and given to the item plan; a list of `workers.minBytes` or more is counted on the batch
 * workers first, and then only the batches holding nodes of the page are read here (`countInWorkers`).
 * The pager and the meter may be shared with other parts of the same answer (`descendantNodes`).
 */
import type { AnswerReader } from "../../records/read/answer-reader.js";
import { batchesToRead, countInWorkers, takeCounts } from "./worker-counts.js";
import type { CostMeter } from "../jsonpath/jsonpath.js";
import { admits, type ItemPlan } from "../jsonpath/item-plan.js";
import type { BatchWorkers } from "../workers/pool.js";
import type { NodeSink } from "./node-sink.js";
import type { AggregationState } from "../aggregate/aggregation.js";

/**
 * The nodes of `list` into `pager`: "read" when every batch was, "stopped" when the page was refused as too
 * large (nothing more to read). A piece that cannot be read throws the reader's `ReadFailed`.
 */
export async function listNodes(
  reader: AnswerReader,
  list: number,
  items: ItemPlan,
  /** The query as the item plan reads this list (for the workers), and as the caller asked it (for refusals). */
  query: { list: string; asked: string; at?: readonly (string | number)[] },
  pager: NodeSink,
  meter: CostMeter,
  workers?: BatchWorkers,
): Promise<"read" | "stopped"> {
  const { length } = reader.lists[list]!;
  const see = pager.seeGroups && ((state: AggregationState) => pager.seeGroups!(state));
  const counts = await countInWorkers(reader, list, items, query, workers, meter, pager.aggregate, see);
  const only = counts && batchesToRead(counts, pager);
  let counted = 0; // batches before this one are in `pager` and `meter`
  for await (const { batch, first, text, items: parsed } of reader.batches(list, { ...items.window(length), only })) {
    // Batches are charged by their nodes, not their bytes: the streamed, worker and whole-value evaluations
    // then refuse at exactly the same point (S14.6, S21.1). A batch not parsed may still hold a watched
    // name as a key: then it never gets the note (S18.2).
    if (text !== undefined && items.needles && !admits(items, text)) {
      meter.watch?.skipped(text);
      continue;
    }
    if (counts) takeCounts(counts, counted, batch, pager, meter);
    counted = batch + 1;
    for (const node of items.select(parsed(), first, length, meter, query.asked))
      if (!pager.add(node)) return "stopped";
  }
  // the rest in turns: an aggregate's job states are merged here, each up to AGGREGATE_LIMITS.groups groups (S21.4)
  if (counts)
    for (let batch = counted; batch < counts.nodes.length; batch++) {
      if (meter.shouldYield()) await meter.yieldToLoop();
      takeCounts(counts, batch, batch + 1, pager, meter);
    }
  if (counts) for (const state of counts.watches) meter.watch?.merge(state); // what the workers visited (S18.2)
  return "read";
}
