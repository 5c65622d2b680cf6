/**
 * Reading an indexed list batch by batch (S14.6): a filter, a wildcard or a search over a list reads
 * every item once, but holds at most a few pieces and one batch of it at a time. Each batch is parsed on
 * its own, handed to the query and dropped: its items die young (a 10 MB answer parsed whole is 13 MB of
 * heap the collector promotes and copies; in batches it is garbage the scavenger drops), and nothing is
 * added to the cache. A batch may be skipped by its JSON text before it is parsed, when the query knows
 * from the text alone that nothing in it can match (a filter naming a string, a search for ASCII text).
 * A wide object's member batches are read by the same loop (`eachBatch`), with the same piece fetcher.
 */
import type { ListSummary, ObjectSummary } from "../format/answer-index.js";
import { batchAt, byteSpan, partJsonBytes } from "../format/layout.js";
import { parseRead, type AnswerRead } from "./answer-state.js";
import { BatchPieces, type BatchReading } from "./pieces.js";
import { forEachPiece, type BatchPiece } from "./handover.js";
import { YIELD_AFTER_MS } from "../../defaults.js";
import { yieldToLoop } from "../../util/yield.js";

export type { BatchReading } from "./pieces.js";
export type { BatchPiece } from "./handover.js";

export interface MemberVisit {
  /** Whether a batch, given its JSON text (members joined by commas), needs parsing at all. */
  admit?: (text: string) => boolean;
  /** The members of one batch, as one object in key order; `false` stops the reading (the answer is known). */
  visit: (members: Record<string, unknown>) => boolean | void;
}

export interface BatchVisit {
  /** First item to read (default 0) and the item to stop before (default the list's length). */
  from?: number;
  to?: number;
  /** Whether a batch, given its JSON text (items joined by commas), needs parsing at all. */
  admit?: (text: string) => boolean;
  /** Whether batch number `batch` is read at all (default: every batch); the others are not even fetched. */
  wants?: (batch: number) => boolean;
  /**
   * Items `first` onwards of one batch (number `batch` of the list), in order; `false` stops the reading (the answer is
   * known).
   */
  visit: (first: number, items: unknown[], batch: number) => boolean | void;
}

/**
 * A part of the answer read batch by batch: an indexed list (item batches) or a wide object (member batches, S16.4).
 */
export type BatchedPart = { readonly list: number } | { readonly object: number };

/**
 * An answer whose lists and wide objects are read batch by batch (Selection `{ stream }`): its root as far
 * as read (the parts outside them, for `{ stream: "all" }`; each stands there as a placeholder) and their
 * batches on demand. Reading a batch whose piece is missing, expired or tampered ends the reading as
 * "lost": the whole handle then reads as not found (S8.5).
 */
export class StreamedAnswer {
  constructor(
    private readonly read: AnswerRead,
    /**
     * Everything outside the lists' items and wide objects' members (placeholders at their paths), or undefined when
     * not read.
     */
    readonly root: unknown,
    /** The one list selected (`{ stream: list }`), or undefined when all are (`{ stream: "all" }`). */
    readonly list: number | undefined,
    private readonly lost: () => void,
    /** The one wide object selected (`{ stream: "object" }`, S16.4), if one is. */
    readonly object?: number,
  ) {}

  get lists(): readonly ListSummary[] {
    return this.read.state.index!.lists;
  }

  get objects(): readonly ObjectSummary[] {
    return this.read.state.index!.objects;
  }

  /** How many batches `list` is stored in, and the bytes of its JSON. */
  sizeOf(list: number): { batches: number; bytes: number } {
    const layout = this.read.state.index!.lists[list]!;
    return { batches: layout.batches.length / 2, bytes: partJsonBytes(layout.batches, layout.end) };
  }

  /**
   * The list or wide object standing at `key` of `container` (an object of `root`), if one does. Told by
   * place, not by the value there: `root` is the answer's shared state, and a slice of a list (or a window
   * of a wide object's keys) read while this stream runs puts what it read at the part's place
   * (`placeAt`), where the stream must still read the whole part. The containers on the way
   * are never replaced, only that key.
   */
  partAt(container: object, key: string | number): BatchedPart | undefined {
    this.places ??= placesOf(this.root, this.lists, this.objects);
    return this.places.get(container)?.get(key);
  }
  private places?: Map<object, Map<string | number, BatchedPart>>;

  /**
   * Reads every member batch of wide object `object`, in key order (S16.4), and says how the reading ended.
   * A batch's stored text is its members `"key":value` joined by commas, so `{` + text + `}` is one batch
   * parsed on its own, its keys in the object's own order (the order they were written in, which
   * `Object.keys` of the whole object lists: array indexes first, and a batch's own come first in it too).
   */
  forEachMemberBatch(object: number, { admit, visit }: MemberVisit): Promise<BatchReading> {
    const layout = this.read.state.index!.objects[object]!;
    return this.eachBatch(
      layout,
      true,
      (batch) => ({ ...byteSpan(layout.batches, layout.end, batch, batch + 1, 1) }),
      (text) => {
        if (admit && !admit(text)) return true;
        return visit(parseRead(this.read, `{${text}}`) as Record<string, unknown>);
      },
    );
  }

  /** Reads the batches of `list` holding items `from` to `to - 1`, in order, and says how the reading ended. */
  forEachBatch(
    list: number,
    { from = 0, to = Number.MAX_SAFE_INTEGER, admit, wants, visit }: BatchVisit,
  ): Promise<BatchReading> {
    const layout = this.read.state.index!.lists[list]!;
    const held = this.read.state.lists.get(list); // batches a slice read before are in memory already
    return this.eachBatch(
      layout,
      !wants,
      (batch) => {
        // a few batches wanted: none fetched ahead
        const { first, last, start, end } = batchAt(layout, batch);
        if (first >= to) return "stop";
        if (last <= from || (wants && !wants(batch))) return "skip";
        if (held?.loaded[batch]) return { items: held.items.slice(first, last) };
        return { start, end };
      },
      (text, batch) => {
        if (admit && !admit(text)) return true;
        return visit(layout.batches[2 * batch]!, parseRead(this.read, `[${text}]`) as unknown[], batch);
      },
      (items, batch) => visit(layout.batches[2 * batch]!, items, batch),
    );
  }

  /**
   * The one loop over a part's batches, a list's or a wide object's: `where` says for each batch whether
   * to stop, skip it, take the items held in memory already, or read its bytes; `parse` takes a batch's
   * text (and may rule it out unparsed); `false` from either ends the reading, the answer being known.
   */
  private async eachBatch(
    layout: { readonly batches: readonly number[]; readonly end: number },
    readAhead: boolean,
    where: (batch: number) => "stop" | "skip" | { items: unknown[] } | { start: number; end: number },
    parse: (text: string, batch: number) => boolean | void,
    held?: (items: unknown[], batch: number) => boolean | void,
  ): Promise<BatchReading> {
    const pieces = new BatchPieces(this.read, layout.end, readAhead);
    let since = performance.now();
    for (let batch = 0; batch < layout.batches.length / 2; batch++) {
      // S21.4: batches already in memory come without yielding between them (a million rows
      // filtered held it 100-220 ms): the reading yields between two batches once it has held the thread
      // YIELD_AFTER_MS
      if (performance.now() - since >= YIELD_AFTER_MS) {
        await yieldToLoop();
        since = performance.now();
      }
      const at = where(batch);
      if (at === "stop") break;
      if (at === "skip") continue;
      if ("items" in at) {
        if (held!(at.items, batch) === false) return "read";
        continue;
      }
      const text = await pieces.text(at.start, at.end);
      if (text === "lost" || text === "unavailable") return this.ended(text);
      if (parse(text, batch) === false) return "read";
    }
    return "read";
  }

  /**
   * Hands the pieces holding batches of `list` with items `from` to `to - 1` to `take`, in order, each with
   * the batches that end in it (`forEachPiece`), and says how the reading ended.
   */
  async forEachPiece(
    list: number,
    window: { from?: number; to?: number },
    take: (piece: BatchPiece) => Promise<boolean | void>,
  ): Promise<BatchReading> {
    const reading = await forEachPiece(this.read, list, window, take);
    return reading === "read" ? reading : this.ended(reading);
  }

  /** A reading that failed: a piece lost makes the whole handle read as not found (S8.5). */
  private ended(reading: Exclude<BatchReading, "read">): Exclude<BatchReading, "read"> {
    if (reading === "lost") this.lost();
    return reading;
  }
}

/** Per container of `root` holding a list or a wide object at one of its keys: which part at which key. */
function placesOf(
  root: unknown,
  lists: readonly ListSummary[],
  objects: readonly ObjectSummary[],
): Map<object, Map<string | number, BatchedPart>> {
  const places = new Map<object, Map<string | number, BatchedPart>>();
  const note = (path: readonly string[], part: BatchedPart) => {
    if (path.length === 0) return; // a root list or object is streamed as the one part, never found in a walk
    const container = valueAt(root, path.slice(0, -1));
    if (container === null || typeof container !== "object" || !Object.hasOwn(container, path[path.length - 1]!))
      return;
    let keys = places.get(container);
    if (!keys) places.set(container, (keys = new Map()));
    keys.set(path[path.length - 1]!, part);
  };
  lists.forEach(({ path }, list) => note(path, { list }));
  objects.forEach(({ path }, object) => note(path, { object }));
  return places;
}

/** The value at `path` in `root` (reading only; `placeAt` is what writes a part there). */
function valueAt(root: unknown, path: readonly string[]): unknown {
  let at = root;
  for (const key of path) {
    if (at === null || typeof at !== "object" || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}
