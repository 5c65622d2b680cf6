/**
 * `search` (S14.4): every string, number, boolean or object key under the start nodes whose text
 * contains the needle, compared case-insensitively; one hit per matching line inside multi-line strings.
 *
 * Bounded whatever the answer: the walk is iterative (a 3000-deep answer does not overflow the stack),
 * visits each value once, and compares with `indexOf` on lower-cased text (never a regex built from user
 * text). Hits outside the requested page are only counted: their paths and texts are never built.
 * Start nodes that overlap (a JSONPath nodelist such as `$..*` or `$['rows','rows']`) are searched once
 * per place: a container already walked is not walked again, and a leaf under one, or named again, is
 * skipped (`SearchedPlaces`); the whole search counts against the call's meter (S14.3, S16.1).
 */
import { CostMeter } from "../cost.js";
import { isJsonMember, isPlainObject, keyListOf } from "../../util/json.js";
import type { BatchedPart } from "../../records/read/answer-reader.js";
import { formatPath } from "../paths/path.js";
import { SearchedPlaces, type StartNode } from "./places.js";
import { around, findFolded, fold, type FoldedMatch } from "./text.js";
import type { Frame, LineScan, PlaceholderAt, SearchHit, SearchOptions, Walk } from "./search-types.js";

export type { StartNode } from "./places.js";
export type { PlaceholderAt, SearchHit, SearchOptions, Walk } from "./search-types.js";

/** Distinct keys whose match a search remembers (a few hundred KB at most). */
const DISTINCT_KEYS_KEPT = 4096;

/** A search run over start nodes in turn, collecting the page's hits and counting all. */
export class Search {
  readonly hits: SearchHit[] = [];
  total = 0;
  private readonly end: number;
  private readonly width: number;
  /**
   * Whether the needle could be in a number's or a boolean's text at all: most needles cannot, and then no number is
   * turned into text.
   */
  private readonly numbers: boolean;
  private readonly booleans: boolean;
  /** Keys and indexes from the root to the value being looked at (a stack shared by the walk). */
  private steps: (string | number)[] = [];
  /**
   * Places searched so far, when start nodes may overlap (`options.overlapping`): none is searched again.
   * Otherwise nothing is kept, so what is walked may be dropped as soon as walked.
   */
  private readonly places: SearchedPlaces | undefined;
  private readonly needle: string;
  private readonly meter: CostMeter;

  constructor(
    needle: string,
    private readonly options: SearchOptions,
  ) {
    this.meter =
      options.meter ??
      new CostMeter(
        undefined,
        "search under a narrower path, such as $.rows instead of $..* (overlapping nodes multiply)",
      );
    this.needle = fold(needle).text; // folded as the text is (S21.6)
    this.places = options.overlapping ? new SearchedPlaces(() => this.tick()) : undefined;
    this.end = options.offset + options.limit;
    this.width = Math.max(this.needle.length, 2 * options.previewChars);
    // the characters of a number's JSON text, such as "1e+21" or "-0.5"
    this.numbers = /^[0-9.e+-]+$/.test(this.needle);
    this.booleans = "true".includes(this.needle) || "false".includes(this.needle);
  }

  /** Whether a start node was searched already (`SearchedPlaces`); always false when start nodes cannot overlap. */
  covered(node: StartNode): boolean {
    return this.places?.covered(node) ?? false;
  }

  private tick(): void {
    this.meter.charge("nodes");
  }

  /**
   * Counts a batch's hits from its JSON text (`count`, `hitCounter`) when none of them can
   * fall on the page: true when so counted, so the batch need not be parsed (S14.6). A batch that may
   * hold a hit of the page is left to the walk, which builds the hits.
   */
  countedFromText(text: string, count: (text: string) => number | undefined): boolean {
    const hits = count(text);
    const onPage = this.total < this.end && this.total + (hits ?? 0) > this.options.offset;
    if (hits === undefined || onPage) return false;
    this.total += hits;
    return true;
  }

  /** Walks a start node that holds no placeholder. */
  walkAll(node: StartNode): void {
    const walk = this.start(node);
    if (walk && this.run(walk)) throw new Error("unreachable: no placeholders were given");
  }

  /** Walks `items`, the items from `first` of the list at `steps` (a batch, S14.6), with one walk for all. */
  walkItems(items: readonly unknown[], first: number, steps: readonly (string | number)[]): void {
    const walk: Walk = { frames: [], steps: [...steps, first], placeholderOf: undefined };
    const last = steps.length;
    for (let i = 0; i < items.length; i++) {
      walk.steps.length = last + 1;
      walk.steps[last] = first + i;
      this.steps = walk.steps;
      if (this.enter(items[i], walk.frames)) this.run(walk);
    }
  }

  /**
   * A walk of a start node in document order, run by `run`; undefined when the node is a leaf (matched
   * now). Parts standing at places `placeholderOf` names (lists and wide objects read batch by batch,
   * S14.6) are handed to the caller to walk; the start node itself is never one.
   */
  start(node: StartNode, placeholderOf?: PlaceholderAt): Walk | undefined {
    const walk: Walk = { frames: [], steps: [...node.steps], placeholderOf };
    this.steps = walk.steps;
    return this.enter(node.value, walk.frames) ? walk : undefined;
  }

  /**
   * Runs a walk on until it ends (undefined), or until it meets a placeholder: then it answers the part and
   * the steps to it, and goes on from there when run again, once the caller has walked the part's batches
   * (`walkItems`, `walkAll`). `mayYield`: it also stops ("yielded") once the call has held the thread long
   * enough (S21.4), between two values or inside a long string, and goes on from there when run again.
   * A plain loop, not a generator: it runs once for every value of the answer.
   */
  run(walk: Walk, mayYield = false): { part: BatchedPart; steps: (string | number)[] } | "yielded" | undefined {
    this.mayYield = mayYield;
    try {
      return this.runOn(walk);
    } finally {
      this.mayYield = false; // only `run` may stop: a batch walked between two runs is walked whole
    }
  }
  /** Whether a string's lines may stop mid-way (within `run(walk, true)`), and the string stopped in, if one. */
  private mayYield = false;
  private pending: LineScan | undefined;

  private runOn(walk: Walk): { part: BatchedPart; steps: (string | number)[] } | "yielded" | undefined {
    if (this.pending) {
      if (!this.scanLines(this.pending)) return "yielded";
      this.pending = undefined;
    }
    const { frames, steps, placeholderOf } = walk;
    this.steps = steps;
    for (let step = 1; frames.length > 0; step++) {
      if (this.mayYield && (step & 1023) === 0 && this.meter.shouldYield()) return "yielded";
      const frame = frames[frames.length - 1]!;
      const length = frame.keys ? frame.keys.length : (frame.container as unknown[]).length;
      if (frame.next >= length) {
        frames.pop();
        if (frames.length > 0) steps.pop(); // the step into this container, taken by its parent
        continue;
      }
      const at = frame.next++;
      let child: unknown;
      if (frame.keys) {
        const key = frame.keys[at]!;
        child = (frame.container as Record<string, unknown>)[key];
        if (!isJsonMember(child)) continue; // JSON drops it: nothing to find
        steps.push(key);
        this.matchText(key, true);
      } else {
        child = (frame.container as unknown[])[at];
        steps.push(at);
      }
      const part = placeholderOf?.(frame.container, steps[steps.length - 1]!);
      if (part !== undefined) {
        const to = [...steps];
        steps.pop();
        return { part, steps: to };
      }
      if (!this.enter(child, frames)) steps.pop();
      if (this.pending) return "yielded"; // a long string's lines, stopped mid-way
    }
    return undefined;
  }

  /** Looks at a value: a container gets a frame (true), a leaf is matched here (false). */
  private enter(value: unknown, frames: Frame[]): boolean {
    if (this.places) {
      // Only overlapping start nodes can multiply the work: a search under one path visits each value
      // once (linear, S14.3), and counting it would refuse or answer the same call by how the answer
      // was read (a list in batches skips those whose text cannot match, the whole value does not).
      this.tick();
      // searched already, under an earlier start node
      if (value !== null && typeof value === "object" && !this.places.enter(value)) return false;
    }
    if (Array.isArray(value)) {
      frames.push({ container: value, keys: undefined, next: 0 });
      return true;
    }
    if (isPlainObject(value)) {
      // a wide object read whole: its kept key list (S26.1)
      frames.push({ container: value, keys: keyListOf(value), next: 0 });
      return true;
    }
    if (typeof value === "string") this.matchString(value);
    else if (typeof value === "number") {
      if (this.numbers) this.matchText(String(value), false); // its JSON text: answers hold finite numbers
    } else if (typeof value === "boolean" && this.booleans) this.matchText(value ? "true" : "false", false);
    return false;
  }

  /** A key's name, a number or a boolean: one hit when it contains the needle. */
  private matchText(text: string, key: boolean): void {
    // also spares indexOf setting up a long needle per short text (a character folds to at most 3)
    if (3 * text.length < this.needle.length) return;
    const match = key ? this.keyMatch(text) : findFolded(fold(text), this.needle);
    if (!match) return;
    if (this.wanted()) {
      const [start, end] = around(text, 0, text.length, match.at, match.length, this.width);
      const hit: SearchHit = { path: formatPath(this.steps), text: text.slice(start, end) };
      if (key) hit.key = true;
      this.hits.push(hit);
    }
    this.total++;
  }

  /**
   * Where the needle is in a key (or -1): rows repeat the same few keys, so each is folded and searched
   * once, up to a bounded number of distinct keys.
   */
  private keyMatch(key: string): FoldedMatch | undefined {
    let match = this.keys.get(key);
    if (match === undefined) {
      match = findFolded(fold(key), this.needle) ?? null;
      if (this.keys.size < DISTINCT_KEYS_KEPT) this.keys.set(key, match);
    }
    return match ?? undefined;
  }
  private readonly keys = new Map<string, FoldedMatch | null>();

  /** A string: one hit, or one per matching line when it has several lines (`scanLines`). */
  private matchString(text: string): void {
    if (3 * text.length < this.needle.length) return;
    // A hit off the page is only counted: when the text holds the (folded) needle as it is, its folded
    // form holds it too, and a one-line string is one hit, so the text need not be folded at all.
    if (!this.wanted() && text.includes(this.needle) && text.indexOf("\n") < 0) return void this.total++;
    const folded = fold(text);
    const match = findFolded(folded, this.needle);
    if (!match) return;
    if (text.indexOf("\n") < 0) {
      if (this.wanted()) this.hits.push(this.stringHit(text, 0, text.length, match, undefined, this.steps));
      this.total++;
      return;
    }
    const scan: LineScan = { text, folded, match, line: 1, lineStart: 0, counted: 0, steps: this.steps };
    // stopped: its path kept, as the walk moves on
    if (!this.scanLines(scan)) this.pending = { ...scan, steps: [...this.steps] };
  }

  /**
   * The hits of a multi-line string's lines from `scan.match` on: false when it stopped first, within a
   * mayYield run that has held the thread long enough (S21.4; `scan` then says where to go on).
   */
  private scanLines(scan: LineScan): boolean {
    const { text, folded } = scan;
    // Lines are counted once, forward only: `counted` is how far newlines have been counted.
    for (let step = 1; scan.match; step++) {
      if (this.mayYield && (step & 4095) === 0 && this.meter.shouldYield()) return false;
      const match: FoldedMatch = scan.match;
      const at = match.at;
      for (let nl = text.indexOf("\n", scan.counted); nl >= 0 && nl < at; nl = text.indexOf("\n", nl + 1)) {
        scan.line++;
        scan.lineStart = nl + 1;
        scan.counted = nl + 1;
      }
      scan.counted = Math.max(scan.counted, at);
      const next = text.indexOf("\n", at);
      const lineEnd = next < 0 ? text.length : next;
      if (this.wanted()) {
        // \r\n ends a line too
        const end = lineEnd > at + 1 && text.charCodeAt(lineEnd - 1) === 13 ? lineEnd - 1 : lineEnd;
        this.hits.push(this.stringHit(text, scan.lineStart, end, match, scan.line, scan.steps));
      }
      this.total++;
      scan.match = next < 0 ? undefined : findFolded(folded, this.needle, next + 1);
    }
    return true;
  }

  private stringHit(
    text: string,
    from: number,
    to: number,
    match: FoldedMatch,
    line: number | undefined,
    steps: readonly (string | number)[],
  ): SearchHit {
    const [start, end] = around(text, from, to, match.at, match.length, this.width);
    const hit: SearchHit = { path: formatPath(steps), text: text.slice(start, end) };
    if (line !== undefined) hit.line = line;
    if (start > 0 || end < text.length) hit.offset = start; // where to read on, when the text is not all of it
    return hit;
  }

  /** Whether the hit about to be counted falls on the requested page. */
  private wanted(): boolean {
    return this.total >= this.options.offset && this.total < this.end;
  }
}
