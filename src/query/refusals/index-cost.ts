/**
 * A descendant wildcard refused from the answer's index (S26.1, S21.1): `$..*` or `$.w..*` over an answer holding a
 * wide object (or a list) whose count the index already knows visits every member and selects it, so its cost is known
 * before anything is read. When what the index counts is already past what the call may spend, the call is refused
 * at once, naming that count and a call that works over the largest part: a window of it, or a filter. Read whole
 * first, a million-key object was refused by the meter after 2-5 s (or, for `$..*`, as a page too large once its
 * first node was measured: 2.05 s), having parsed 28 MB and built the object for nothing.
 *
 * The bound is what the whole evaluation surely charges (`descend` and `selectFrom`): each value under the start is
 * visited (one node), each member or item of a part is selected by the wildcard (one node more, and one more again
 * when nothing follows the segment, as it is handed out), and a whole read decrypts every piece and parses its text.
 */
import { ResultQueryError } from "../../errors.js";
import { COST_WEIGHTS } from "../../defaults.js";
import type { AnswerReader } from "../../records/read/answer-reader.js";
import { DescendantSegment, leadingNames, namesBefore, WildcardSelector } from "../json-p3-classes.js";
import type { CostMeter } from "../cost.js";
import type { QueryArguments, QueryPlan } from "../paths/plan.js";
import { formatPath } from "../canonical-path.js";

/** Throws the refusal when `plan`, read whole from `reader`, surely costs more than `meter` has left. */
export function refuseOverIndex(
  plan: QueryPlan,
  args: Pick<QueryArguments, "search" | "aggregate">,
  reader: AnswerReader,
  meter: CostMeter,
): void {
  if (plan.kind !== "nodelist" || args.search !== undefined || args.aggregate) return;
  const segments = plan.compiled.query.segments;
  const at = leadingNames(segments);
  const step = segments[at];
  if (!(step instanceof DescendantSegment) || !step.selectors.some((each) => each instanceof WildcardSelector)) return;
  const names = namesBefore(segments, at);
  const below = (path: readonly string[]) => names.every((name, i) => path[i] === name);
  const parts = [
    ...reader.lists.map(({ path, length }) => ({ path, length, kind: "items" })),
    ...reader.objects.map(({ path, length }) => ({ path, length, kind: "members" })),
  ].filter(({ path }) => below(path));
  if (parts.length === 0) return;
  const values = parts.reduce((sum, { length }) => sum + length, 0);
  const nodes = values * (at + 1 === segments.length ? 3 : 2);
  const read = reader.wholeRead();
  const units =
    nodes * COST_WEIGHTS.nodes +
    (read ? read.decrypted * COST_WEIGHTS.decrypted + read.parsed * COST_WEIGHTS.parsed : 0);
  if (units <= meter.left) return;
  const largest = parts.reduce((most, each) => (each.length > most.length ? each : most));
  const where = formatPath(largest.path);
  const { kind } = largest;
  const counted =
    parts.length === 1
      ? `${largest.length} ${kind} at ${where}`
      : `${values} members and items in ${parts.length} parts (the most, ${largest.length}, at ${where})`;
  throw new ResultQueryError(
    "INVALID_INPUT",
    `The query would visit at least ${nodes} nodes of this answer: its index counts ${counted}, each visited and ` +
      `selected${read ? `, and reading it whole decrypts ${read.decrypted} bytes and parses them` : ""}, ` +
      `at least ${units} units of cost, over the ${meter.left} the call may spend (costLimit); ` +
      `only its index was read. ` +
      `Read a window of them instead, such as path ${where} with offset and limit (${kind} in order, any offset ` +
      `answered at once), or a filter such as ${where}[?@ == 5] or ${where}[?@.id == 5].`,
  );
}
