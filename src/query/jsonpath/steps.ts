/**
 * Where a JSONPath node is and what an evaluation has cost (S14.3): a node's place as a parent link (a node
 * 3000 levels deep costs one step, not a copy of its path), and the step budget every evaluation runs
 * against, so that `$..*..*` cannot make quadratic work.
 */
import { MAX_QUERY_STEPS } from "../../defaults.js";
import { ResultQueryError } from "../../errors.js";
import type { MemberWatch } from "../refusals/member-watch.js";

/** A node's place as a parent link: `concat` (the only thing json-p3 does with a location) is one step. */
export class Location {
  constructor(
    readonly parent: Location | undefined,
    readonly step: string | number,
    /** The value here, when the root's was given: a search over overlapping nodes looks up its ancestors (S14.4). */
    readonly value?: unknown,
  ) {}
  concat(step: string | number): Location {
    const container = this.value;
    return new Location(this, step, container !== null && typeof container === "object" ? (container as Record<string | number, unknown>)[step] : undefined);
  }
  /** The values of the containers above this place, nearest first. */
  *ancestors(): Generator<unknown> {
    for (let at = this.parent; at; at = at.parent) yield at.value;
  }
  /** Keys and indexes from the root, for the canonical path of a node that is returned. */
  steps(): (string | number)[] {
    const out: (string | number)[] = [];
    for (let at: Location | undefined = this; at?.parent; at = at.parent) out.push(at.step);
    return out.reverse();
  }
}

/** The nodes one evaluation has visited; an evaluation over a list read in batches (S14.6) keeps one across them. */
export class QueryBudget {
  work = 0;
  /** Where the evaluation tells which named members it found (S18.2). */
  watch?: MemberWatch;
}
/** The watch of the evaluation running now, if it has one. */
export function watching(): MemberWatch | undefined {
  return budget.watch;
}
/** The budget of the evaluation running now: each runs synchronously (a batch at a time), setting it first. */
let budget = new QueryBudget();
export function useBudget(within: QueryBudget): void {
  budget = within;
}
export function tick(): void {
  if (++budget.work > MAX_QUERY_STEPS) throw tooManySteps();
}
/** The refusal of a query past its budget of steps (S14.3). */
export function tooManySteps(): ResultQueryError {
  return new ResultQueryError(
    "INVALID_INPUT",
    `The query would visit more than ${MAX_QUERY_STEPS} nodes of this answer (nested descendants or wildcards multiply): narrow it, for example $.rows[?@.id == 5] instead of $..*..id.`,
  );
}
