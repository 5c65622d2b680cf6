/**
 * One wide object's members into a nodelist page (S16.4, S26.1): a wildcard or a filter over an object
 * of more than WIDE_KEYS keys (`$[?count(@.k1) > 5]` over a million-key answer, `$.w[?@.x == 'a']`) takes
 * its member batches from the reader in order, each parsed on its own and given to the item plan, as
 * `listNodes` takes a list's item batches. The object was read whole first (1.7-1.9 s idle, 5 s under load,
 * the loop held 130-380 ms at a time, for an answer of one million keys); by batches on one thread it cost about
 * one parse of the object and its evaluation (1.1-2.1 s for a million keys). An object of `workers.minBytes` or
 * more is counted on the batch workers first, as a list is (`countInWorkers`): the calling thread then reads
 * only the batches holding nodes of the page.
 */
import type { AnswerReader } from "../../records/read/answer-reader.js";
import type { CostMeter } from "../jsonpath/jsonpath.js";
import { admits, type ItemPlan } from "../jsonpath/item-plan.js";
import type { BatchWorkers } from "../workers/pool.js";
import type { NodeSink } from "./node-sink.js";
import { batchesToRead, countInWorkers, takeCounts } from "./worker-counts.js";

/**
 * The nodes of wide object `object` into `pager`: "read" when every batch was, "stopped" when the page was
 * refused as too large. A piece that cannot be read throws the reader's `ReadFailed`.
 */
export async function memberNodes(
  reader: AnswerReader,
  object: number,
  items: ItemPlan,
  path: string,
  pager: NodeSink,
  meter: CostMeter,
  workers?: BatchWorkers,
  /** For descendants by name met at the object (`descendantNodes`): its steps, where the workers' plan stands. */
  at?: readonly (string | number)[],
): Promise<"read" | "stopped"> {
  const select = items.selectMembers;
  if (!select) throw new Error("unreachable: a wide object is streamed only for a plan that selects members");
  // an aggregate's batch-worker states are merged into a part of their own as they come (S24.3)
  const part = pager.part?.();
  const counts = await countInWorkers(reader, { object }, items, { list: path, at }, workers, meter, part);
  const only = counts && batchesToRead(counts, pager);
  let counted = 0; // batches before this one are in `pager` and `meter`
  for await (const { batch, text, members } of reader.memberBatches(object, { only })) {
    // A batch whose text lacks what the filter compares with selects nothing (its keys are in the text too,
    // which only reads more batches, never fewer).
    if (items.needles && !admits(items, text)) {
      meter.watch?.skipped(text);
      continue;
    }
    if (counts) takeCounts(counts, counted, batch, pager, meter);
    counted = batch + 1;
    for (const node of select(members(), meter, path)) if (!pager.add(node)) return "stopped";
  }
  if (counts) takeCounts(counts, counted, counts.nodes.length, pager, meter);
  if (counts && part) await pager.mergePart!(part); // the workers' part, once their cost is charged
  if (counts) for (const state of counts.watches) meter.watch?.merge(state); // what the workers visited (S18.2)
  return "read";
}
