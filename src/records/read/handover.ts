/**
 * A list's (or a wide object's, S26.1) pieces handed whole to a reader elsewhere (a batch worker, S14.6): each
 * piece's plaintext with the byte ranges of the batches that end in it, in order. The piece is the receiver's to move
 * to another thread without copying; a batch begun in earlier pieces brings those bytes along as a copy (`head`),
 * taken before the piece they lie in is handed on.
 */
import { piecesOf } from "../format/answer-index.js";
import { ReadFailed, type AnswerRead } from "./answer-state.js";
import { BatchPieces } from "./pieces.js";
import { batchAt } from "../format/layout.js";
import type { ListLayout } from "../format/serialize.js";

export interface BatchPiece {
  readonly bytes: Uint8Array;
  /** Number (in the list or object) of the first batch here; the others follow in order. */
  readonly batch: number;
  /** Per batch: its first item (or member), and its byte range in `bytes`, three numbers each. */
  readonly ranges: number[];
  /** Per batch: whether its bytes here are ASCII. */
  readonly ascii: boolean[];
  /** The bytes the first batch began with in earlier pieces (a copy), if it did. */
  head?: Uint8Array;
}

/**
 * The pieces holding batches of a list (or a wide object: its layout is a list's and more) with items (members)
 * `from` to `to - 1`, in order. Pulled: the next piece
 * is fetched only when the one before has been taken, so a slow taker bounds what is read ahead, and
 * leaving the loop ends the reading. Batches a slice read before are read again (they are not moved out
 * of the cache). A piece that cannot be read throws `ReadFailed`.
 */
export async function* handOver(
  read: AnswerRead,
  layout: ListLayout,
  { from = 0, to = Number.MAX_SAFE_INTEGER }: { from?: number; to?: number },
): AsyncGenerator<BatchPiece, void, undefined> {
  const index = read.state.index!;
  const pieces = new BatchPieces(read, layout.end);
  let current: (BatchPiece & { piece: number }) | undefined;
  let head: Uint8Array[] = [];
  for (let batch = 0; batch < layout.batches.length / 2; batch++) {
    const { first, last, start, end } = batchAt(layout, batch);
    if (last <= from) continue;
    if (first >= to) break;
    const parts = piecesOf(index, start, end);
    for (const [at, { piece, from: begin, to: until }] of parts.entries()) {
      let bytes: Uint8Array;
      if (current?.piece === piece) bytes = current.bytes;
      else {
        if (current) yield current;
        current = undefined;
        const opened = await pieces.bytes(piece);
        if (typeof opened === "string") throw new ReadFailed(opened);
        bytes = opened;
      }
      if (at < parts.length - 1) {
        head.push(bytes.slice(begin, until)); // a copy: the piece itself goes on with the batches ending in it
        continue;
      }
      current ??= { piece, bytes, batch, ranges: [], ascii: [] };
      if (head.length > 0) current.head = joinBytes(head);
      head = [];
      current.ranges.push(first, begin, until);
      current.ascii.push(index.ascii[piece] === 1);
    }
  }
  if (current) yield current;
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
