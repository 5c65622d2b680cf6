/**
 * What a filter reads of each query from the root inside it (S26.1). Such a query selects the same nodes for every
 * item (RFC 9535 2.3.5), and a filter only ever reads its nodelist in one of three ways: its length (`count()`),
 * whether it is empty (an existence test: `?$.x`, `!`, `&&`, `||`), or the value of its one node when it has
 * exactly one (a singular query compared or handed to `length()`, `match()`, `search()`; `value()` of any query).
 * So it can be read first, from the stored answer, reading only that (`readRootsFirst`), and the filter answered
 * from the summary (`bindRoots`).
 */
import {
  compiledParts,
  FilterSelector,
  FunctionExtension,
  InfixExpression,
  LogicalExpression,
  PrefixExpression,
  RelativeQuery,
  RootQuery,
  type Segment,
} from "../json-p3-classes.js";
import type { CompiledJsonPath } from "./jsonpath.js";

/** How much of a query's nodelist a filter reads. */
export interface RootNeed {
  /** Nodes past which nothing changes the answer: 1 for an existence test, 2 for one value, else every node. */
  readonly stopAt: number;
  /** Whether the value of its one node is read (a comparison, `value()`, `length()`, `match()`, `search()`). */
  readonly value: boolean;
}

const EXISTS: RootNeed = { stopAt: 1, value: false };
const COUNT: RootNeed = { stopAt: Infinity, value: false };
const VALUE: RootNeed = { stopAt: 2, value: true };

/** One query from the root inside a filter: its text (json-p3's own), what is read of it, its places in `roots`. */
export interface RootUse {
  readonly query: string;
  readonly need: RootNeed;
  /** Its places in `CompiledJsonPath.roots` (the same query written twice is read once). */
  readonly at: readonly number[];
}

/**
 * The queries from the root the filters of `compiled` evaluate (not those nested in one of them: a query from the
 * root inside the filter of another is the other's to read first), each with what is read of it; undefined when a
 * filter reads one in any other way (a function of the environment this file does not know).
 */
export function rootUses(compiled: CompiledJsonPath): RootUse[] | undefined {
  const uses = new Map<string, { need: RootNeed; at: number[] }>();
  let known = true;
  const expression = (node: unknown, need: RootNeed): void => {
    if (node instanceof RootQuery) {
      const at = compiled.roots.indexOf(node as never);
      const query = (node as unknown as { path: { toString(): string } }).path.toString();
      const use = uses.get(query);
      if (at < 0) known = false;
      else if (!use) uses.set(query, { need, at: [at] });
      else {
        use.at.push(at);
        use.need = { stopAt: Math.max(use.need.stopAt, need.stopAt), value: use.need.value || need.value };
      }
    } else if (node instanceof RelativeQuery) {
      // A query from the root inside the filter of a query from `@` is not read here: json-p3 runs it from the item
      // (`$` there is the item's value), and is held to that; it is left to the whole read (`outermost`).
    } else if (node instanceof LogicalExpression)
      expression((node as unknown as { expression: unknown }).expression, EXISTS);
    else if (node instanceof InfixExpression) {
      const { left, right, logical } = node as unknown as { left: unknown; right: unknown; logical: boolean };
      expression(left, logical ? EXISTS : VALUE);
      expression(right, logical ? EXISTS : VALUE);
    } else if (node instanceof FunctionExtension) {
      const { name, args } = node as unknown as { name: string; args: unknown[] };
      const need = name === "count" ? COUNT : ["value", "length", "match", "search"].includes(name) ? VALUE : undefined;
      if (!need) known = false;
      else for (const arg of args) expression(arg, need);
    } else if (node instanceof PrefixExpression) {
      expression((node as unknown as { right: unknown }).right, EXISTS); // `!`
    }
    // a literal reads nothing
  };
  const segments = (query: { segments: readonly Segment[] }) => {
    for (const segment of query.segments)
      for (const selector of segment.selectors)
        if (selector instanceof FilterSelector)
          expression((selector as unknown as { expression: unknown }).expression, EXISTS);
  };
  segments(compiled.query);
  // Every query from the root outside the others must be one of those found above: one inside an expression this
  // file does not know would go on reading the root unbound.
  if (!known || outermost(compiled.query) !== [...uses.values()].reduce((sum, { at }) => sum + at.length, 0))
    return undefined;
  return [...uses].map(([query, { need, at }]) => ({ query, need, at }));
}

/** How many queries from the root stand in `query` outside any other, found by walking every member of its tree. */
function outermost(query: object): number {
  let found = 0;
  for (const item of compiledParts(query, (item) => !(item instanceof RootQuery)))
    if (item instanceof RootQuery) found++;
  return found;
}
