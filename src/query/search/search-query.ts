/**
 * A `result_query` call with `search` (S14.4): the hits under a singular path, or under every node a
 * JSONPath query selects, paged like a nodelist (S14.2), with the size rule of S7.6 applied to the page.
 */
import { ResultQueryError } from "../../errors.js";
import { cutForMessage } from "../../util/quote-argument.js";
import { fittingItems, jsonSize } from "../../util/size.js";
import { DEFAULT_LIMITS } from "../../defaults.js";
import { sliceAllowances } from "../../config.js";
import { evaluateYielding, type Evaluation } from "../paths/evaluate.js";
import { formatPath } from "../paths/path.js";
import { sliceWindow, type QueryArguments, type QueryPlan } from "../paths/plan.js";
import type { QueryResult } from "../query.js";
import { Search, type SearchHit, type SearchOptions, type StartNode } from "./search.js";
import type { CostMeter } from "../cost.js";
import { describeSearched, searchedNothing } from "../refusals/notes.js";

/** What of the plugin instance that folded the handle a search needs: its slice limit and preview length. */
export interface SearchConfig {
  readonly sliceLimitBytes: number;
  readonly preview: { readonly chars: number };
}

/**
 * A search under `plan`'s path (S14.4) over an answer held whole, as a tool call runs it: the evaluation
 * and the walk yield as they go (S21.4, `searchHitsYielding`).
 */
export async function searchQueryYielding(
  answer: unknown,
  plan: QueryPlan,
  args: QueryArguments & { search: string },
  config: SearchConfig,
  meter: CostMeter,
): Promise<QueryResult> {
  const search = prepared(await evaluateYielding(answer, plan, meter), plan, args, config, meter);
  return search.answer(await searchHitsYielding(search.starts, args.search, { ...search.options, meter }));
}

/** The start nodes of a search (what its path selects), its options, and how its hits become the answer. */
function prepared(
  evaluation: Evaluation,
  plan: QueryPlan,
  args: QueryArguments & { search: string },
  config: SearchConfig,
  meter: CostMeter | undefined,
) {
  const starts = evaluation.singular ? [{ value: evaluation.value, steps: evaluation.steps }] : evaluation.nodes;
  const path = evaluation.singular ? formatPath(evaluation.steps) : cutForMessage(plan.path);
  const window = searchWindow(args, config);
  // Nodes of a nodelist may overlap (`$..*`, unions): each place is searched once.
  const options: SearchOptions = { ...window, overlapping: !evaluation.singular, meter };
  const searched = () =>
    evaluation.singular ? describeSearched(evaluation.value) : `the ${starts.length} nodes it selects`;
  const answerWith = ({ hits, total }: { hits: SearchHit[]; total: number }) =>
    searchResult(hits, total, path, window.offset, config, { needle: args.search, searched });
  return { starts, options, answer: answerWith };
}

/** The page a search answers (S14.4): its window of hits, and the length of a hit's text. */
export function searchWindow(
  args: QueryArguments,
  config: SearchConfig,
): { offset: number; limit: number; previewChars: number } {
  const { offset, limit } = sliceWindow(args, DEFAULT_LIMITS.items);
  // A hit's text is at most 2 × preview.chars (S14.4), and never so long that one hit alone is over the
  // slice limit (`hitChars`).
  const previewChars = Math.min(config.preview.chars, sliceAllowances(config.sliceLimitBytes).hitChars);
  return { offset, limit, previewChars };
}

/** The page of hits as an answer, or its refusal when over the slice limit (S7.6). */
export function searchResult(
  hits: SearchHit[],
  total: number,
  path: string,
  offset: number,
  config: SearchConfig,
  empty?: { needle: string; searched: () => string },
): QueryResult {
  const bytes = jsonSize(hits);
  if (bytes > config.sliceLimitBytes) {
    const fit = fittingItems(hits, config.sliceLimitBytes);
    throw new ResultQueryError(
      "RESULT_SLICE_TOO_LARGE",
      `The ${hits.length} hits from offset ${offset} under ${cutForMessage(path)} are ${bytes} bytes, ` +
        `over the ${config.sliceLimitBytes}-byte limit. ` +
        (fit > 0
          ? `At most ${fit} hits fit: call result_query again with limit ${fit}.`
          : `Not even one hit fits (its path is long): search under a deeper path.`),
    );
  }
  const start = Math.min(offset, total);
  const result: QueryResult = { path, value: hits, total, offset: start };
  if (start + hits.length < total) result.nextOffset = start + hits.length;
  if (total === 0 && empty) result.note = searchedNothing(empty.needle, path, empty.searched()); // S18.2
  return result;
}

/** The hits of the page `offset … offset+limit-1`, and how many hits there are in all. */
/**
 * The hits of `needle` under `nodes` (S14.4), in order, a page of them and their total, as a tool call finds them
 * (S21.4): the walk stops when the call has held the thread for YIELD_AFTER_MS, inside a long string too (a string
 * of a million matching lines), and goes on after it yielded.
 */
export async function searchHitsYielding(
  nodes: readonly StartNode[],
  needle: string,
  options: SearchOptions & { meter: CostMeter },
): Promise<{ hits: SearchHit[]; total: number }> {
  const search = new Search(needle, options);
  for (const node of nodes) {
    if (search.covered(node)) continue;
    const walk = search.start(node);
    while (walk && search.run(walk, true) === "yielded") await options.meter.yieldToLoop();
  }
  return { hits: search.hits, total: search.total };
}
