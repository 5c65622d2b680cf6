/**
 * Filters as the cost meter sees them (S21.1, S21.2): each filter's expression is measured once, at
 * compile time (its nodes, how deeply they nest, the literal patterns of its `match` and `search`), and
 * refused before any work when it passes a static limit; then each evaluation for one item charges its
 * nodes to the call's meter. A 4000-character `||` chain or 2000 `!` over a million items cost 22 s
 * before; now they are refused in a millisecond, and a filter within the limits pays for its size.
 */
import {
  FilterExpression,
  FilterQuery,
  FunctionExtension,
  InfixExpression,
  LogicalExpression,
  RelativeQuery,
  StringLiteral,
} from "../json-p3-classes.js";
import { JSONPathNodeList, type JSONPathQuery } from "json-p3";
import { STATIC_LIMITS } from "../../defaults.js";
import { ResultQueryError } from "../../errors.js";
import { quoteArgument } from "../../util/quote-argument.js";
import { chargeExpressions } from "../cost.js";
import { checkPattern } from "./iregexp.js";

/**
 * What a query inside a filter costs per evaluation, in expression nodes (measured: it steps into the item and makes a
 * nodelist).
 */
const QUERY_NODES = 4;
/**
 * ... and a query from `@` that is not singular (`@.tags[?@ == 'x']`, `@..id`), per segment, beside the nodes
 * it visits: each run builds its segments' generators and a nodelist (S26.1: 1,000,000 runs of `@.x[?@ == 1]`,
 * which visit nothing, took 4-10 s under load charged 5 nodes each, and were answered past S21.5's 2 s).
 */
const RUN_NODES_PER_SEGMENT = 40;

interface Evaluates {
  evaluate(context: object): unknown;
}

/**
 * Measures the filter `selector` of query `path` (S21.2), refusing it past a limit (`before`: filter nodes
 * of the query counted so far), and makes each evaluation charge its nodes (S21.1). Returns its nodes.
 */
export function meterFilter(selector: object, path: string, before: number): number {
  const root = (selector as { expression: Evaluates }).expression;
  let nodes = 0;
  let work = 0; // what one evaluation costs, in expression nodes: a query inside (`@.a`, `$.x`) costs QUERY_NODES
  let deepest = 0;
  const pending: [object, number][] = [[root, 0]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    nodes++;
    deepest = Math.max(deepest, depth);
    if (node instanceof FilterQuery) {
      const query = (node as unknown as { path: JSONPathQuery }).path;
      // a query from the root runs once per answer, beforehand (`hoist`), or is singular
      const runs = node instanceof RelativeQuery && !query.singularQuery();
      work += QUERY_NODES + (runs ? RUN_NODES_PER_SEGMENT * query.segments.length : 0);
      continue; // a query inside: its own filters are measured where the compile walk meets them
    }
    work++;
    if (node instanceof InfixExpression) meterComparison(node);
    if (node instanceof FunctionExtension) {
      const { name, args } = node as unknown as { name: string; args: object[] };
      const pattern = args[1];
      if ((name === "match" || name === "search") && pattern instanceof StringLiteral)
        checkPattern((pattern as unknown as { value: string }).value, path);
    }
    const operator = (node as { operator?: unknown }).operator;
    for (const key of ["left", "right", "expression"] as const) {
      const child = (node as Record<string, unknown>)[key];
      // A chain of one operator (`a || b || c`) is flat however long: only its nodes count, not its depth.
      const flat =
        operator !== undefined &&
        operator !== "!" &&
        (child as { operator?: unknown } | undefined)?.operator === operator;
      if (child instanceof FilterExpression) pending.push([child, flat ? depth : depth + 1]);
    }
    const args = (node as { args?: unknown[] }).args;
    if (Array.isArray(args))
      for (const arg of args) if (arg instanceof FilterExpression) pending.push([arg, depth + 1]);
  }
  if (deepest > STATIC_LIMITS.filterNesting) {
    throw refused(
      path,
      `nests its filter ${deepest} levels deep, over the ${STATIC_LIMITS.filterNesting} a filter may`,
    );
  }
  if (before + nodes > STATIC_LIMITS.filterNodes) {
    throw refused(
      path,
      `has filters of ${before + nodes} expression nodes, over the ${STATIC_LIMITS.filterNodes} a query may have`,
    );
  }
  const evaluate = root.evaluate.bind(root);
  root.evaluate = (context) => {
    chargeExpressions(work);
    return evaluate(context);
  };
  return nodes;
}

function refused(path: string, why: string): ResultQueryError {
  return new ResultQueryError(
    "INVALID_INPUT",
    `Path ${quoteArgument(path)} ${why} (S21.2, checked before any work): ` +
      `use a shorter, flatter filter, such as $.rows[?@.status == 'open' && @.priority > 2].`,
  );
}

/** The comparisons that may compare two lists or objects member by member (json-p3's deep equality). */
const DEEP_COMPARISONS = new Set(["==", "!=", "<=", ">="]);
/**
 * Expression nodes charged per member two compared lists or objects may have to compare (about 40 ns each here):
 * `$.a[?$.r1 == $.r2]`, two equal lists of 50,000 rows, compared them whole for each item of `a`, 22 s uncharged.
 */
const COMPARED_MEMBER_NODES = 2;

/**
 * Makes a comparison (`==`, `!=`, `<=`, `>=`) charge, before it runs, the members it may compare when both of its
 * sides are lists or objects (S21.1): json-p3 compares them member by member, at most as many as the smaller has.
 * Its sides are watched as json-p3 evaluates them (the left first, then the right, then the comparison).
 */
function meterComparison(node: object): void {
  const infix = node as { operator: string; logical: boolean; left: object; right: object };
  if (infix.logical || !DEEP_COMPARISONS.has(infix.operator)) return;
  let left: unknown;
  watchEvaluation(infix.left, (value) => void (left = value));
  watchEvaluation(infix.right, (right) => {
    const a = valueOf(left);
    const b = valueOf(right);
    if (a !== null && typeof a === "object" && b !== null && typeof b === "object" && a !== b)
      chargeExpressions(COMPARED_MEMBER_NODES * Math.min(membersIn(a), membersIn(b)));
  });
}

/**
 * Calls `seen` with each value `expression` evaluates to. Its `evaluate` stays settable: a query from the root is
 * given another later (`hoist`, `bindRoots`), which the watch then calls.
 */
function watchEvaluation(expression: object, seen: (value: unknown) => void): void {
  let evaluate = (expression as Evaluates).evaluate;
  const watched = (context: object): unknown => {
    const value = evaluate.call(expression, context);
    seen(value);
    return value;
  };
  Object.defineProperty(expression, "evaluate", {
    configurable: true,
    get: () => watched,
    set: (replaced: Evaluates["evaluate"]) => void (evaluate = replaced),
  });
}

/** What a comparison compares of one side: the value of a nodelist's one node, as json-p3 takes it. */
const valueOf = (side: unknown): unknown =>
  side instanceof JSONPathNodeList && side.nodes.length === 1 ? side.nodes[0]!.value : side;

const counted = new WeakMap<object, number>();
/** How many lists, objects and members `value` holds, itself included (walked once a value: a bound root's is kept). */
function membersIn(value: object): number {
  const known = counted.get(value);
  if (known !== undefined) return known;
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    count++;
    if (item === null || typeof item !== "object") continue;
    if (Array.isArray(item)) for (let i = 0; i < item.length; i++) pending.push(item[i]);
    else for (const key in item) if (Object.hasOwn(item, key)) pending.push((item as Record<string, unknown>)[key]);
  }
  counted.set(value, count);
  return count;
}
