/**
 * No silent empties (S18.2), the watch: what one evaluation saw of the names its query looks up (the plan
 * of `planWatch`), merged across batches and from batch workers, and the note of a nodelist that selected
 * nothing. A name some visited node has never gets the note.
 */
import { formatPath } from "../canonical-path.js";
import { keysNearestFirst } from "./nearest-key.js";
import { keyListOf } from "../../util/json.js";
import type { Comparison, NodeWatch, Watched, WatchPlan } from "./watch-plan.js";

export type { NodeWatch, WatchPlan } from "./watch-plan.js";
export { planWatch } from "./watch-plan.js";

/** Objects whose keys are kept per name, and keys kept: the note names at most 20 of them. */
const SAMPLED_OBJECTS = 64;
export const SAMPLED_KEYS = 1000;

/** What a watch saw, as plain data: a batch worker sends it back with its counts (S14.6). */
export interface WatchState {
  readonly found: readonly boolean[];
  readonly tested: readonly number[];
  readonly keys: readonly (readonly string[])[];
  readonly objects: readonly boolean[];
  /** Per entry, the compared member's values and how often each was seen (S25.1). */
  readonly values: readonly (readonly [Counted, number][])[];
}

/** Distinct values counted per compared member (S25.1); the note names the 10 most common. */
const COUNTED_VALUES = 1000;
const NOTE_VALUES = 10;

export class MemberWatch implements NodeWatch {
  private readonly found: boolean[];
  private readonly tested: number[];
  private readonly keys: Set<string>[];
  private readonly objects: boolean[];
  /** `"name":` as JSON writes a key, per entry: a batch not parsed is searched for it (`skipped`). */
  private readonly keyTexts: string[];
  /** Per compared entry, its member's values and their counts (S25.1): a Map tells 1 from "1" by itself. */
  private readonly values: Map<Counted, number>[];
  /** Per entry, whether a filter compares it with a literal: only those values are counted. */
  private readonly compared: boolean[];

  constructor(readonly plan: WatchPlan) {
    const n = plan.watched.length;
    this.values = Array.from({ length: n }, () => new Map<Counted, number>());
    this.compared = plan.watched.map((watched) => watched.compared !== undefined);
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
    for (const key of keyListOf(object)) {
      if (keys.size >= SAMPLED_KEYS) break;
      keys.add(key);
    }
  }

  inObject(entry: number): void {
    this.objects[entry] = true;
  }

  valueOf(entry: number, value: unknown): void {
    if (!this.compared[entry]) return;
    if (value !== null && typeof value === "object") this.count(entry, Array.isArray(value) ? LIST : OBJECT);
    else this.count(entry, typeof value === "string" ? shortString(value) : (value as Counted));
  }

  private count(entry: number, value: Counted, times = 1): void {
    const values = this.values[entry]!;
    const had = values.get(value);
    if (had !== undefined) values.set(value, had + times);
    else if (values.size < COUNTED_VALUES) values.set(value, times);
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
      if (!first) continue;
      // S25.1: a compared member's values are read from the text of a batch left unparsed, as it would
      // have been evaluated: the items' own members (an unparsed batch is one where the literal never stands).
      const { compared } = this.plan.watched[entry]!;
      if (compared && kind === "filter" && inside.length === 0) this.valuesOfText(entry, text);
      if (this.found[entry]) continue;
      if (text.includes(this.keyTexts[entry]!)) this.found[entry] = true;
      else {
        if (kind === "descendant") this.keysOfText(entry, text, undefined);
        else if (kind === "filter" && inside.length === 0) this.keysOfText(entry, text, 1);
      }
    }
  }

  /**
   * Objects of a JSON text (items joined by commas) counted as tested, and their keys sampled; `depth` 1: the items
   * only.
   */
  private keysOfText(entry: number, text: string, depth: number | undefined): void {
    const keys = this.keys[entry]!;
    const open: number[] = []; // the ordinal of each object open here, as `tested` counts them
    for (let at = 0; at < text.length; at++) {
      const char = text.charCodeAt(at);
      if (char === 0x22) {
        const start = at;
        at = closingQuote(text, at);
        const owner = open[open.length - 1];
        if (
          text.charCodeAt(at + 1) === 0x3a &&
          owner !== undefined &&
          owner <= SAMPLED_OBJECTS &&
          keys.size < SAMPLED_KEYS &&
          (depth === undefined || open.length === depth)
        ) {
          keys.add(stringAt(text, start, at));
        }
      } else if (char === 0x7b) {
        open.push(depth === undefined || open.length < depth ? ++this.tested[entry]! : Infinity);
      } else if (char === 0x7d) {
        open.pop();
        if (
          this.tested[entry]! >= SAMPLED_OBJECTS &&
          (open.length === 0 || open[0]! > SAMPLED_OBJECTS) &&
          depth === undefined
        ) {
          // No object still open is sampled: the rest only counts objects (a cheap count of braces outside strings).
          this.tested[entry]! += countObjects(text, at + 1);
          return;
        }
      }
    }
  }

  /** The values of the entry's member in the items (depth 1) of a JSON text of items joined by commas. */
  private valuesOfText(entry: number, text: string): void {
    const name = this.plan.watched[entry]!.name;
    let depth = 0;
    for (let at = 0; at < text.length; at++) {
      const char = text.charCodeAt(at);
      if (char === 0x22) {
        const start = at;
        at = closingQuote(text, at);
        if (depth !== 1 || text.charCodeAt(at + 1) !== 0x3a || stringAt(text, start, at) !== name) continue;
        const value = valueTokenAt(text, at + 2);
        if (value !== undefined) this.count(entry, value);
      } else if (char === 0x7b || char === 0x5b) depth++;
      else if (char === 0x7d || char === 0x5d) depth--;
    }
  }

  state(): WatchState {
    return {
      found: [...this.found],
      tested: [...this.tested],
      keys: this.keys.map((keys) => [...keys]),
      objects: [...this.objects],
      values: this.values.map((values) => [...values]),
    };
  }

  merge(state: WatchState): void {
    if (state.found.length !== this.found.length) return; // not this query's: nothing to learn from it
    for (let entry = 0; entry < this.found.length; entry++) {
      this.found[entry] ||= state.found[entry]!;
      this.tested[entry]! += state.tested[entry]!;
      this.objects[entry] ||= state.objects[entry]!;
      const keys = this.keys[entry]!;
      for (const key of state.keys[entry]!) if (keys.size < SAMPLED_KEYS) keys.add(key);
      for (const [value, times] of state.values?.[entry] ?? []) this.count(entry, value, times);
    }
  }

  /** The note of a nodelist that selected nothing: every watched name no visited node had, or undefined. */
  note(): string | undefined {
    const parts = new Set<string>();
    this.plan.watched.forEach((watched, entry) => {
      const mismatch =
        watched.compared && this.found[entry]
          ? mismatchNote(watched, watched.compared, [...this.values[entry]!])
          : undefined;
      if (mismatch) parts.add(mismatch);
      if (this.found[entry] || this.tested[entry] === 0) return;
      // Descendants meet keys in another order batch by batch than in one walk: sorted, the note is the same.
      const keys = watched.kind === "descendant" ? [...this.keys[entry]!].sort() : [...this.keys[entry]!];
      parts.add(describe(watched, this.objects[entry]!, keysNearestFirst(keys, watched.name)));
    });
    return parts.size > 0 ? [...parts].join("; ") : undefined;
  }
}

/**
 * S25.1: a comparison that selected nothing because the member's values are of another type than the
 * literal (`@.priority == '1'` where priorities are numbers), or equal it only in another case
 * (`@.status == 'Open'` where it is "open"): the values seen, most common first.
 */
function mismatchNote(watched: Watched, compared: Comparison, counted: [Counted, number][]): string | undefined {
  const shownAs = (value: Counted) => (value === LIST ? "[…]" : value === OBJECT ? "{…}" : JSON.stringify(value));
  const values = counted
    .map(([value, times]) => [shownAs(value), times, value] as const)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  if (values.length === 0) return undefined;
  const literal = compared.literal;
  const typeOf = (value: Counted) => (value === LIST ? "list" : value === OBJECT ? "object" : kindOf(value));
  const sameType = values.some(([, , value]) => typeOf(value) === kindOf(literal));
  const folded = typeof literal === "string" ? literal.toLowerCase() : undefined;
  const otherCase =
    folded !== undefined &&
    compared.operator === "==" &&
    values.find(
      ([, , value]) => typeOf(value) === "string" && (value as string).toLowerCase() === folded && value !== literal,
    );
  if (sameType && !otherCase) return undefined;
  const member = `@${formatPath([...watched.inside, watched.name]).slice(1)}`;
  const shown = values
    .slice(0, NOTE_VALUES)
    .map(([json, times]) => `${json} (${times})`)
    .join(", ");
  const more = values.length > NOTE_VALUES ? ` and ${values.length - NOTE_VALUES} more` : "";
  const seen = `${member} in ${watched.where} is ${shown}${more}`;
  const quoted = (text: string) => `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
  const written = typeof literal === "string" ? quoted(literal) : JSON.stringify(literal);
  const comparison = `${member} ${compared.operator} ${written}`;
  if (otherCase) {
    const value = otherCase[2] as string;
    return (
      `${comparison} matched nothing, but ${quoted(value)} differs only in case (comparisons are exact): ${seen}. ` +
      `Write ${member} ${compared.operator} ${quoted(value)}, or use search for any case`
    );
  }
  const types = [...new Set(values.map(([, , value]) => typeOf(value)))];
  let write = "";
  if (
    typeof literal === "string" &&
    types.includes("number") &&
    literal.trim() !== "" &&
    Number.isFinite(Number(literal))
  )
    write = `. Write ${member} ${compared.operator} ${Number(literal)}, without quotes`;
  if (typeof literal === "number" && types.includes("string"))
    write = `. Write ${member} ${compared.operator} ${quoted(String(literal))}, in quotes`;
  const there = types.map((type) => (type === "object" ? "an object" : `a ${type}`)).join(" or ");
  return `${comparison} compares with a ${kindOf(literal)}, but ${member} there is ${there}: ${seen}${write}`;
}

/**
 * A string value as the count keeps it: as JSON, cut after COUNTED_VALUE_CHARS characters (with "…"), so
 * the 1,000 kept values stay small and the note short whatever the answer's strings (S21.3).
 */
function shortString(value: string): string {
  return value.length > COUNTED_VALUE_CHARS ? `${value.slice(0, COUNTED_VALUE_CHARS)}…` : value;
}

/** A counted value: a primitive (a string cut by shortString), or one of two marks for a list or an object. */
type Counted = string | number | boolean | null;
const LIST = "\u0000list";
const OBJECT = "\u0000object";
const COUNTED_VALUE_CHARS = 40;

function kindOf(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "list" : typeof value;
}

/**
 * A JSON value's token at `at` as JSON text (a string, number, true, false or null), or a placeholder for a list or
 * object.
 */
function valueTokenAt(text: string, at: number): Counted | undefined {
  const char = text.charCodeAt(at);
  if (char === 0x22) {
    return shortString(stringAt(text, at, closingQuote(text, at)));
  }
  if (char === 0x7b) return OBJECT;
  if (char === 0x5b) return LIST;
  const token = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(at, at + 64))?.[0];
  return token === undefined
    ? undefined
    : token === "true"
      ? true
      : token === "false"
        ? false
        : token === "null"
          ? null
          : Number(token);
}

/**
 * The JSON string from the quote at `start` to the one at `end`, decoded: sliced as it stands unless it holds
 * an escape. Batches left unparsed stay unparsed (S14.6): no JSON.parse per key of a batch.
 */
function stringAt(text: string, start: number, end: number): string {
  const inner = text.slice(start + 1, end);
  return inner.includes("\\") ? (JSON.parse(text.slice(start, end + 1)) as string) : inner;
}

/** Where the JSON string opened by the quote at `open` closes (past an escaped quote), or the text's end. */
function closingQuote(text: string, open: number): number {
  let at = open + 1;
  for (; at < text.length && text.charCodeAt(at) !== 0x22; at++) if (text.charCodeAt(at) === 0x5c) at++;
  return at;
}

/** Objects (`{` outside strings) in a JSON text from `from`. */
function countObjects(text: string, from: number): number {
  let count = 0;
  for (let at = from; at < text.length; at++) {
    const char = text.charCodeAt(at);
    if (char === 0x22) {
      at = closingQuote(text, at);
    } else if (char === 0x7b) count++;
  }
  return count;
}

/** At most this many keys are named, nearest the missing name first (S14.5). */
const NOTE_KEYS = 20;

function describe(watched: Watched, inObjects: boolean, keys: readonly string[]): string {
  const name = JSON.stringify(watched.name);
  const listed =
    keys.length === 0
      ? "no keys"
      : keys.slice(0, NOTE_KEYS).join(", ") + (keys.length > NOTE_KEYS ? ` and ${keys.length - NOTE_KEYS} more` : "");
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
