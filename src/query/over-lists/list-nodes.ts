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
  // an aggregate's batch-worker states of this list are merged into a part of their own as they come (S24.3)
  const part = pager.part?.();
  const counts = await countInWorkers(reader, { list }, items, query, workers, meter, part);
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
  if (counts) takeCounts(counts, counted, counts.nodes.length, pager, meter);
  // the workers' part in its place, taken whole or merged yielding (S21.4), once their cost is charged
  if (counts && part) await pager.mergePart!(part);
  if (counts) for (const state of counts.watches) meter.watch?.merge(state); // what the workers visited (S18.2)
  return "read";
}
