/**
 * No silent empties (S18.2): while a JSONPath query runs, the members it names (`@.priority` in a filter,
 * `.titel` after a wildcard, `..titel`) are watched at the nodes it visits: whether any had the name, and the
 * keys of a few that did not. A nodelist that selects nothing then says which names no visited node had,
 * where it looked, and the keys there, nearest first (S14.5). Recorded as the query runs, on whichever
 * thread and over whichever batches (S14.6): the note is built from what was visited, never by reading the
 * answer again. A name some visited node has never gets the note.
 */
import { JSONPathEnvironment, type JSONPathNode, type JSONPathQuery } from "json-p3";
import { hasOwn } from "../../util/json.js";
import { formatPath } from "../paths/canonical-path.js";
import { keysNearestFirst } from "./nearest-key.js";

const probe = new JSONPathEnvironment();
const ChildSegment = probe.compile("$.a").segments[0]!.constructor;
const NameSelector = probe.compile("$.a").segments[0]!.selectors[0]!.constructor;
const IndexSelector = probe.compile("$[0]").segments[0]!.selectors[0]!.constructor;
const DescendantSegment = probe.compile("$..a").segments[0]!.constructor;
const FilterSelector = probe.compile("$[?@]").segments[0]!.selectors[0]!.constructor;
const RelativeQuery = ((probe.compile("$[?@.a]").segments[0]!.selectors[0] as unknown as { expression: { expression: object } }).expression.expression).constructor;

type Segment = JSONPathQuery["segments"][number];

/** One name the query looks up, and the place it is looked up in, as the note will say it. */
interface Watched {
  readonly name: string;
  /** A filter's `@.name`: in the items (or members) of `where`; a name after other segments: in the values `where` selects; descendants: under `where`. */
  readonly kind: "filter" | "child" | "descendant";
  /** The query up to the step that looks the name up (S7.5 form where it is one path). */
  readonly where: string;
  /** Whether `where` is one path (no wildcard, filter or slice): then "$.meta has no …". */
  readonly singular: boolean;
  /** For `@.owner.name`: the names before this one, inside each item. */
  readonly inside: readonly string[];
  /**
   * Whether the name is looked up by the query's first step after its names (`$.rows[?@.x]`, `$.data..x`):
   * the step a list read batch by batch runs on every item, so a batch left unparsed still counts for it.
   */
  readonly first: boolean;
}

/** What a compiled query watches, and the hooks that report to the running evaluation's watch. */
export interface WatchPlan {
  readonly watched: readonly Watched[];
  /** Per step of each singular relative query in a filter (`@.a.b`): the watched entry, or -1 for an index. */
  readonly relative: ReadonlyMap<object, readonly number[]>;
  /** Per descendant segment of names: the entry of each name. */
  readonly descendants: ReadonlyMap<object, readonly number[]>;
}

/** Where an evaluation reports what it saw (jsonpath steps `watching`): a `MemberWatch`. */
export interface NodeWatch {
  saw(entry: number, object: object, has: boolean): void;
  inObject(entry: number): void;
}

/**
 * The names `query` looks up at its own level (filters nested in filters are not watched: a name there
 * never gets a note), with hooks installed on its name and filter selectors. `current` gives the watch of
 * the evaluation running now.
 */
export function planWatch(query: JSONPathQuery, current: () => NodeWatch | undefined): WatchPlan {
  const watched: Watched[] = [];
  const relative = new Map<object, number[]>();
  const descendants = new Map<object, number[]>();
  const segments = query.segments;
  let step = 0; // the first segment that is not one name
  while (step < segments.length && segments[step] instanceof ChildSegment && segments[step]!.selectors.length === 1 && segments[step]!.selectors[0] instanceof NameSelector) step++;
  for (let at = 0; at < segments.length; at++) {
    const segment = segments[at]!;
    const where = prefixText(segments.slice(0, at));
    const singular = segments.slice(0, at).every(isSingularStep);
    const first = at === step;
    if (segment instanceof DescendantSegment) {
      const names = segment.selectors.every((selector) => selector instanceof NameSelector) ? segment.selectors.map((selector) => (selector as unknown as { name: string }).name) : undefined;
      if (names) descendants.set(segment, names.map((name) => watched.push({ name, kind: "descendant", where, singular, inside: [], first }) - 1));
      continue;
    }
    for (const selector of segment.selectors) {
      if (selector instanceof NameSelector) {
        const entry = watched.push({ name: (selector as unknown as { name: string }).name, kind: "child", where, singular, inside: [], first }) - 1;
        hookName(selector as unknown as NameHook, entry, current);
      } else if (selector instanceof FilterSelector) {
        const entries: number[] = [];
        for (const inner of relativeQueries((selector as unknown as { expression: unknown }).expression)) {
          if (!inner.singularQuery()) continue;
          const inside: string[] = [];
          const ids = inner.segments.map((step) => {
            const name = (step.selectors[0] as unknown as { name?: string }).name;
            if (typeof name !== "string") return inside.push("[…]"), -1;
            const id = watched.push({ name, kind: "filter", where, singular, inside: [...inside], first }) - 1;
            inside.push(name);
            entries.push(id);
            return id;
          });
          relative.set(inner, ids);
        }
        if (entries.length > 0) hookFilter(selector as unknown as FilterHook, entries, current);
      }
    }
  }
  return { watched, relative, descendants };
}

interface NameHook {
  name: string;
  resolve(node: JSONPathNode): JSONPathNode[];
}

function hookName(selector: NameHook, entry: number, current: () => NodeWatch | undefined): void {
  const resolve = selector.resolve.bind(selector);
  selector.resolve = (node) => {
    const value = node.value as unknown;
    if (value !== null && typeof value === "object" && !Array.isArray(value)) current()?.saw(entry, value, hasOwn(value, selector.name));
    return resolve(node);
  };
}

interface FilterHook {
  resolve(node: JSONPathNode): JSONPathNode[];
}

/** A filter over an object's members says "member", not "item". */
function hookFilter(selector: FilterHook, entries: readonly number[], current: () => NodeWatch | undefined): void {
  const resolve = selector.resolve.bind(selector);
  selector.resolve = (node) => {
    const value = node.value as unknown;
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      const watch = current();
      if (watch) for (const entry of entries) watch.inObject(entry);
    }
    return resolve(node);
  };
}

/** `@…` queries of a filter expression, not those inside a nested query's own filters. */
function relativeQueries(expression: unknown): JSONPathQuery[] {
  const found: JSONPathQuery[] = [];
  const pending: unknown[] = [expression];
  const seen = new Set<object>();
  while (pending.length > 0) {
    const item = pending.pop();
    if (item === null || typeof item !== "object" || seen.has(item)) continue;
    seen.add(item);
    if (item instanceof RelativeQuery) {
      found.push((item as unknown as { path: JSONPathQuery }).path);
      continue;
    }
    if ("segments" in item) continue; // a query of its own (`$.x` inside the filter)
    for (const [key, child] of Object.entries(item)) if (key !== "environment" && key !== "token") pending.push(child);
  }
  return found;
}

function isSingularStep(segment: Segment): boolean {
  return segment instanceof ChildSegment && segment.selectors.length === 1 && (segment.selectors[0] instanceof NameSelector || segment.selectors[0] instanceof IndexSelector);
}

/** The query's first segments as text: names and indexes in the S7.5 form, other segments as json-p3 writes them. */
function prefixText(segments: readonly Segment[]): string {
  let text = "$";
  for (const segment of segments) {
    const selector = segment.selectors[0] as unknown as { name?: string; index?: number };
    if (isSingularStep(segment)) text += formatPath([typeof selector.name === "string" ? selector.name : selector.index!]).slice(1);
    else text += segment.toString();
  }
  return text;
}

// ---- the watch of one evaluation ----

/** Objects whose keys are kept per name, and keys kept: the note names at most 20 of them. */
const SAMPLED_OBJECTS = 64;
const SAMPLED_KEYS = 1000;

/** What a watch saw, as plain data: a batch worker sends it back with its counts (S14.6). */
export interface WatchState {
  readonly found: readonly boolean[];
  readonly tested: readonly number[];
  readonly keys: readonly (readonly string[])[];
  readonly objects: readonly boolean[];
}

export class MemberWatch implements NodeWatch {
  private readonly found: boolean[];
  private readonly tested: number[];
  private readonly keys: Set<string>[];
  private readonly objects: boolean[];
  /** `"name":` as JSON writes a key, per entry: a batch not parsed is searched for it (`skipped`). */
  private readonly keyTexts: string[];

  constructor(readonly plan: WatchPlan) {
    const n = plan.watched.length;
    this.found = new Array<boolean>(n).fill(false);
    this.tested = new Array<number>(n).fill(0);
    this.keys = Array.from({ length: n }, () => new Set<string>());
    this.objects = new Array<boolean>(n).fill(false);
    this.keyTexts = plan.watched.map(({ name }) => `${JSON.stringify(name)}:`);
  }

  saw(entry: number, object: object, has: boolean): void {
    if (entry < 0 || this.found[entry]) return;
    if (has) {
      this.found[entry] = true;
      return;
    }
    if (++this.tested[entry]! > SAMPLED_OBJECTS) return;
    const keys = this.keys[entry]!;
    for (const key of Object.keys(object)) {
      if (keys.size >= SAMPLED_KEYS) break;
      keys.add(key);
    }
  }

  inObject(entry: number): void {
    this.objects[entry] = true;
  }

  /**
   * A batch left unparsed because its text cannot hold a node (S14.6): a name written there as a key may be
   * a visited node's, so it never gets the note (a name this marks found may be deeper: no note is the safe
   * side). Otherwise its objects count as the evaluation would have tested them, their keys read from the
   * text: every object for descendants, the items for a filter's `@.name`, so the note is the one a whole
   * read gives.
   */
  skipped(text: string): void {
    for (let entry = 0; entry < this.found.length; entry++) {
      const { kind, inside, first } = this.plan.watched[entry]!;
      // Later steps look names up only in the nodes the first selects, and an unparsed batch has none.
      if (this.found[entry] || !first) continue;
      if (text.includes(this.keyTexts[entry]!)) this.found[entry] = true;
      else {
        if (kind === "descendant") this.keysOfText(entry, text, undefined);
        else if (kind === "filter" && inside.length === 0) this.keysOfText(entry, text, 1);
      }
    }
  }

  /** Objects of a JSON text (items joined by commas) counted as tested, and their keys sampled; `depth` 1: the items only. */
  private keysOfText(entry: number, text: string, depth: number | undefined): void {
    const keys = this.keys[entry]!;
    const open: number[] = []; // the ordinal of each object open here, as `tested` counts them
    for (let at = 0; at < text.length; at++) {
      const char = text.charCodeAt(at);
      if (char === 0x22) {
        const start = at;
        for (at++; at < text.length && text.charCodeAt(at) !== 0x22; at++) if (text.charCodeAt(at) === 0x5c) at++;
        const owner = open[open.length - 1];
        if (text.charCodeAt(at + 1) === 0x3a && owner !== undefined && owner <= SAMPLED_OBJECTS && keys.size < SAMPLED_KEYS && (depth === undefined || open.length === depth)) {
          keys.add(JSON.parse(text.slice(start, at + 1)) as string);
        }
      } else if (char === 0x7b) {
        open.push(depth === undefined || open.length < depth ? ++this.tested[entry]! : Infinity);
      } else if (char === 0x7d) {
        open.pop();
        if (this.tested[entry]! >= SAMPLED_OBJECTS && (open.length === 0 || open[0]! > SAMPLED_OBJECTS) && depth === undefined) {
          // No object still open is sampled: the rest only counts objects (a cheap count of braces outside strings).
          this.tested[entry]! += countObjects(text, at + 1);
          return;
        }
      }
    }
  }

  state(): WatchState {
    return { found: [...this.found], tested: [...this.tested], keys: this.keys.map((keys) => [...keys]), objects: [...this.objects] };
  }

  merge(state: WatchState): void {
    if (state.found.length !== this.found.length) return; // not this query's: nothing to learn from it
    for (let entry = 0; entry < this.found.length; entry++) {
      this.found[entry] ||= state.found[entry]!;
      this.tested[entry]! += state.tested[entry]!;
      this.objects[entry] ||= state.objects[entry]!;
      const keys = this.keys[entry]!;
      for (const key of state.keys[entry]!) if (keys.size < SAMPLED_KEYS) keys.add(key);
    }
  }

  /** The note of a nodelist that selected nothing: every watched name no visited node had, or undefined. */
  note(): string | undefined {
    const parts = new Set<string>();
    this.plan.watched.forEach((watched, entry) => {
      if (this.found[entry] || this.tested[entry] === 0) return;
      // Descendants meet keys in another order batch by batch than in one walk: sorted, the note is the same.
      const keys = watched.kind === "descendant" ? [...this.keys[entry]!].sort() : [...this.keys[entry]!];
      parts.add(describe(watched, this.objects[entry]!, keysNearestFirst(keys, watched.name)));
    });
    return parts.size > 0 ? [...parts].join("; ") : undefined;
  }
}

/** Objects (`{` outside strings) in a JSON text from `from`. */
function countObjects(text: string, from: number): number {
  let count = 0;
  for (let at = from; at < text.length; at++) {
    const char = text.charCodeAt(at);
    if (char === 0x22) {
      for (at++; at < text.length && text.charCodeAt(at) !== 0x22; at++) if (text.charCodeAt(at) === 0x5c) at++;
    } else if (char === 0x7b) count++;
  }
  return count;
}

/** At most this many keys are named, nearest the missing name first (S14.5). */
const NOTE_KEYS = 20;

function describe(watched: Watched, inObjects: boolean, keys: readonly string[]): string {
  const name = JSON.stringify(watched.name);
  const listed = keys.length === 0 ? "no keys" : keys.slice(0, NOTE_KEYS).join(", ") + (keys.length > NOTE_KEYS ? ` and ${keys.length - NOTE_KEYS} more` : "");
  const { where } = watched;
  if (watched.kind === "filter") {
    const item = inObjects ? "member" : "item";
    if (watched.inside.length === 0) return `no ${item} of ${where} has ${name}; its ${item}s have ${listed}`;
    const inside = `@${formatPath(watched.inside).slice(1)}`;
    return `no ${item} of ${where} has ${name} in ${inside}; ${inside} there has ${listed}`;
  }
  if (watched.kind === "descendant") return `no object under ${where} has ${name}; the keys there are ${listed}`;
  if (watched.singular) return `${where} has no ${name}; its keys are ${listed}`;
  return `no value ${where} selects has ${name}; they have ${listed}`;
}
