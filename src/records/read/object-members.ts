/**
 * Reading the members of a wide object of a pieced answer (S16.4, S8.5): only the batches a window of its
 * keys touches, or those that may hold a key by name, are fetched, parsed (one `JSON.parse` per run of
 * batches) and kept in the object's `PiecedObject`, which stands in the root at the object's path.
 */
import { MISSING, parseRead, placeAt, readRanges, type AnswerRead } from "./answer-state.js";
import { piecesOf } from "../format/answer-index.js";
import { batchesFor } from "../format/object-layout.js";
import { byteSpan, partJsonBytes, unitStarts } from "../format/layout.js";
import { PiecedObject } from "./pieced-object.js";
import { oneEditVariants } from "../../util/one-edit.js";
import { setKnownJsonSize } from "../../util/size.js";
import { shouldYieldSince, yieldToLoop } from "../../util/yield.js";
import { RUN_BATCHES, SIFTED_RUNS, NAMES_LOOKED_UP } from "../../defaults.js";

/**
 * Batches read beyond a missing key's own for the hint's names one edit away (S14.5): the hint's work stays bounded.
 */
const HINT_BATCHES = 8;
/** A refusal lists an object's first 20 keys, and a few more tell it has more (the refusals' `KEYS_LISTED`). */
const LISTED_KEYS = 21;
/** The hint for `fields` that name no key looks at the first 5 fields (`checkFieldsFound`). */
const HINTED = 5;

/** The object's stand-in in the root, made on first use. */
function piecedOf(read: AnswerRead, object: number): PiecedObject | undefined {
  const { state } = read;
  const layout = state.index!.objects[object];
  if (!layout) return undefined;
  let pieced = state.objects.get(object);
  if (!pieced) {
    pieced = new PiecedObject(layout.length, unitStarts(layout.batches), (name) => batchesFor(layout, name));
    setKnownJsonSize(pieced, partJsonBytes(layout.batches, layout.end)); // a summary measures it whole (S16.4)
    state.objects.set(object, pieced);
    state.root = placeAt(state.root, layout.path, pieced);
    // and its filters once decoded (S16.3)
    if (state.counted) state.bytes += pieced.heapBytes + ((layout.bloom?.length ?? 0) * 3) / 4;
  }
  return pieced;
}

/**
 * Reads the given batches not read yet into `pieced`, each run of adjacent ones as one range, at most `RUN_BATCHES`
 * batches a range; false when a piece is missing.
 */
async function readBatches(
  read: AnswerRead,
  object: number,
  pieced: PiecedObject,
  batches: Iterable<number>,
): Promise<boolean> {
  const runs = batchRuns([...new Set(batches)].filter((batch) => !pieced.has(batch)).sort((a, b) => a - b));
  return readRuns(read, object, pieced, runs, { runsPerTurn: runs.length }, (text, first, end) => {
    // reads beside this one (the state is shared) may have read some of its batches meanwhile, not all of them
    if (range(first, end).every((batch) => pieced.has(batch))) return;
    const members = parseRead(read, `{${text}}`) as Record<string, unknown>;
    pieced.fill(first, end, members, read.state.counted ? read.estimate(members) : 0);
  });
}

/**
 * Every batch not read, sifted for `names` (`PiecedObject.sift`): read `SIFTED_RUNS` runs at a time (a million
 * members were 15 MB decoded in one piece), yielding before each turn; false when a piece is missing.
 */
async function siftBatches(
  read: AnswerRead,
  object: number,
  pieced: PiecedObject,
  names: readonly string[],
): Promise<boolean> {
  const runs = batchRuns(range(0, pieced.batchCount).filter((batch) => !pieced.has(batch)));
  let wanted: Set<string> | undefined;
  const sifted = await readRuns(read, object, pieced, runs, { runsPerTurn: SIFTED_RUNS, yieldFirst: true }, (text) => {
    wanted ??= new Set(names); // once the call's arguments have had their turn
    pieced.sift(parseRead(read, `{${text}}`) as Record<string, unknown>, wanted, text.length);
  });
  if (!sifted) return false;
  pieced.sifted(wanted ?? new Set(names));
  return true;
}

/**
 * The runs of batches `runs` ([first, past) each) of wide object `object` (`pieced`), read `runsPerTurn` runs a
 * turn (a turn's pieces decrypted and decoded together, a piece shared by two turns opened once), each run's text
 * handed to `step` alone, what `pieced` holds then counted against the read (S16.3). S26.1: the runs are parsed
 * one at a time, yielding once the read has held the thread `YIELD_AFTER_MS` (100,000 `fields` read every batch of
 * a million keys as one run: one `JSON.parse` held the thread 0.2-0.4 s), and before each turn when `yieldFirst`
 * (what came before, the call's arguments or the last turn, has had the thread). False when a piece is missing.
 */
async function readRuns(
  read: AnswerRead,
  object: number,
  pieced: PiecedObject,
  runs: readonly [number, number][],
  { runsPerTurn, yieldFirst = false }: { runsPerTurn: number; yieldFirst?: boolean },
  step: (text: string, first: number, past: number) => void,
): Promise<boolean> {
  const layout = read.state.index!.objects[object]!;
  const opened = new Map<number, Promise<Uint8Array | typeof MISSING>>();
  for (let turn = 0; turn < runs.length; turn += runsPerTurn) {
    if (yieldFirst) await yieldToLoop();
    const turnRuns = runs.slice(turn, turn + runsPerTurn);
    const ranges = turnRuns.map(([first, past]) => {
      const { start, end } = byteSpan(layout.batches, layout.end, first, past, 1);
      return piecesOf(read.state.index!, start, end);
    });
    const texts = await readRanges(read, ranges.flat(), opened); // each piece opened once, whatever the runs in it
    if (texts === MISSING) return false;
    const last = ranges[ranges.length - 1]!;
    for (const piece of opened.keys()) if (piece < last[last.length - 1]!.piece) opened.delete(piece); // done with
    let at = 0;
    let since = performance.now();
    for (let run = 0; run < turnRuns.length; run++) {
      if (shouldYieldSince(since)) {
        await yieldToLoop();
        since = performance.now();
      }
      const text = texts.slice(at, at + ranges[run]!.length).join("");
      at += ranges[run]!.length;
      const before = pieced.heapBytes;
      step(text, ...turnRuns[run]!);
      if (read.state.counted) read.state.bytes += pieced.heapBytes - before;
    }
  }
  return true;
}

/** Batches (ascending) as runs of adjacent ones, [first, past), each of `RUN_BATCHES` at most. */
function batchRuns(batches: readonly number[]): [number, number][] {
  const runs: [number, number][] = [];
  for (const batch of batches) {
    const last = runs[runs.length - 1];
    if (last && last[1] === batch && last[1] - last[0] < RUN_BATCHES) last[1]++;
    else runs.push([batch, batch + 1]);
  }
  return runs;
}

/** Members `from` to `to - 1` of one wide object, in the root as far as read. */
export async function readMembers(read: AnswerRead, object: number, from: number, to: number): Promise<unknown> {
  const pieced = piecedOf(read, object);
  if (!pieced) return MISSING;
  const root = read.state.root; // a concurrent whole read may reset the state meanwhile
  if (from < to && from < pieced.size) {
    const [first, end] = pieced.batchesOf(from, to);
    if (!(await readBatches(read, object, pieced, range(first, end)))) return MISSING;
  }
  return root;
}

/**
 * The members `keys` of one wide object (a name step, or `fields`): the batches that may hold them. When it
 * has none of them, the refusal names the object's first keys and the nearest key (S14.5): the batches of
 * its first keys are read too, and for the first HINTED names, the batches that may hold the names one
 * edit away, in the order the hint tries them, until one is a key or HINT_BATCHES are read in all.
 */
export async function readNamed(read: AnswerRead, object: number, keys: readonly string[]): Promise<unknown> {
  const pieced = piecedOf(read, object);
  if (!pieced) return MISSING;
  const root = read.state.root;
  const found =
    keys.length > NAMES_LOOKED_UP
      ? pieced.siftedFor(keys) || (await siftBatches(read, object, pieced, keys))
      : await readBatches(
          read,
          object,
          pieced,
          keys.flatMap((key) => pieced.candidates(key)),
        );
  if (!found) return MISSING;
  if (keys.some((key) => pieced.knows(key)) || pieced.size === 0) return root;
  if (!(await readBatches(read, object, pieced, range(...pieced.batchesOf(0, LISTED_KEYS))))) return MISSING;
  let allowance = HINT_BATCHES;
  for (const key of keys.slice(0, HINTED)) {
    for (const variant of oneEditVariants(key)) {
      if (variant === key) continue;
      if (pieced.knows(variant)) return root;
      const unread = pieced.candidates(variant).filter((batch) => !pieced.has(batch));
      if (unread.length === 0) continue;
      if (unread.length > allowance) return root;
      allowance -= unread.length;
      if (!(await readBatches(read, object, pieced, unread))) return MISSING;
      if (pieced.knows(variant)) return root;
    }
  }
  return root;
}

function range(first: number, end: number): number[] {
  return Array.from({ length: end - first }, (_, i) => first + i);
}
