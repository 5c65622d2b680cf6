/**
 * One list's nodes into a nodelist page (S14.6): its batches read in order, each parsed on its own and
 * given to the item plan; a list of `workers.minBytes` or more is counted on the batch workers first, and
 * then only the batches holding nodes of the page are read here (`countInWorkers`). The pager and the
 * step meter may be shared with other parts of the same answer (`descendantNodes`).
 */
import type { BatchReading, StreamedAnswer } from "../../records/read/batch-source.js";
import { batchesToRead, countInWorkers, takeCounts } from "./worker-counts.js";
import type { CostMeter } from "../jsonpath/jsonpath.js";
import { admits, type ItemPlan } from "../jsonpath/item-plan.js";
import type { JsonPathNode } from "../jsonpath/jsonpath.js";
import type { BatchWorkers } from "../workers/pool.js";
import type { NodeSink } from "./node-sink.js";

/**
 * How a list's reading ended: read, or the page refused as too large ("stopped": nothing more to read), or a piece not
 * read.
 */
export type ListReading = BatchReading | "stopped";

export async function listNodes(
  answer: StreamedAnswer,
  list: number,
  items: ItemPlan,
  /** The query as the item plan reads this list (for the workers), and as the caller asked it (for refusals). */
  query: { list: string; asked: string; at?: readonly (string | number)[] },
  pager: NodeSink,
  meter: CostMeter,
  workers?: BatchWorkers,
): Promise<ListReading> {
  const { length } = answer.lists[list]!;
  const counts = await countInWorkers(answer, list, items, query, workers, meter, pager.aggregate);
  if (typeof counts === "string") return counts;
  const read = counts && batchesToRead(counts, pager);
  let counted = 0; // batches before this one are in `pager` and `meter`
  let stopped = false;
  const reading = await answer.forEachBatch(list, {
    ...items.window(length),
    // Batches are charged by their nodes, not their bytes: the streamed, worker and whole-value evaluations
    // then refuse at exactly the same point (S14.6, S21.1). A batch not parsed may still hold a watched
    // name as a key: then it never gets the note (S18.2).
    admit: items.needles && ((text) => admits(items, text) || (meter.watch?.skipped(text), false)),
    wants: read && ((batch) => read.has(batch)),
    visit: (first, batch, number) => {
      if (counts) takeCounts(counts, counted, number, pager, meter);
      counted = number + 1;
      for (const node of items.select(batch, first, length, meter, query.asked))
        if (!pager.add(node)) return !(stopped = true);
    },
  });
  if (reading !== "read") return reading;
  if (stopped) return "stopped";
  if (counts) takeCounts(counts, counted, counts.nodes.length, pager, meter);
  if (counts) for (const state of counts.watches) meter.watch?.merge(state); // what the workers visited (S18.2)
  return "read";
}
