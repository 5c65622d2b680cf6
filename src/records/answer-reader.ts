/**
 * Reading an answer stored in pieces (S8.5): only the pieces a selection touches are fetched and
 * decrypted, each checked against what its index expects (a missing, expired or tampered piece makes the
 * whole handle read as not found). What is read is kept in the answer's state, which `readShared` may
 * keep in memory for the next query (recent-answers.ts), counting what it holds (S16.3).
 */
import { itemSpan, pieceSeal, piecesOf, type AnswerIndex, type Selection } from "./answer-index.js";
import type { AnswerKeys } from "./crypto/keys.js";
import { openPiece, paddedPieceLength, pieceHeader } from "./format.js";
import { listSlotsBytes } from "./heap-size.js";
import { hasOwn, setOwn, type JsonObject } from "../util/json.js";
import type { NamespacedStorage } from "../storage/types.js";
import { decodeUtf8 } from "../util/size.js";

/** An answer as far as `readShared` has read it: whole, or its index and the parts read so far. */
export interface AnswerState {
  expiresAt: number;
  whole?: { value: unknown };
  index?: AnswerIndex;
  /** Per list: its items as read so far (holes elsewhere) and which batches are in. */
  lists: Map<number, { items: unknown[]; loaded: Uint8Array }>;
  /** The root as far as read: the list itself, or an object holding the lists read so far. */
  root?: unknown;
  /** Whether everything outside the indexed lists' items is in `root` (selection "outside"). */
  outside?: boolean;
  /** Whether it is kept in memory (readShared), and so counts what it holds (S16.3). */
  counted: boolean;
  /** What it holds in memory, estimated (heap-size.ts): the index's part, and everything. */
  indexBytes: number;
  bytes: number;
}

export const MISSING = Symbol("missing record");

/** What reading one answer needs. */
export interface AnswerRead {
  readonly storage: NamespacedStorage;
  readonly keys: AnswerKeys;
  readonly state: AnswerState;
  readonly now: number;
  /** What a parsed value holds in memory (heap-size.ts), as far as the cache could keep it. */
  estimate(value: unknown): number;
}

/** The value a selection needs (other parts may be missing), or MISSING when a piece is. */
export function readSelection(read: AnswerRead, selection: Exclude<Selection, "none">): Promise<unknown> {
  if (selection === "all") return readWhole(read);
  if (selection === "outside") return readOutside(read);
  return readItems(read, selection.list, selection.from, selection.to);
}

/** Every piece, parsed as one answer. */
async function readWhole(read: AnswerRead): Promise<unknown> {
  const { state } = read;
  const index = state.index!;
  const texts = await readRanges(read, index.pieces.map((length, piece) => ({ piece, from: 0, to: length })));
  if (texts === MISSING) return MISSING;
  const value = JSON.parse(texts.join("")) as unknown;
  state.whole = { value };
  state.lists.clear();
  state.root = undefined;
  state.outside = false;
  if (state.counted) state.bytes = state.indexBytes + read.estimate(value);
  return value;
}

/**
 * Everything but the items of the indexed lists, which read as empty (or as far as read): a query whose
 * path stays outside every list (`$.total` beside `rows`) reads the pieces around the lists, not those
 * inside them, and parses only that. Items of lists read before or after are placed in the same root.
 */
async function readOutside(read: AnswerRead): Promise<unknown> {
  const { state } = read;
  if (state.outside) return state.root;
  const index = state.index!;
  const total = index.pieces.reduce((sum, length) => sum + length, 0);
  const kept: { start: number; end: number }[] = [];
  let at = 0;
  for (const list of index.lists) {
    if (list.batches.length === 0) continue; // an empty list: nothing to leave out
    kept.push({ start: at, end: list.batches[1]! });
    at = list.end;
  }
  kept.push({ start: at, end: total });
  const texts = await readRanges(read, kept.flatMap(({ start, end }) => (end > start ? piecesOf(index, start, end) : [])));
  if (texts === MISSING) return MISSING;
  const skeleton = JSON.parse(texts.join("")) as unknown;
  let root = skeleton;
  for (const [list, { items }] of state.lists) root = withList(root, index.lists[list]!.path, items);
  state.root = root;
  state.outside = true;
  if (state.counted) state.bytes += read.estimate(skeleton);
  return root;
}

/** Items `from` to `to - 1` of one list, in the root as far as read (other items and keys may be missing). */
async function readItems(read: AnswerRead, list: number, from: number, to: number): Promise<unknown> {
  const { state } = read;
  const index = state.index!;
  const layout = index.lists[list];
  if (!layout) return MISSING;
  let held = state.lists.get(list);
  if (!held) {
    held = { items: new Array<unknown>(layout.length), loaded: new Uint8Array(layout.batches.length / 2) };
    state.lists.set(list, held);
    state.root = withList(state.root, layout.path, held.items);
    if (state.counted) state.bytes += listSlotsBytes(layout.length) + held.loaded.byteLength;
  }
  const root = state.root; // a concurrent whole read may reset the state meanwhile
  const span = itemSpan(layout, Math.max(0, from), Math.min(layout.length, to));
  if (span && held.loaded.subarray(span.firstBatch, span.endBatch).includes(0)) {
    const texts = await readRanges(read, piecesOf(index, span.start, span.end));
    if (texts === MISSING) return MISSING;
    const items = JSON.parse(`[${texts.join("")}]`) as unknown[];
    for (let i = 0; i < items.length; i++) held.items[span.firstItem + i] = items[i];
    held.loaded.fill(1, span.firstBatch, span.endBatch);
    if (state.counted) state.bytes += read.estimate(items) - listSlotsBytes(items.length); // its slots are in held.items
  }
  return root;
}

/**
 * Decrypts the pieces the ranges touch, each once however many ranges it holds (checking each is the
 * piece the index expects), and decodes the ranges.
 */
async function readRanges(read: AnswerRead, ranges: { piece: number; from: number; to: number }[]): Promise<string[] | typeof MISSING> {
  const { keys, state, now } = read;
  const index = state.index!;
  const opened = new Map<number, Promise<Uint8Array | typeof MISSING>>();
  const open = async (piece: number): Promise<Uint8Array | typeof MISSING> => {
    const key = await keys.pieceKey(piece);
    if (!(state.expiresAt > now)) return MISSING; // an index kept in memory must not outlive its answer
    const record = await read.storage.get(key);
    if (!record) return MISSING;
    const header = pieceHeader(state.expiresAt, piece, index.pieces.length, index.ascii[piece] === 1);
    const plaintext = await openPiece(keys, key, header, pieceSeal(index, piece), record, index.nonce);
    return plaintext && plaintext.byteLength === paddedPieceLength(index.pieces[piece]!, index.pad) ? plaintext : MISSING;
  };
  const texts = await Promise.all(
    ranges.map(async ({ piece, from, to }) => {
      let plaintext = opened.get(piece);
      if (!plaintext) opened.set(piece, (plaintext = open(piece)));
      const bytes = await plaintext;
      return bytes === MISSING ? MISSING : decodeUtf8(bytes.subarray(from, to), index.ascii[piece] === 1); // ASCII flagged at seal time
    }),
  );
  return texts.includes(MISSING) ? MISSING : (texts as string[]);
}

/** The root as far as read, with `items` placed at `path` (objects created on the way). */
function withList(root: unknown, path: readonly string[], items: unknown[]): unknown {
  if (path.length === 0) return items;
  const top = (root ?? {}) as JsonObject;
  let at = top;
  for (const key of path.slice(0, -1)) {
    if (!hasOwn(at, key)) setOwn(at, key, {});
    at = at[key] as JsonObject;
  }
  setOwn(at, path[path.length - 1]!, items);
  return top;
}
