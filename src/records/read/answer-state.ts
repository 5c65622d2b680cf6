/**
 * What every reader of a pieced answer shares (S8.5): the answer's state as far as read, fetching and
 * decrypting the pieces a byte range touches, and placing a part read in the root. The readers of lists,
 * long strings (read-parts.ts) and wide objects (`readMembers`, `readNamed`, S16.4) build on it.
 */
import { boundCount, pieceSeal, type AnswerIndex } from "../format/answer-index.js";
import type { AnswerKeys } from "../crypto/keys.js";
import { openPiece, paddedPieceLength, pieceHeader } from "../format/format.js";
import type { PiecedString } from "./pieced-string.js";
import type { PiecedObject } from "./pieced-object.js";
import { hasOwn, setOwn, type JsonObject } from "../../util/json.js";
import type { NamespacedStorage } from "../../storage/types.js";
import { decodeUtf8 } from "../../util/utf8.js";

/** An answer as far as `readShared` has read it: whole, or its index and the parts read so far. */
export interface AnswerState {
  expiresAt: number;
  whole?: { value: unknown };
  index?: AnswerIndex;
  /** Per list: its items as read so far (holes elsewhere) and which batches are in. */
  lists: Map<number, { items: unknown[]; loaded: Uint8Array }>;
  /** Per long string: its characters as read so far (S16.4). */
  strings: Map<number, PiecedString>;
  /** Per wide object: its members as read so far (S16.4). */
  objects: Map<number, PiecedObject>;
  /** The root as far as read: the list or string itself, or an object holding the parts read so far. */
  root?: unknown;
  /** Whether everything outside the indexed lists' items and strings' characters is in `root` (selection "outside"). */
  outside?: boolean;
  /** Whether it is kept in memory (readShared), and so counts what it holds (S16.3). */
  counted: boolean;
  /** What it holds in memory, estimated (`heapEstimate`): the index's part, and everything. */
  indexBytes: number;
  bytes: number;
}

export const MISSING = Symbol("missing record");

/**
 * A reading of an answer's batches or pieces that could not go on (S14.6): a piece lost (missing, expired
 * or tampered: the whole handle reads as not found, S8.5), or the storage failing (the call may be tried
 * again, S9.1). What the reader throws; the query that pulls answers it as the refusal it names.
 */
export class ReadFailed extends Error {
  constructor(readonly reason: "lost" | "unavailable") {
    super(`the answer's pieces could not be read: ${reason}`);
  }
}

/**
 * What a read costs the call that asked for it (S21.1), told before the work is done: the bytes of each
 * piece about to be decrypted, the characters of each text about to be parsed. It may throw (the call's
 * cost meter, past its limit): the read then stops there, its state as it was. The records know no meter;
 * the query passes one in.
 */
export type ReadCharge = (kind: "decrypted" | "parsed", count: number) => void;

/** What reading one answer needs. */
export interface AnswerRead {
  readonly storage: NamespacedStorage;
  readonly keys: AnswerKeys;
  readonly state: AnswerState;
  readonly now: number;
  /**
   * What a parsed value holds in memory (`heapEstimate`), as far as the cache could keep it beside `counted` bytes
   * counted already.
   */
  estimate(value: unknown, counted?: number): number;
  /** The call's charge for what this read decrypts and parses, when it has one. */
  readonly charge?: ReadCharge;
}

/** `JSON.parse` of a text this read fetched, charged to the call first. */
export function parseRead(read: AnswerRead, text: string): unknown {
  read.charge?.("parsed", text.length);
  return JSON.parse(text) as unknown;
}

/**
 * Decrypts the pieces the ranges touch, each once however many ranges it holds (checking each is the
 * piece the index expects), and decodes the ranges. `opened`: pieces opened by an earlier call of the same
 * read, for ranges read in turns (the next turn's first piece is often the last one's).
 */
export async function readRanges(
  read: AnswerRead,
  ranges: { piece: number; from: number; to: number }[],
  opened = new Map<number, Promise<Uint8Array | typeof MISSING>>(),
): Promise<string[] | typeof MISSING> {
  const index = read.state.index!;
  const texts = await Promise.all(
    ranges.map(async ({ piece, from, to }) => {
      let plaintext = opened.get(piece);
      if (!plaintext) opened.set(piece, (plaintext = openPieceOf(read, piece)));
      const bytes = await plaintext;
      // ASCII flagged at seal time
      return bytes === MISSING ? MISSING : decodeUtf8(bytes.subarray(from, to), index.ascii[piece] === 1);
    }),
  );
  return texts.includes(MISSING) ? MISSING : (texts as string[]);
}

/** One piece's plaintext (padding included), checked to be the piece the index expects, or MISSING. */
export async function openPieceOf(read: AnswerRead, piece: number): Promise<Uint8Array | typeof MISSING> {
  const { keys, state, now } = read;
  const index = state.index!;
  read.charge?.("decrypted", index.pieces[piece]!); // every piece any reader opens, charged before it is fetched
  const key = await keys.pieceKey(piece);
  if (!(state.expiresAt > now)) return MISSING; // an index kept in memory must not outlive its answer
  const record = await read.storage.get(key);
  if (!record) return MISSING;
  const header = pieceHeader(state.expiresAt, piece, boundCount(index), index.ascii[piece] === 1);
  const plaintext = await openPiece(keys, key, header, pieceSeal(index, piece), record, index.nonce);
  return plaintext && plaintext.byteLength === paddedPieceLength(index.pieces[piece]!, index.pad) ? plaintext : MISSING;
}

/**
 * The root as far as read, with `part` (a list's items, a long string) placed at `path` (objects created on the way).
 */
export function placeAt(root: unknown, path: readonly string[], part: unknown): unknown {
  if (path.length === 0) return part;
  const top = (root ?? {}) as JsonObject;
  let at = top;
  for (const key of path.slice(0, -1)) {
    if (!hasOwn(at, key)) setOwn(at, key, {});
    at = at[key] as JsonObject;
  }
  setOwn(at, path[path.length - 1]!, part);
  return top;
}
