/**
 * Yielding to the event loop (S21.4): long work on the calling thread awaits `yieldToLoop` between its pieces
 * (`CostMeter.yieldToLoop`, the reads in parts, the fold's serialisation), and timers and I/O run before it goes on.
 *
 * Two things bound a hold when many calls run side by side, beside each call's own piece:
 * - The calls that yield take turns, one piece a turn of the loop (a macrotask each, first come first served). A
 *   timer of its own for each let the loop run every yielded call whose timer was due in one pass: twenty folds of
 *   1.4 MB side by side each did their piece back to back and held the loop 0.4–0.5 s at a time (S26.3).
 * - Work that starts in an I/O callback (a request that has just come in) yields at its first chance once the loop
 *   has been held LOOP_HOLD_MS since it last came round (`loopHeld`): twenty requests that came in together each
 *   serialised their answer whole (8 ms at 1.4 MB), one after another in one pass of the loop, 160 ms of work.
 */
import { LOOP_HOLD_MS } from "../defaults.js";

/** Waits for this call's turn of the event loop: its piece then runs, one a turn, in the order they yielded. */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!armed) arm();
  });
}

/**
 * Whether the loop has been held LOOP_HOLD_MS since it last came round, as far as work that asks sees: the first
 * ask after the loop came round starts the clock, and a timer, which runs only once the loop has come round, stops
 * it. Long work asks between its steps and yields when this says so, even within its own piece.
 */
export function loopHeld(): boolean {
  const now = performance.now();
  if (heldSince === undefined) startClock(now);
  return now - heldSince! >= LOOP_HOLD_MS;
}

/** When the loop was first seen held since it last came round (performance.now()). */
let heldSince: number | undefined;
/** Which clock the pending timer stops: a turn starts a clock of its own. */
let clock = 0;

function startClock(now: number): void {
  heldSince = now;
  const mine = ++clock;
  setTimeout(() => {
    if (clock === mine) heldSince = undefined;
  }, 0);
}

/** The yielded calls, in the order they yielded. */
const waiting: (() => void)[] = [];
let armed = false;

function arm(): void {
  armed = true;
  setTimeout(turn, 0); // every runtime has it (Node, pages, workers, edge)
}

/** One turn: the next call goes on (its piece runs once this returns, before the loop goes on). */
function turn(): void {
  armed = false;
  startClock(performance.now()); // the loop came round: the piece that goes on now starts the clock
  const next = waiting.shift();
  // The next turn's timer is set once this turn's piece has run: a timer set before it is due by its end,
  // and Node runs it in the same go (a timer that sets the timer runs after the piece).
  if (waiting.length > 0) {
    armed = true;
    setTimeout(arm, 0);
  }
  next?.();
}
