/**
 * The `aggregate` argument of `result_query` (S24.1): what to count and figure over the nodes a query
 * selects. A member is a name relative to each node (`owner`) or a singular query from it (`@.owner`,
 * `@.customer.country`, `@.tags[0]`). The spec stays plain JSON: a batch worker gets it as it came and
 * reads its members itself (`memberSteps`).
 */
import { ResultQueryError } from "../../errors.js";
import { MAX_QUERY_CHARS } from "../../defaults.js";
import { isPlainObject } from "../../util/json.js";
import { cutForMessage } from "../../util/quote-argument.js";
import { compileJsonPath } from "../jsonpath/jsonpath.js";

/** What to figure: each member as given (S24.1). */
export interface AggregateSpec {
  readonly count?: true;
  readonly sum?: string;
  readonly min?: string;
  readonly max?: string;
  readonly avg?: string;
  readonly distinct?: string;
  readonly by?: string;
}

/** The figures that take numbers (S24.2). */
export const FIGURES = ["sum", "min", "max", "avg"] as const;
type Figure = (typeof FIGURES)[number];

const KEYS = ["count", "sum", "min", "max", "avg", "distinct", "by"] as const;

/** One step of a member: a key of an object, or an index of a list (negative from its end). */
type MemberStep = string | { index: number };

/**
 * Checks `aggregate` as it arrived (S7.6: every refusal INVALID_INPUT). A JSON text of an object is read as
 * that object, and `notes` says so (S18.4).
 */
export function parseAggregate(raw: unknown, notes: string[]): AggregateSpec {
  let given = raw;
  if (typeof raw === "string") {
    try {
      given = JSON.parse(raw);
    } catch {
      given = undefined;
    }
    if (!isPlainObject(given))
      throw invalid(
        `aggregate must be an object such as { "by": "owner" } or { "count": true, "avg": "priority" } ` +
          `(got the text ${cutForMessage(JSON.stringify(raw))})`,
      );
    notes.push(`aggregate ${cutForMessage(JSON.stringify(raw))} was read as the object it spells`);
  }
  if (!isPlainObject(given)) {
    throw invalid(
      `aggregate must be an object such as { "by": "owner" } or { "count": true, "avg": "priority" } ` +
        `(got ${given === null ? "null" : Array.isArray(given) ? "a list" : `a ${typeof given}`})`,
    );
  }
  const spec: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(given)) {
    if (!(KEYS as readonly string[]).includes(key))
      throw invalid(`aggregate takes ${KEYS.join(", ")}; ${cutForMessage(JSON.stringify(key))} is none of them`);
    if (key === "count") {
      if (value !== true && value !== false)
        throw invalid(`aggregate.count is true or left out (the count of nodes is always given)`);
      if (value) spec.count = true;
      continue;
    }
    if (typeof value !== "string")
      throw invalid(
        `aggregate.${key} names a member of each node, such as "priority" or "@.customer.country" ` +
          `(got ${value === null ? "null" : Array.isArray(value) ? "a list" : `a ${typeof value}`})`,
      );
    memberSteps(value, key); // refused here, before anything is read
    spec[key] = value;
  }
  if (spec.by !== undefined && spec.distinct !== undefined) {
    throw invalid(
      `give by or distinct, not both: { "by": ${JSON.stringify(spec.by)} } groups the nodes ` +
        `(with counts and figures), { "distinct": ${JSON.stringify(spec.distinct)} } ` +
        `lists the values of one member with their counts`,
    );
  }
  return spec as AggregateSpec;
}

/** The member to group on, when the answer has groups: `by`, or `distinct` (its values with their counts). */
export function groupMember(spec: AggregateSpec): string | undefined {
  return spec.by ?? spec.distinct;
}

/** The members figures are taken of, each once, in the order sum, min, max, avg name them. */
export function figureMembers(spec: AggregateSpec): string[] {
  const members: string[] = [];
  for (const figure of FIGURES) {
    const member = spec[figure];
    if (member !== undefined && !members.includes(member)) members.push(member);
  }
  return members;
}

/**
 * The steps of a member: a plain name is one key (`owner`, also `customer.country` if that is a key);
 * `@` starts a singular query relative to the node (RFC 9535 names and indexes only).
 */
export function memberSteps(member: string, argument = "member"): MemberStep[] {
  if (member === "")
    throw invalid(
      `aggregate.${argument} is empty: name a member of each node, such as "owner" or "@.customer.country"`,
    );
  if (member.length > MAX_QUERY_CHARS)
    throw invalid(`aggregate.${argument} is ${member.length} characters, over the ${MAX_QUERY_CHARS} a query may have`);
  if (member.startsWith("$")) {
    throw invalid(
      `aggregate.${argument} ${cutForMessage(JSON.stringify(member))} starts at the answer's root: ` +
        `a member is read from each node, as a name ("owner") or with @ ("@.customer.country")`,
    );
  }
  if (!member.startsWith("@")) return [member];
  let compiled;
  try {
    compiled = compileJsonPath(`$${member.slice(1)}`);
  } catch {
    compiled = undefined;
  }
  if (!compiled?.singular) {
    throw invalid(
      `aggregate.${argument} ${cutForMessage(JSON.stringify(member))} is not a member of each node: ` +
        `use a name ("owner") or a singular query of names and indexes ("@.customer.country", "@.tags[0]")`,
    );
  }
  return compiled.query.segments.map((segment) => {
    const selector = segment.selectors[0] as unknown as { name?: string; index?: number };
    return typeof selector.name === "string" ? selector.name : { index: selector.index! };
  });
}

/**
 * A reader of the member at `steps`: its value in a node, or `undefined` when the node has none. A single
 * name, the common case, is read without a loop (it runs once per node, S24.3).
 */
export function memberReader(steps: readonly MemberStep[]): (node: unknown) => unknown {
  const [first] = steps;
  if (steps.length === 1 && typeof first === "string") {
    return (node) =>
      typeof node === "object" && node !== null && !Array.isArray(node) && Object.hasOwn(node, first)
        ? (node as Record<string, unknown>)[first]
        : undefined;
  }
  return (node) => memberValue(node, steps);
}

/** The member's value in `node`, or `undefined` when the node has no such member. */
function memberValue(node: unknown, steps: readonly MemberStep[]): unknown {
  let value = node;
  for (const step of steps) {
    if (typeof step === "string") {
      if (!isPlainObject(value) || !Object.hasOwn(value, step)) return undefined;
      value = value[step];
    } else {
      if (!Array.isArray(value)) return undefined;
      const at = step.index < 0 ? value.length + step.index : step.index;
      if (at < 0 || at >= value.length) return undefined;
      value = value[at];
    }
  }
  return value;
}

function invalid(message: string): ResultQueryError {
  return new ResultQueryError("INVALID_INPUT", message);
}
