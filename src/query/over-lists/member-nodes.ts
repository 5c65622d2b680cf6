/**
 * One wide object's members into a nodelist page (S16.4, S26.1): a wildcard or a filter over an object
 * of more than WIDE_KEYS keys (`$[?count(@.k1) > 5]` over a million-key answer, `$.w[?@.x == 'a']`) takes
 * its member batches from the reader in order, each parsed on its own and given to the item plan, as
 * `listNodes` takes a list's item batches. The object was read whole first (1.7-1.9 s idle, 5 s under load,
 * the loop held 130-380 ms at a time, for an answer of one million keys); by batches it costs about one
 * parse of the object and holds the loop no longer than a batch. The batch workers count lists only.
 */
import type { AnswerReader } from "../../records/read/answer-reader.js";
import type { CostMeter } from "../jsonpath/jsonpath.js";
import { admits, type ItemPlan } from "../jsonpath/item-plan.js";
import type { NodeSink } from "./node-sink.js";

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
): Promise<"read" | "stopped"> {
  const select = items.selectMembers;
  if (!select) throw new Error("unreachable: a wide object is streamed only for a plan that selects members");
  for await (const { text, members } of reader.memberBatches(object)) {
    // A batch whose text lacks what the filter compares with selects nothing (its keys are in the text too,
    // which only reads more batches, never fewer).
    if (items.needles && !admits(items, text)) {
      meter.watch?.skipped(text);
      continue;
    }
    for (const node of select(members(), meter, path)) if (!pager.add(node)) return "stopped";
  }
  return "read";
}
