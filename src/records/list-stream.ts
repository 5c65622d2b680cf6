/**
 * Reading an indexed list batch by batch (S14.6): a filter, a wildcard or a search over a list reads
 * every item once, but holds at most a few pieces and one batch of it at a time. Each batch is parsed on
 * its own, handed to the query and dropped: its items die young (a 10 MB answer parsed whole is 13 MB of
 * heap the collector promotes and copies; in batches it is garbage the scavenger drops), and nothing is
 * added to the cache. A batch may be skipped by its JSON text before it is parsed, when the query knows
 * from the text alone that nothing in it can match (a filter naming a string, a search for ASCII text).
 */
import type { ListSummary } from "./answer-index.js";
import type { ListLayout } from "./serialize.js";
import { piecesOf } from "./answer-index.js";
import { MISSING, openPieceOf, type AnswerRead } from "./answer-read.js";
import { decodeUtf8 } from "../util/size.js";

/** Pieces fetched ahead of the one being parsed (more in flight measured slower on Redis: the replies are read on this thread anyway). */
const PIECES_AHEAD = 1;

/**
 * How a reading ended: read (to the end, or as far as the visit wanted), a piece lost (missing, expired or
 * tampered: the handle reads as not found, S8.5), or the storage failing (the call may be tried again).
 */
export type BatchReading = "read" | "lost" | "unavailable";

export interface BatchVisit {
  /** First item to read (default 0) and the item to stop before (default the list's length). */
  from?: number;
  to?: number;
  /** Whether a batch, given its JSON text (items joined by commas), needs parsing at all. */
  admit?: (text: string) => boolean;
  /** Whether batch number `batch` is read at all (default: every batch); the others are not even fetched. */
  wants?: (batch: number) => boolean;
  /** Items `first` onwards of one batch (number `batch` of the list), in order; `false` stops the reading (the answer is known). */
  visit: (first: number, items: unknown[], batch: number) => boolean | void;
}

/**
 * One piece's share of a list's batches, handed whole to a reader elsewhere (a batch worker, S14.6): the
 * piece's plaintext, the receiver's to move without copying, and the batches that end in it.
 */
export interface BatchPiece {
  readonly bytes: Uint8Array;
  /** Number (in the list) of the first batch here; the others follow in order. */
  readonly batch: number;
  /** Per batch: its first item, and its byte range in `bytes`, three numbers each. */
  readonly ranges: number[];
  /** Per batch: whether its bytes here are ASCII. */
  readonly ascii: boolean[];
  /** The bytes the first batch began with in earlier pieces (a copy), if it did. */
  head?: Uint8Array;
}

/**
 * An answer whose lists are read batch by batch (Selection `{ stream }`): its root as far as read (the
 * parts outside the lists, for `{ stream: "all" }`; each list stands there as a placeholder) and the
 * lists' batches on demand. Reading a batch whose piece is missing, expired or tampered ends the reading
 * as "lost": the whole handle then reads as not found (S8.5).
 */
export class StreamedAnswer {
  constructor(
    private readonly read: AnswerRead,
    /** Everything outside the lists' items (placeholders at the lists' paths), or undefined when not read. */
    readonly root: unknown,
    /** The one list selected (`{ stream: list }`), or undefined when all are (`{ stream: "all" }`). */
    readonly list: number | undefined,
    private readonly lost: () => void,
  ) {}

  get lists(): readonly ListSummary[] {
    return this.read.state.index!.lists;
  }

  /** How many batches `list` is stored in, and the bytes of JSON they take. */
  sizeOf(list: number): { batches: number; bytes: number } {
    const layout = this.read.state.index!.lists[list]!;
    return { batches: layout.batches.length / 2, bytes: layout.end - (layout.batches[1] ?? layout.end) };
  }

  /**
   * The list standing at `key` of `container` (an object of `root`), if one does. Told by place, not by
   * the value there: `root` is the answer's shared state, and a slice of a list read while this stream
   * runs puts that list's items read so far at the list's place (answer-reader.ts `placeAt`), where the
   * stream must still read the whole list. The containers on the way are never replaced, only that key.
   */
  listAt(container: object, key: string | number): number | undefined {
    this.places ??= placesOf(this.root, this.lists);
    return this.places.get(container)?.get(key);
  }
  private places?: Map<object, Map<string | number, number>>;

  /** Reads the batches of `list` holding items `from` to `to - 1`, in order, and says how the reading ended. */
  async forEachBatch(list: number, { from = 0, to = Number.MAX_SAFE_INTEGER, admit, wants, visit }: BatchVisit): Promise<BatchReading> {
    const { state } = this.read;
    const index = state.index!;
    const layout = index.lists[list]!;
    const held = state.lists.get(list); // batches a slice read before are in memory already
    const pieces = new Pieces(this.read, layout);
    for (let batch = 0; batch < layout.batches.length / 2; batch++) {
      const { first, last, start, end } = batchAt(layout, batch);
      if (last <= from || (wants && !wants(batch))) continue;
      if (first >= to) break;
      if (held?.loaded[batch]) {
        if (visit(first, held.items.slice(first, last), batch) === false) return "read";
        continue;
      }
      const texts: string[] = [];
      for (const { piece, from: at, to: until } of piecesOf(index, start, end)) {
        const bytes = await pieces.get(piece, !wants); // a few batches wanted: none fetched ahead
        if (typeof bytes !== "object") return this.ended(bytes);
        texts.push(decodeUtf8(bytes.subarray(at, until), index.ascii[piece] === 1));
      }
      const text = texts.length === 1 ? texts[0]! : texts.join("");
      if (admit && !admit(text)) continue;
      if (visit(first, JSON.parse(`[${text}]`) as unknown[], batch) === false) return "read";
    }
    return "read";
  }

  /**
   * Hands the pieces holding batches of `list` with items `from` to `to - 1` to `take`, in order, each
   * with the batches that end in it, and says how the reading ended. `take` owns each piece it gets (it may
   * move it to another thread); its promise holds the next piece back, so a slow taker bounds what is read
   * ahead. The batches of a slice read before are read again (they are not moved from the cache).
   */
  async forEachPiece(list: number, { from = 0, to = Number.MAX_SAFE_INTEGER }: { from?: number; to?: number }, take: (piece: BatchPiece) => Promise<void>): Promise<BatchReading> {
    const index = this.read.state.index!;
    const layout = index.lists[list]!;
    const pieces = new Pieces(this.read, layout);
    let current: (BatchPiece & { piece: number }) | undefined;
    let head: Uint8Array[] = [];
    for (let batch = 0; batch < layout.batches.length / 2; batch++) {
      const { first, last, start, end } = batchAt(layout, batch);
      if (last <= from) continue;
      if (first >= to) break;
      const parts = piecesOf(index, start, end);
      for (const [at, { piece, from: begin, to: until }] of parts.entries()) {
        let bytes: Uint8Array | typeof MISSING | "unavailable";
        if (current?.piece === piece) bytes = current.bytes;
        else {
          if (current) await take(current);
          current = undefined;
          if (typeof (bytes = await pieces.get(piece)) !== "object") return this.ended(bytes);
        }
        if (at < parts.length - 1) {
          head.push(bytes.slice(begin, until)); // a copy: the piece itself goes to `take` with the batches ending in it
          continue;
        }
        current ??= { piece, bytes, batch, ranges: [], ascii: [] };
        if (head.length > 0) current.head = joinBytes(head);
        head = [];
        current.ranges.push(first, begin, until);
        current.ascii.push(index.ascii[piece] === 1);
      }
    }
    if (current) await take(current);
    return "read";
  }

  /** How a reading ends when a piece did not come: lost (the handle then reads as not found) or the storage failing. */
  private ended(missing: typeof MISSING | "unavailable"): Exclude<BatchReading, "read"> {
    if (missing === "unavailable") return missing; // the storage failed (S9.1); what the query's own code throws is not caught
    this.lost();
    return "lost";
  }
}

/**
 * One reading's pieces: each fetched and decrypted once, the next ones fetched meanwhile (a remote store's
 * round trips overlap the parsing; a failure is met when the piece is awaited), those read past let go.
 */
class Pieces {
  private readonly opened = new Map<number, Promise<Uint8Array | typeof MISSING>>();
  private readonly last: number;

  constructor(
    private readonly read: AnswerRead,
    layout: ListLayout,
  ) {
    this.last = piecesOf(read.state.index!, layout.end - 1, layout.end)[0]?.piece ?? 0;
  }

  /** The plaintext of `piece` (padding included), MISSING when lost, "unavailable" when the storage failed. */
  async get(piece: number, ahead = true): Promise<Uint8Array | typeof MISSING | "unavailable"> {
    for (const held of this.opened.keys()) if (held < piece) this.opened.delete(held);
    if (ahead) for (let next = piece + 1; next <= Math.min(this.last, piece + PIECES_AHEAD); next++) this.open(next).catch(() => {});
    try {
      return await this.open(piece);
    } catch {
      return "unavailable";
    }
  }

  private open(piece: number): Promise<Uint8Array | typeof MISSING> {
    let opened = this.opened.get(piece);
    if (!opened) this.opened.set(piece, (opened = openPieceOf(this.read, piece)));
    return opened;
  }
}

/** Batch `batch` of a list: its first item, the item past its last, and its JSON's bytes (before the comma, or before `]`). */
function batchAt(layout: ListLayout, batch: number): { first: number; last: number; start: number; end: number } {
  const next = batch + 1 < layout.batches.length / 2;
  return {
    first: layout.batches[2 * batch]!,
    last: next ? layout.batches[2 * batch + 2]! : layout.length,
    start: layout.batches[2 * batch + 1]!,
    end: next ? layout.batches[2 * batch + 3]! - 1 : layout.end,
  };
}

function joinBytes(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/** Per container of `root` holding a list at one of its keys: which list at which key. */
function placesOf(root: unknown, lists: readonly ListSummary[]): Map<object, Map<string | number, number>> {
  const places = new Map<object, Map<string | number, number>>();
  lists.forEach(({ path }, list) => {
    if (path.length === 0) return; // the root list is streamed as one list, never found in a walk
    const container = valueAt(root, path.slice(0, -1));
    if (container === null || typeof container !== "object" || !Object.hasOwn(container, path[path.length - 1]!)) return;
    let keys = places.get(container);
    if (!keys) places.set(container, (keys = new Map()));
    keys.set(path[path.length - 1]!, list);
  });
  return places;
}

/** The value at `path` in `root` (reading only; answer-reader.ts `placeAt` is what writes a part there). */
function valueAt(root: unknown, path: readonly string[]): unknown {
  let at = root;
  for (const key of path) {
    if (at === null || typeof at !== "object" || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}
