/**
 * One read answer as the records serve it to a query (S8.5, S14.6): the query pulls, the records never call
 * back. The store opens it (`ResultHandleStore.open`: the answer's main record, whole or its index); the query
 * then asks for the parts it needs: everything, everything outside the indexed parts, a window of a list's
 * items, of a long string's characters or of a wide object's keys, a wide object's members by name, or a summary
 * (each read once, kept in the answer's state). An indexed list (or a wide object, S16.4) is read batch by
 * batch: a filter, a wildcard or a search over it reads every item once, but holds at most a few pieces and one
 * batch of it at a time. Each batch is handed out as its JSON text, parsed only when the query asks (`items()`,
 * `members()`) and then dropped: its items die young (a 10 MB answer parsed whole is 13 MB of heap the collector
 * promotes and copies; in batches it is garbage the scavenger drops), and nothing is added to the cache. A query
 * that knows from a batch's text alone that nothing in it can match (a filter naming a string, a search for
 * ASCII text) skips it unparsed. The pieces under a list are also handed out whole, for the batch workers
 * (`pieces`).
 */
import type { ListSummary, ObjectSummary, StringSummary } from "../format/answer-index.js";
import { batchAt, byteSpan, partJsonBytes } from "../format/layout.js";
import type { ListLayout } from "../format/serialize.js";
import { MISSING, parseRead, ReadFailed, type AnswerRead } from "./answer-state.js";
import { readChars, readItems, readOutside, readSummary, readWhole } from "./read-parts.js";
import { readMembers, readNamed } from "./object-members.js";
import { BatchPieces } from "./pieces.js";
import { handOver, type BatchPiece } from "./handover.js";
import { shouldYieldSince, yieldToLoop } from "../../util/yield.js";

export type { BatchPiece } from "./handover.js";
export { ReadFailed } from "./answer-state.js";

/** One batch of a list's items, as read. */
interface ListBatch {
  /** Its number in the list. */
  readonly batch: number;
  /** Its first item's index in the list. */
  readonly first: number;
  /** Its JSON text (items joined by commas); undefined when a slice read before holds its items in memory. */
  readonly text: string | undefined;
  /** Its items: parsed from `text` (the parse charged to the call, S21.1), or those held. */
  items(): unknown[];
}

/** One batch of a wide object's members, as read (S16.4). */
interface MemberBatch {
  /** Its number in the object. */
  readonly batch: number;
  /** Its JSON text: members `"key":value` joined by commas. */
  readonly text: string;
  /**
   * Its members as one object, parsed from `{` + text + `}` (charged): its keys in the object's own order (the
   * order they were written in, which `Object.keys` of the whole object lists: array indexes first, and a
   * batch's own come first in it too).
   */
  members(): Record<string, unknown>;
}

/**
 * A part of the answer read batch by batch: an indexed list (item batches) or a wide object (member batches, S16.4).
 */
export type BatchedPart = { readonly list: number } | { readonly object: number };

/**
 * One answer as read for one call. Every read answers the value as far as read (the root: other parts may be
 * missing), or throws `ReadFailed` when a piece is missing, expired or tampered: the whole handle then reads
 * as not found (S8.5), and is no longer kept. An answer stored (or kept) whole answers every read with the
 * whole value.
 */
export class AnswerReader {
  constructor(
    private readonly read: AnswerRead,
    /** The store's own: the answer dropped from memory (a piece lost), or what it holds there grown. */
    private readonly kept: { readonly lost: () => void; readonly grown: () => void },
  ) {}

  /**
   * Everything outside the lists' items and wide objects' members as `outside` last read it (placeholders
   * at their paths), or undefined before: where a reading in batches finds the parts (`partAt`).
   */
  root: unknown;

  /** When the handle expires (epoch milliseconds, S15.4). */
  get expiresAt(): number {
    return this.read.state.expiresAt;
  }

  /** The answer, when it is stored whole or kept whole in memory: every read answers it. */
  get whole(): { readonly value: unknown } | undefined {
    return this.read.state.whole;
  }

  /** The indexed lists: where, and how long (none when whole). */
  get lists(): readonly ListSummary[] {
    return this.read.state.index?.lists ?? [];
  }

  /** The long strings (S16.4; none when whole). */
  get strings(): readonly StringSummary[] {
    return this.read.state.index?.strings ?? [];
  }

  /** The wide objects (S16.4; none when whole). */
  get objects(): readonly ObjectSummary[] {
    return this.read.state.index?.objects ?? [];
  }

  /** The whole answer: every piece, parsed as one answer (in parts, yielding between them). */
  all(): Promise<unknown> {
    return this.serve(() => readWhole(this.read));
  }

  /**
   * Everything but the items of the indexed lists, the characters of the long strings and the members of
   * the wide objects, which read as empty (or as far as read): `$.total` beside `rows` reads the pieces
   * around them, not those inside.
   */
  async outside(): Promise<unknown> {
    return (this.root = await this.serve(() => readOutside(this.read)));
  }

  /** Items `from` to `to - 1` of `list`. */
  items(list: number, from: number, to: number): Promise<unknown> {
    return this.serve(() => readItems(this.read, list, from, to));
  }

  /** Characters `from` to `to - 1` of long string `string` (S16.4), as a `PiecedString`. */
  chars(string: number, from: number, to: number): Promise<unknown> {
    return this.serve(() => readChars(this.read, string, from, to));
  }

  /** Members `from` to `to - 1` (in key order, S7.4) of wide object `object` (S16.4), as a `PiecedObject`. */
  members(object: number, from: number, to: number): Promise<unknown> {
    return this.serve(() => readMembers(this.read, object, from, to));
  }

  /**
   * The members `keys` of wide object `object` (a name step, or `fields`): the batches that may hold them;
   * when it has none of them, also those of its first keys and of keys one edit away, for the refusal (S14.5).
   */
  named(object: number, keys: readonly string[]): Promise<unknown> {
    return this.serve(() => readNamed(this.read, object, keys));
  }

  /**
   * A summary (S16.4): everything outside, each list, long string and wide object standing in at its whole
   * length and JSON size with its first `bytes` read; good only for building a refusal (S14.5).
   */
  summary(bytes: number): Promise<unknown> {
    return this.serve(() => readSummary(this.read, bytes));
  }

  private async serve(reading: () => Promise<unknown>): Promise<unknown> {
    if (this.read.state.whole) return this.read.state.whole.value;
    const value = await reading();
    if (value === MISSING) {
      this.kept.lost();
      throw new ReadFailed("lost");
    }
    this.kept.grown();
    return value;
  }

  /**
   * What reading the answer whole takes, from the index alone: the bytes decrypted (every piece) and at least the
   * characters parsed (a piece of ASCII text is as many characters as bytes, any other at least a third); undefined
   * when it is held whole already (nothing more is read).
   */
  wholeRead(): { decrypted: number; parsed: number } | undefined {
    const { whole, index } = this.read.state;
    if (whole || !index) return undefined;
    let decrypted = 0;
    let parsed = 0;
    index.pieces.forEach((bytes, piece) => {
      decrypted += bytes;
      parsed += index.ascii[piece] === 1 ? bytes : Math.ceil(bytes / 3);
    });
    return { decrypted, parsed };
  }

  /** How many batches a list (or a wide object) is stored in, and the bytes of its JSON. */
  sizeOf(part: BatchedPart): { batches: number; bytes: number } {
    const layout = this.layoutOf(part);
    return { batches: layout.batches.length / 2, bytes: partJsonBytes(layout.batches, layout.end) };
  }

  /**
   * The list or wide object standing at `key` of `container` (an object of `root`), if one does. Told by
   * place, not by the value there: `root` is the answer's shared state, and a slice of a list (or a window
   * of a wide object's keys) read while this reading runs puts what it read at the part's place
   * (`placeAt`), where the reading must still read the whole part. The containers on the way
   * are never replaced, only that key.
   */
  partAt(container: object, key: string | number): BatchedPart | undefined {
    this.places ??= placesOf(this.root, this.lists, this.objects);
    return this.places.get(container)?.get(key);
  }
  private places?: Map<object, Map<string | number, BatchedPart>>;

  /**
   * The batches of `list` holding items `from` to `to - 1`, in order; with `only`, just the batches of those
   * numbers (the others are not even fetched, nor is anything fetched ahead). Leaving the loop ends the
   * reading; a piece that cannot be read throws `ReadFailed`.
   */
  async *batches(
    list: number,
    { from = 0, to = Number.MAX_SAFE_INTEGER, only }: { from?: number; to?: number; only?: ReadonlySet<number> } = {},
  ): AsyncGenerator<ListBatch, void, undefined> {
    const layout = this.read.state.index!.lists[list]!;
    const held = this.read.state.lists.get(list); // batches a slice read before are in memory already
    const pieces = new BatchPieces(this.read, layout.end, !only); // a few batches wanted: none fetched ahead
    let since = performance.now();
    for (let batch = 0; batch < layout.batches.length / 2; batch++) {
      // S21.4: batches already in memory come without yielding between them (a million rows
      // filtered held it 100-220 ms): the reading yields between two batches once it has held the thread
      // YIELD_AFTER_MS (the query's work on each batch included: it runs while the reading waits)
      if (shouldYieldSince(since)) {
        await yieldToLoop();
        since = performance.now();
      }
      const { first, last, start, end } = batchAt(layout, batch);
      if (first >= to) return;
      if (last <= from || (only && !only.has(batch))) continue;
      if (held?.loaded[batch]) {
        const items = held.items.slice(first, last);
        yield { batch, first, text: undefined, items: () => items };
        continue;
      }
      const text = await this.text(pieces, start, end);
      yield { batch, first, text, items: () => parseRead(this.read, `[${text}]`) as unknown[] };
    }
  }

  /**
   * The member batches of wide object `object`, in key order (S16.4), as `batches` reads a list's; with `only`, just
   * the batches of those numbers (nothing fetched ahead).
   */
  async *memberBatches(
    object: number,
    { only }: { only?: ReadonlySet<number> } = {},
  ): AsyncGenerator<MemberBatch, void, undefined> {
    const layout = this.read.state.index!.objects[object]!;
    const pieces = new BatchPieces(this.read, layout.end, !only);
    let since = performance.now();
    for (let batch = 0; batch < layout.batches.length / 2; batch++) {
      if (only && !only.has(batch)) continue;
      if (shouldYieldSince(since)) {
        await yieldToLoop(); // as `batches` does (S21.4)
        since = performance.now();
      }
      const { start, end } = byteSpan(layout.batches, layout.end, batch, batch + 1, 1);
      const text = await this.text(pieces, start, end);
      yield { batch, text, members: () => parseRead(this.read, `{${text}}`) as Record<string, unknown> };
    }
  }

  /**
   * The pieces holding batches of a list with items `from` to `to - 1` (or of a wide object, S26.1), whole, in
   * order, each with the batches that end in it (`handOver`): what a batch worker is handed (S14.6).
   */
  async *pieces(
    part: BatchedPart,
    window: { from?: number; to?: number },
  ): AsyncGenerator<BatchPiece, void, undefined> {
    try {
      yield* handOver(this.read, this.layoutOf(part), window);
    } catch (error) {
      throw this.failed(error);
    }
  }

  private layoutOf(part: BatchedPart): ListLayout {
    const index = this.read.state.index!;
    return "list" in part ? index.lists[part.list]! : index.objects[part.object]!;
  }

  /** The text of one batch, or the reading's end when a piece cannot be read. */
  private async text(pieces: BatchPieces, start: number, end: number): Promise<string> {
    const text = await pieces.text(start, end);
    if (text === "lost" || text === "unavailable") throw this.failed(new ReadFailed(text));
    return text;
  }

  /** A reading that failed: a piece lost makes the whole handle read as not found (S8.5). */
  private failed(error: unknown): unknown {
    if (error instanceof ReadFailed && error.reason === "lost") this.kept.lost();
    return error;
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
