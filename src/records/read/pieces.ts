/**
 * The pieces under a part read batch by batch (S14.6): a list's item batches or a wide object's member
 * batches (S16.4; `AnswerReader.batches` and `memberBatches`) are read in order, each batch's text decoded
 * from the pieces it spans. Each piece is opened once, the next one fetched while a batch is parsed (a remote
 * store's round trips overlap the parsing), and the pieces read past are let go, so a reading holds a piece
 * or two whatever the part's size. A reading yields to the loop between batches at least every YIELD_AFTER_MS
 * (S14.3, S21.4; measured: 1 ms a yield in Node, 2-3% of a reading at 40 ms, so a batch's work on top stays near
 * 50 ms): pieces read from memory and decrypted synchronously (the Node crypto backend) never yield on their own,
 * and a search walking every batch of a 28 MB object held the loop for 0.8 s.
 */
import { piecesOf } from "../format/answer-index.js";
import { MISSING, openPieceOf, type AnswerRead } from "./answer-state.js";
import { decodeUtf8 } from "../../util/utf8.js";
import { shouldYieldSince, yieldToLoop } from "../../util/yield.js";
import { ResultQueryError } from "../../errors.js";

/**
 * Pieces fetched ahead of the one being parsed (more in flight measured slower on Redis: the replies are read on this
 * thread anyway).
 */
const PIECES_AHEAD = 1;
/**
 * How a reading ended: read (to the end, or as far as the visit wanted), a piece lost (missing, expired or
 * tampered: the handle reads as not found, S8.5), or the storage failing (the call may be tried again).
 */
type BatchReading = "read" | "lost" | "unavailable";

/**
 * A piece that failed to open: the storage failed (S9.1), and the call may be tried again; but the meter's
 * refusal, charged as the piece is opened (`charge`), is the call's answer (S21.1): thrown on, so the model
 * reads what cost most and a narrower call, not "try again".
 */
function storageFailed(error: unknown): "unavailable" {
  if (error instanceof ResultQueryError) throw error;
  return "unavailable";
}

export class BatchPieces {
  private readonly pieces = new Map<number, Promise<Uint8Array | typeof MISSING>>();
  private readonly lastPiece: number;
  private since = performance.now();

  /**
   * `end`: the byte offset just past the part's last batch (no piece past it is fetched ahead); `ahead`:
   * whether the next pieces are fetched meanwhile (not when only a few batches are wanted).
   */
  constructor(
    private readonly read: AnswerRead,
    end: number,
    private readonly ahead = true,
  ) {
    this.lastPiece = piecesOf(read.state.index!, end - 1, end)[0]?.piece ?? 0;
  }

  /**
   * One piece's plaintext (padding included), the caller's own (it may move it to another thread), or how the reading
   * failed.
   */
  async bytes(piece: number): Promise<Uint8Array | Exclude<BatchReading, "read">> {
    this.letGo(piece, piece);
    const opened = this.open(piece); // fetched ahead already, most often
    this.pieces.delete(piece); // handed on whole, so never asked for again: not kept
    try {
      const bytes = await opened;
      return bytes === MISSING ? "lost" : bytes;
    } catch (error) {
      return storageFailed(error);
    }
  }

  /**
   * The text of bytes `start` to `end - 1` (one batch), or how the reading failed (a word no batch's JSON
   * text can be). Batches are asked for in order.
   */
  async text(start: number, end: number): Promise<string | Exclude<BatchReading, "read">> {
    if (shouldYieldSince(this.since)) {
      await yieldToLoop();
      this.since = performance.now();
    }
    const index = this.read.state.index!;
    const parts = piecesOf(index, start, end);
    this.letGo(parts[0]!.piece, parts[parts.length - 1]!.piece);
    const texts: string[] = [];
    for (const { piece, from, to } of parts) {
      let bytes: Uint8Array | typeof MISSING;
      try {
        bytes = await this.open(piece);
      } catch (error) {
        return storageFailed(error);
      }
      if (bytes === MISSING) return "lost";
      texts.push(decodeUtf8(bytes.subarray(from, to), index.ascii[piece] === 1));
    }
    return texts.length === 1 ? texts[0]! : texts.join("");
  }

  /**
   * Lets the pieces before `first` go (read past), and fetches those after `reached` meanwhile; a failure of one
   * fetched ahead is met when it is awaited.
   */
  private letGo(first: number, reached: number): void {
    for (const piece of this.pieces.keys()) if (piece < first) this.pieces.delete(piece);
    if (!this.ahead) return;
    for (let ahead = reached + 1; ahead <= Math.min(this.lastPiece, reached + PIECES_AHEAD); ahead++)
      this.open(ahead).catch(() => {});
  }

  private open(piece: number): Promise<Uint8Array | typeof MISSING> {
    let opened = this.pieces.get(piece);
    if (!opened) this.pieces.set(piece, (opened = openPieceOf(this.read, piece)));
    return opened;
  }
}
