/**
 * Counting without reading (S24): the nodes a query selects, folded into figures as they come, whole
 * (`count`, and `sum`, `min`, `max`, `avg` of members) or per group of a member's value (`by`, `distinct`),
 * each group with the canonical paths of its first three nodes as evidence. Nodes are taken one at a time
 * (`add`, on the calling thread) or as the state a batch worker built over its batches (`mergeYielding`), in
 * document order either way, so the examples are the first three of each group whoever counted them.
 *
 * Semantics kept (S24.2): `count` counts the nodes; figures take JSON numbers only, and each member's
 * `skipped` says how many nodes had none there; a node without the `by` member groups under `null`; keys
 * compare as JSON values (1 and "1" differ, objects equal whatever their key order). Groups come in
 * descending count, then by key: null, false, true, numbers ascending, strings in code-unit order, lists,
 * objects (by their JSON text). Only the page is built into the answer (S7.1, at most `limit` groups).
 */
import { ResultQueryError } from "../../errors.js";
import type { CostMeter } from "../cost.js";
import { AGGREGATE_LIMITS, COST_WEIGHTS, DEFAULT_LIMITS } from "../../defaults.js";
import { isPlainObject, setOwn } from "../../util/json.js";
import { cutForMessage } from "../../util/quote-argument.js";
import { jsonSize } from "../../util/size.js";
import { shouldYieldSince, yieldToLoop } from "../../util/yield.js";
import { formatPath } from "../canonical-path.js";
import type { JsonPathNode } from "../jsonpath/jsonpath.js";
import { keysNearestFirst } from "../refusals/nearest-key.js";
import { MemberWatch, type WatchPlan } from "../refusals/member-watch.js";
import { sliceWindow, type QueryArguments } from "../paths/plan.js";
import { figureMembers, FIGURES, groupMember, memberReader, memberSteps, type AggregateSpec } from "./spec.js";

/**
 * An aggregate's refusal for what it holds (AGGREGATE_LIMITS): a batch worker's job that meets it hands its words
 * back, and the call is refused with them at once (S24.3, S21.5).
 */
export class AggregateLimitError extends ResultQueryError {}

/** Per figure member: numbers seen, their sum, least and greatest. */
type Figures = number[]; // [n, sum, min, max] per member, flat

/**
 * One group: of one shape whatever its key (a class), its example paths held as the one path while there is one (no
 * list for it: a hundred thousand groups of one node each are held while they are counted, S21.4's collector).
 */
class Group {
  count = 0;
  /** Its example paths: none, one, or a list of two or three. */
  examples: undefined | string | string[] = undefined;
  constructor(
    readonly key: unknown,
    readonly figures: Figures,
    /** A list or object key's JSON text with sorted keys (`keyText`), made once: what groups are sorted by. */
    readonly text: string | undefined,
  ) {}

  get exampleCount(): number {
    const examples = this.examples;
    return examples === undefined ? 0 : typeof examples === "string" ? 1 : examples.length;
  }

  /** Its example paths, as a list. */
  examplePaths(): string[] {
    const examples = this.examples;
    return examples === undefined ? [] : typeof examples === "string" ? [examples] : examples;
  }
}

/**
 * What an aggregation holds, as plain data in columns: a batch worker sends it back with its counts (S14.6, S24.3).
 * Columns, not a list per group, so its clone is a few arrays (typed ones copied whole) and the calling thread,
 * which takes it group by group and yields between (`mergeYielding`, S21.4), makes no object per group to read it.
 */
export interface AggregationState {
  readonly nodes: number;
  /**
   * Per group: its key; the groups keyed by a list or an object come last, `texts` giving their JSON texts
   * (sorted keys), one per such group.
   */
  readonly keys: readonly unknown[];
  readonly texts: readonly string[];
  /** Per group: its count. */
  readonly counts: Float64Array;
  /** Per group, per figure member: numbers seen, their sum, least and greatest. */
  readonly figures: Float64Array;
  /** Per group: how many of its example paths `examples` holds, in the groups' order. */
  readonly exampleCounts: Uint8Array;
  readonly examples: readonly string[];
  /** Per member (the group member first, then the figure members): whether any node had it. */
  readonly found: readonly boolean[];
  /** Keys of the first object nodes, for the note of a member no node has (S18.2). */
  readonly sampledKeys: readonly string[];
  readonly objects: number;
}

/** The answer of an aggregate (S24.1). */
export type AggregateResult =
  | { path: string; value: Record<string, unknown>; total: number; note?: string }
  | {
      path: string;
      groups: Record<string, unknown>[];
      total: number;
      groupCount: number;
      nextOffset?: number;
      note?: string;
    };

/** Object nodes whose keys are sampled for the note, and keys kept (S18.2, as `MemberWatch`). */
const SAMPLED_OBJECTS = 64;
const SAMPLED_KEYS = 1000;
/** At most this many keys are named, nearest the missing name first (S14.5). */
const NOTE_KEYS = 20;
const EXAMPLES = 3;
/** The figures of a group when the aggregate asks for none: never written. */
const NO_FIGURES: Figures = [];
/** Characters of a list's or object's key text one node's visit pays for (S21.1): 300 / 20 = 15. */
const KEY_CHARS_PER_NODE = COST_WEIGHTS.nodes / COST_WEIGHTS.keyed;

export class Aggregation {
  private readonly groupMember: ((node: unknown) => unknown) | undefined;
  private readonly figureMembers: ((node: unknown) => unknown)[];
  /** The members, the group member first: what the note of S18.2 names. */
  private readonly members: string[];
  private readonly found: boolean[];
  /** Groups keyed by a string, number, boolean or null (also the one group of an aggregate without `by`). */
  private groups = new Map<unknown, Group>();
  /** Groups keyed by a list or an object, by its JSON text with sorted keys. */
  private composites = new Map<string, Group>();
  private keyChars = 0;
  /** Characters of the example paths held: deep nodes or long keys make long paths (S24.3, `AGGREGATE_LIMITS`). */
  private exampleChars = 0;
  /** Figures of the answer past the largest JSON number, given as null (said in the note). */
  private readonly overflowed = new Set<string>();
  private keys = new Set<string>();
  private objects = 0;
  private total = 0;
  /** The names the path's own query looks up (S18.2): an aggregate over no node says which no node had. */
  readonly watch?: MemberWatch;

  constructor(
    readonly spec: AggregateSpec,
    /** The query as given: the answer's `path`, and what a refusal names. */
    private readonly query: string,
    watch?: WatchPlan,
    /** The call's (or batch job's) meter: the JSON text of a list or object grouped by is charged to it (S21.1). */
    private readonly meter?: CostMeter,
  ) {
    const by = groupMember(spec);
    this.groupMember = by === undefined ? undefined : memberReader(memberSteps(by));
    const figures = figureMembers(spec);
    this.figureMembers = figures.map((member) => memberReader(memberSteps(member)));
    this.members = [...(by === undefined ? [] : [by]), ...figures];
    this.found = this.members.map(() => false);
    if (watch && watch.watched.length > 0) this.watch = new MemberWatch(watch);
  }

  /** Takes one node; true (an aggregate never stops early: every node counts). */
  add(node: JsonPathNode): boolean {
    this.take(node.value, node);
    return true;
  }

  /** Nodes taken so far. */
  get counted(): number {
    return this.total;
  }

  /** An aggregate has no page of nodes: no batch needs reading for one (`batchesToRead`). */
  onPage(): boolean {
    return false;
  }

  /**
   * Takes nodes counted on a batch worker: nothing here, for they come with the part the workers' states of
   * their list were merged into (`part`, `mergePart`).
   */
  skip(): void {}

  /**
   * A fresh aggregation of the same spec, for one list's batch-worker states (`countInWorkers`): they are merged
   * into it as they come, in the list's order (`mergeYielding`), past AGGREGATE_LIMITS refused then, and it is
   * taken whole once every job answered (`mergePart`); when a worker fails instead, the list is read here and
   * the part is dropped, nothing of it counted twice.
   */
  part(): Aggregation {
    return new Aggregation(this.spec, this.query);
  }

  private take(value: unknown, node: JsonPathNode): void {
    this.total++;
    let at = 0;
    let key: unknown;
    if (this.groupMember) {
      key = this.groupMember(value);
      if (key !== undefined) this.found[0] = true;
      at = 1;
    }
    if (isPlainObject(value) && this.objects < SAMPLED_OBJECTS) {
      this.objects++;
      for (const name of Object.keys(value)) {
        if (this.keys.size >= SAMPLED_KEYS) break;
        this.keys.add(name);
      }
    }
    const group = this.groupOf(key === undefined ? null : key);
    group.count++;
    const figures = group.figures;
    for (let m = 0; m < this.figureMembers.length; m++) {
      const number = this.figureMembers[m]!(value);
      if (number !== undefined) this.found[at + m] = true;
      if (typeof number !== "number") continue;
      const f = 4 * m;
      figures[f]!++;
      figures[f + 1]! += number;
      if (number < figures[f + 2]!) figures[f + 2] = number;
      if (number > figures[f + 3]!) figures[f + 3] = number;
    }
    if (group.exampleCount < EXAMPLES) this.addExample(group, formatPath(node.location()));
  }

  /**
   * Keeps an example path, refused past `AGGREGATE_LIMITS.exampleChars` together (20,000 groups of paths
   * 3,000 characters long held 1.1 GB).
   */
  private addExample(group: Group, path: string): void {
    this.exampleChars += path.length;
    if (this.exampleChars > AGGREGATE_LIMITS.exampleChars) throw this.tooManyGroups();
    const examples = group.examples;
    group.examples =
      examples === undefined ? path : typeof examples === "string" ? [examples, path] : [...examples, path];
  }

  /**
   * The group of `key`: a string, number, boolean or null is its own key in a Map (which tells 1 from "1"
   * and needs no text); a list or object is keyed by its JSON text with sorted keys (`keyText`).
   */
  private groupOf(key: unknown, text?: string): Group {
    const composite = key !== null && typeof key === "object";
    if (composite && text === undefined) {
      text = keyText(key, this.query);
      // Made once per node, its length is the work; what the node's visit already paid for is not charged
      // again, so small keys ({ "n": 1 }) cost what the same filter costs (S24.3), long ones their length.
      if (this.meter && text.length > KEY_CHARS_PER_NODE) this.meter.charge("keyed", text.length - KEY_CHARS_PER_NODE);
    }
    const group = composite ? this.composites.get(text!) : this.groups.get(key);
    if (group) return group;
    const chars = composite ? text!.length : typeof key === "string" ? key.length : 0;
    if (
      this.groups.size + this.composites.size >= AGGREGATE_LIMITS.groups ||
      this.keyChars + chars > AGGREGATE_LIMITS.keyChars
    )
      throw this.tooManyGroups();
    this.keyChars += chars;
    // no figure asked: one empty list for every group (a hundred thousand groups are held, S21.4's collector)
    const figures: Figures = this.figureMembers.length === 0 ? NO_FIGURES : [];
    for (let m = 0; m < this.figureMembers.length; m++) figures.push(0, 0, Infinity, -Infinity);
    const made = new Group(key, figures, composite ? text : undefined);
    if (composite) this.composites.set(text!, made);
    else this.groups.set(key, made);
    return made;
  }

  private tooManyGroups(): AggregateLimitError {
    const member = JSON.stringify(groupMember(this.spec));
    const many =
      this.exampleChars > AGGREGATE_LIMITS.exampleChars
        ? `groups whose example paths pass ${AGGREGATE_LIMITS.exampleChars} characters together ` +
          "(its nodes sit deep or under long keys)"
        : this.groups.size + this.composites.size >= AGGREGATE_LIMITS.groups
          ? `more than ${AGGREGATE_LIMITS.groups} distinct values`
          : `distinct values longer than ${AGGREGATE_LIMITS.keyChars} characters together`;
    return new AggregateLimitError(
      "INVALID_INPUT",
      `aggregate by ${cutForMessage(member)} over ${cutForMessage(this.query)} meets ${many}: ` +
        `group by a member with fewer values (such as a status or an owner), ` +
        `or narrow the path with a filter such as [?@.status == 'open']; { "count": true } alone counts the nodes.`,
    );
  }

  /** What this aggregation holds, as plain data (a batch worker's reply): its groups in columns. */
  state(): AggregationState {
    const size = this.groups.size + this.composites.size;
    const width = 4 * this.figureMembers.length;
    const keys: unknown[] = [];
    const texts: string[] = [];
    const counts = new Float64Array(size);
    const figures = new Float64Array(size * width);
    const exampleCounts = new Uint8Array(size);
    const examples: string[] = [];
    const put = (group: Group) => {
      const g = keys.length;
      keys.push(group.key);
      counts[g] = group.count;
      figures.set(group.figures, g * width);
      exampleCounts[g] = group.exampleCount;
      for (const example of group.examplePaths()) examples.push(example);
    };
    for (const group of this.groups.values()) put(group);
    for (const [text, group] of this.composites) (put(group), texts.push(text));
    return {
      nodes: this.total,
      keys,
      texts,
      counts,
      figures,
      exampleCounts,
      examples,
      found: this.found,
      sampledKeys: [...this.keys],
      objects: this.objects,
    };
  }

  /**
   * Takes what a batch worker built over batches that come next, in order, group by group, yielding once it
   * has held the thread YIELD_AFTER_MS (S21.4: a job's state may hold tens of thousands of groups); past
   * AGGREGATE_LIMITS it throws the refusal then. One merge at a time: the next waits for this one (the examples are
   * the first three in the list's order).
   */
  async mergeYielding(state: AggregationState): Promise<void> {
    this.total += state.nodes;
    for (let m = 0; m < this.found.length; m++) this.found[m] ||= state.found[m] ?? false;
    for (const key of state.sampledKeys)
      if (this.keys.size < SAMPLED_KEYS && this.objects < SAMPLED_OBJECTS) this.keys.add(key);
    this.objects += state.objects;
    const { keys, texts, counts, figures, exampleCounts, examples } = state;
    const width = 4 * this.figureMembers.length;
    const plain = keys.length - texts.length;
    let example = 0;
    let since = performance.now();
    for (let g = 0; g < keys.length; g++) {
      // its own piece, or the loop held by others' work in the same pass (replies that came in together)
      if ((g & (GROUPS_PER_LOOK - 1)) === GROUPS_PER_LOOK - 1 && shouldYieldSince(since)) {
        await yieldToLoop();
        since = performance.now();
      }
      const group = this.groupOf(keys[g], g < plain ? undefined : texts[g - plain]);
      group.count += counts[g]!;
      const mine = group.figures;
      for (let f = 0, at = g * width; f < width; f += 4, at += 4) {
        mine[f]! += figures[at]!;
        mine[f + 1]! += figures[at + 1]!;
        if (figures[at + 2]! < mine[f + 2]!) mine[f + 2] = figures[at + 2]!;
        if (figures[at + 3]! > mine[f + 3]!) mine[f + 3] = figures[at + 3]!;
      }
      for (let e = exampleCounts[g]!; e > 0; e--, example++)
        if (group.exampleCount < EXAMPLES) this.addExample(group, examples[example]!);
    }
  }

  /**
   * Takes a list's batch-worker part (`part`) whole, in its place in the answer's order: adopted as it stands
   * when nothing was counted before it (an aggregate over one list), otherwise merged group by group, yielding.
   */
  async mergePart(part: Aggregation): Promise<void> {
    if (this.total === 0 && this.groups.size + this.composites.size === 0 && this.objects === 0) {
      [this.groups, this.composites, this.keys] = [part.groups, part.composites, part.keys];
      [this.total, this.objects, this.keyChars, this.exampleChars] = [
        part.total,
        part.objects,
        part.keyChars,
        part.exampleChars,
      ];
      for (let m = 0; m < this.found.length; m++) this.found[m] ||= part.found[m]!;
      return;
    }
    await this.mergeYielding(part.state());
  }

  /**
   * The answer: the figures of all nodes, or the page of groups `args` asks for (S7.1), refused when it
   * would pass `sliceLimitBytes` (S7.6) with how many groups fit.
   */
  result(args: Pick<QueryArguments, "offset" | "limit" | "page">, sliceLimitBytes: number): AggregateResult {
    const path = cutForMessage(this.query);
    const note = this.note();
    if (!this.groupMember) {
      const group =
        this.groups.get(null) ??
        new Group(
          null,
          this.figureMembers.flatMap(() => [0, 0, Infinity, -Infinity]),
          undefined,
        );
      const result: AggregateResult = { path, value: this.figuresOf(group), total: this.total };
      const notes = [note, this.overflowNote()].filter((text) => text !== undefined);
      if (notes.length > 0) result.note = notes.join("; ");
      return result;
    }
    const { offset, limit } = sliceWindow(args, DEFAULT_LIMITS.nodes);
    const groupCount = this.groups.size + this.composites.size;
    const sorted = firstInOrder([this.groups.values(), this.composites.values()], groupCount, offset + limit);
    const end = Math.min(groupCount, offset + limit);
    const groups: Record<string, unknown>[] = [];
    let bytes = 2;
    for (let at = offset; at < end; at++) {
      const group = { key: sorted[at]!.key, ...this.figuresOf(sorted[at]!), examples: sorted[at]!.examplePaths() };
      bytes += jsonSize(group) + (groups.length > 0 ? 1 : 0);
      if (bytes > sliceLimitBytes) throw pageTooLarge(path, sliceLimitBytes, bytes, groups.length, offset);
      groups.push(group);
    }
    const result: AggregateResult = { path, groups, total: this.total, groupCount };
    if (end < groupCount) result.nextOffset = end;
    // A page past the last group says so (S18.2: no unexplained empty answer), naming the page that has groups.
    const past =
      groupCount > 0 && offset >= groupCount
        ? `offset ${offset} is past the ${groupCount} groups: offset 0 gives the first`
        : undefined;
    const notes = [note, past, this.overflowNote()].filter((text) => text !== undefined);
    if (notes.length > 0) result.note = notes.join("; ");
    if (jsonSize(result) > sliceLimitBytes)
      throw pageTooLarge(path, sliceLimitBytes, jsonSize(result), Math.max(0, groups.length - 1), offset);
    return result;
  }

  /** `count`, then the figures asked for, then how many nodes each figure's member had no number at. */
  private figuresOf(group: Group): Record<string, unknown> {
    const out: Record<string, unknown> = { count: group.count };
    const figures = figureMembers(this.spec);
    if (figures.length === 0) return out;
    for (const figure of FIGURES) {
      const member = this.spec[figure];
      if (member === undefined) continue;
      const f = 4 * figures.indexOf(member);
      const [n, sum, min, max] = group.figures.slice(f, f + 4) as [number, number, number, number];
      const value = figure === "sum" ? sum : n === 0 ? null : figure === "min" ? min : figure === "max" ? max : sum / n;
      // Past the largest JSON number (a sum of numbers near 1e308): JSON would send null unexplained.
      if (typeof value === "number" && !Number.isFinite(value))
        this.overflowed.add(`${figure} of ${JSON.stringify(member)}`);
      out[figure] = typeof value === "number" && !Number.isFinite(value) ? null : value;
    }
    const skipped: Record<string, number> = {};
    // "__proto__" is a member too
    figures.forEach((member, m) => setOwn(skipped, member, group.count - group.figures[4 * m]!));
    out.skipped = skipped;
    return out;
  }

  /** What the answer gives as null because it passed the largest JSON number (S24.2: null means no number). */
  private overflowNote(): string | undefined {
    if (this.overflowed.size === 0) return undefined;
    return (
      `${[...this.overflowed].join(", ")} passed the largest JSON number (about 1.8e308) ` +
      `and ${this.overflowed.size > 1 ? "are" : "is"} given as null`
    );
  }

  /**
   * S18.2: over no node, the path's own watch says which names no item had; over some, a member of the
   * aggregate that no node had is named, with the keys the nodes do have (nearest first).
   */
  private note(): string | undefined {
    if (this.total === 0) return this.watch?.note();
    const parts: string[] = [];
    this.members.forEach((member, m) => {
      if (this.found[m] || parts.some((part) => part.includes(JSON.stringify(member)))) return;
      const steps = memberSteps(member);
      const first = typeof steps[0] === "string" ? steps[0] : member;
      const keys = keysNearestFirst([...this.keys], first);
      const listed =
        keys.length === 0
          ? "no keys"
          : keys.slice(0, NOTE_KEYS).join(", ") +
            (keys.length > NOTE_KEYS ? ` and ${keys.length - NOTE_KEYS} more` : "");
      parts.push(`no node ${cutForMessage(this.query)} selects has ${JSON.stringify(member)}; they have ${listed}`);
    });
    return parts.length > 0 ? parts.join("; ") : undefined;
  }
}

/** Groups merged between two reads of the clock (a power of two). */
const GROUPS_PER_LOOK = 1024;

/** Up to this many groups are kept in order while the rest pass by; a deeper page sorts them all. */
const KEPT_IN_ORDER = 1000;

/**
 * The first `count` of `total` groups in answer order: with few asked for (a page near the top), one pass
 * keeping them in order (about one comparison a group), so 100,000 groups do not hold the thread for a sort
 * of them all (S21.4); otherwise a sort of all of them.
 */
function firstInOrder(sources: Iterable<Group>[], total: number, count: number): Group[] {
  if (count > KEPT_IN_ORDER || count * 8 > total) return sources.flatMap((source) => [...source]).sort(byCountThenKey);
  const kept: Group[] = [];
  for (const source of sources) {
    for (const group of source) {
      if (kept.length === count && byCountThenKey(group, kept[count - 1]!) >= 0) continue;
      let low = 0;
      let high = kept.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (byCountThenKey(kept[middle]!, group) <= 0) low = middle + 1;
        else high = middle;
      }
      kept.splice(low, 0, group);
      if (kept.length > count) kept.pop();
    }
  }
  return kept;
}

/** A key as JSON text with every object's keys sorted: equal JSON values, equal texts (S24.2). */
function keyText(key: unknown, query: string): string {
  if (key === null || typeof key !== "object") return JSON.stringify(key);
  try {
    // Most objects have their keys in order already: their own text is the one (a third of the time of
    // rebuilding each object sorted, which a batch job over 20,000 objects paid 100-160 ms for).
    if (keysInOrder(key)) return JSON.stringify(key);
    return JSON.stringify(key, (_, value: unknown) =>
      isPlainObject(value)
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((name) => [name, value[name]]),
          )
        : value,
    );
  } catch (error) {
    if (error instanceof RangeError)
      throw new ResultQueryError(
        "INVALID_INPUT",
        `aggregate over ${cutForMessage(query)} groups by values nested too deeply to compare: ` +
          `group by a member deeper in them.`,
      );
    throw error;
  }
}

/** Whether every object in `value` enumerates its keys in code-unit order: its JSON text then has them sorted. */
function keysInOrder(value: unknown): boolean {
  if (value === null || typeof value !== "object") return true;
  if (Array.isArray(value)) {
    for (const item of value) if (!keysInOrder(item)) return false;
    return true;
  }
  let last: string | undefined;
  for (const name of Object.keys(value)) {
    if (last !== undefined && !(last < name)) return false;
    last = name;
    if (!keysInOrder((value as Record<string, unknown>)[name])) return false;
  }
  return true;
}

const RANK = { null: 0, boolean: 1, number: 2, string: 3, list: 4, object: 5 } as const;

function rankOf(key: unknown): number {
  if (key === null) return RANK.null;
  if (typeof key === "boolean") return RANK.boolean;
  if (typeof key === "number") return RANK.number;
  if (typeof key === "string") return RANK.string;
  return Array.isArray(key) ? RANK.list : RANK.object;
}

/**
 * Descending count, then null, false, true, numbers ascending, strings by code units, lists, objects (by JSON text).
 */
function byCountThenKey(a: Group, b: Group): number {
  if (a.count !== b.count) return b.count - a.count;
  const ranks = rankOf(a.key) - rankOf(b.key);
  if (ranks !== 0) return ranks;
  if (typeof a.key === "number" && typeof b.key === "number") return a.key - b.key;
  if (typeof a.key === "boolean") return Number(a.key) - Number(b.key);
  // A list's or object's text was made once, with its group, not once per comparison.
  const [x, y] = typeof a.key === "string" ? [a.key, b.key as string] : [a.text!, b.text!];
  return x < y ? -1 : x > y ? 1 : 0;
}

function pageTooLarge(
  path: string,
  sliceLimitBytes: number,
  bytes: number,
  fit: number,
  offset: number,
): ResultQueryError {
  const advice =
    fit > 0
      ? `At most ${fit} groups from offset ${offset} fit: call result_query again with limit ${fit}.`
      : `Not even one group fits: group by a member with shorter values, or drop a figure.`;
  return new ResultQueryError(
    "RESULT_SLICE_TOO_LARGE",
    `The groups of ${path} are more than ${bytes} bytes, over the ${sliceLimitBytes}-byte limit. ${advice}`,
  );
}
