/**
 * A nodelist answer (S14.2): the nodes a non-singular JSONPath query selects, in the RFC's order, paged by
 * `offset`/`limit`/`page` (default 20), `fields` applied to each object node, the size rule of S7.6 on
 * the page's values. Only the page is kept: the rest of the nodes are counted for `total` and dropped.
 *
 * `path` in the result is the query as given (no single canonical path names a nodelist), cut like a
 * quoted argument (S7.10) so a long query is not echoed whole; each node's canonical path is in `paths`.
 */
import { DEFAULT_LIMITS } from "../defaults.js";
import { cutForMessage } from "../util/quote-argument.js";
import { jsonSize } from "../util/size.js";
import type { JsonPathNode } from "./jsonpath.js";
import { fieldPicker } from "./page.js";
import { checkFieldsFound } from "./refusals.js";
import { formatPath } from "./path.js";
import { sliceWindow, type QueryArguments } from "./plan.js";

/** A nodelist page (S14.2), or how many nodes fit when the page would pass the size limit (S7.6). */
export type NodelistPage =
  | { fits: true; result: { path: string; value: unknown[]; paths: string[]; total: number; offset: number; nextOffset?: number } }
  | { fits: false; fit: number; bytes: number; offset: number };

export function nodelistPage(nodes: Iterable<JsonPathNode>, query: string, args: QueryArguments, thresholdBytes: number): NodelistPage {
  const { offset, limit } = sliceWindow(args, DEFAULT_LIMITS.nodes);
  const pick = fieldPicker(args.fields);
  const path = cutForMessage(query);
  const value: unknown[] = [];
  const read: unknown[] = []; // the page's nodes before fields: a field naming no key of any says so (S14.5)
  const paths: string[] = [];
  let bytes = 2; // []
  let total = 0;
  for (const node of nodes) {
    if (total >= offset && total - offset < limit) {
      const kept = pick ? pick(node.value) : node.value;
      bytes += jsonSize(kept) + (value.length > 0 ? 1 : 0);
      // Stop at the first node past the limit (S16.1): a union naming one large node 2000 times costs one.
      if (bytes > thresholdBytes) {
        if (pick) checkFieldsFound(read, value, args.fields!, { path, offset });
        return { fits: false, fit: value.length, bytes, offset };
      }
      if (pick) read.push(node.value);
      value.push(kept);
      paths.push(formatPath(node.location()));
    }
    total++;
  }
  if (pick) checkFieldsFound(read, value, args.fields!, { path, offset });
  const result: Extract<NodelistPage, { fits: true }>["result"] = { path, value, paths, total, offset: Math.min(offset, total) };
  if (offset + value.length < total) result.nextOffset = offset + value.length;
  return { fits: true, result };
}
