/**
 * Yielding to the event loop (S21.4): long work on the calling thread awaits `yieldToLoop` between its holds
 * (`CostMeter.yieldToLoop`, the reads in parts, the fold's serialisation), and timers and I/O run before it goes on.
 *
 * One clock bounds what runs in one pass of the loop, whichever calls it belongs to: work asks `loopHeld` between
 * its steps, and yields once the loop has been held LOOP_HOLD_MS since it last came round. Each call's own clock
 * (YIELD_AFTER_MS, SERIALISE_HOLD_MS) let every call take its hold in the same pass: twenty folds of 1.4 MB side by
 * side took their 40 ms holds back to back (the timers of all of them were due together), and twenty requests that
 * came in together each serialised their answer whole (8 ms at 1.4 MB) one after another, holding the loop
 * 0.2–0.5 s at a time (S26.3). The calls that yielded go on together at the next pass: the first finds the clock
 * new, the others find it spent and yield again at their first step. Those go first at the pass after, before the
 * one that spent it: in the order they yielded they would come back behind it, and the first call to yield would go
 * first at every pass, the others waiting for its whole work (three calls of five holds each ran one after another).
 * (One call a pass instead kept order too, but a call that yields often, for a step each time, then waited a
 * round of all the others for each step: twenty filters over 120,000 rows took 29 s instead of 4.)
 *
 * Work that cannot be split, such as the host's write of an answer sent whole (one `JSON.stringify` of it),
 * waits for a pass of its own (`yieldAlone`): one such a pass, before the others.
 */
import { LOOP_HOLD_MS, YIELD_AFTER_MS } from "../defaults.js";

/** Waits for the next pass of the loop; the work that goes on then asks `loopHeld` as it goes. */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => {
    if (heldSince !== undefined && spentIn === clock)
      owed.push(resolve); // another call spent this pass
    else {
      waiting.push(resolve);
      if (heldSince !== undefined && performance.now() - heldSince >= LOOP_HOLD_MS) spentIn = clock;
    }
    arm();
  });
}

/** Waits for a pass of the loop of its own, for work that cannot yield once it has started. */
export function yieldAlone(): Promise<void> {
  return new Promise((resolve) => {
    alone.push(resolve);
    arm();
  });
}

/**
 * Whether the loop has been held LOOP_HOLD_MS since it last came round, as far as work that asks sees: a pass
 * starts the clock (else the first ask after the loop came round), and a timer, which runs only once the loop
 * has come round, stops it. Long work asks between its steps and yields when this says so. `bound`: work whose own
 * hold is longer (the fold's serialisation, SERIALISE_HOLD_MS) lets the pass run as long.
 */
export function loopHeld(bound: number = LOOP_HOLD_MS): boolean {
  const now = performance.now();
  if (heldSince === undefined) startClock(now);
  return now - heldSince! >= bound;
}

/** Whether work that last yielded (or started) at `since` should yield now: its own hold, or the pass, is spent. */
export function shouldYieldSince(since: number): boolean {
  return performance.now() - since >= YIELD_AFTER_MS || loopHeld();
}

/** When the loop was first seen held since it last came round (performance.now()). */
let heldSince: number | undefined;
/** Which clock the pending timer stops: a pass starts a clock of its own. */
let clock = 0;

function startClock(now: number): void {
  heldSince = now;
  const mine = ++clock;
  setTimeout(() => {
    if (clock === mine) heldSince = undefined;
  }, 0);
}

/**
 * The calls that yielded, in the order they yielded: `owed` those that yielded in a pass another call had spent
 * (they go on first), `waiting` the others; and those waiting for a pass of their own.
 */
let owed: (() => void)[] = [];
let waiting: (() => void)[] = [];
/** The clock in which a call yielded with the pass spent: the calls that yield after it in that pass took no hold. */
let spentIn = 0;
const alone: (() => void)[] = [];
let armed = false;

/**
 * Sets the next pass's timer by a timer: one set while work runs is due by the work's end, and Node runs it in the
 * same go (passes back to back, no I/O between); a timer that sets the timer runs after the work. Every runtime has
 * setTimeout (Node, pages, workers, edge).
 */
function arm(): void {
  if (armed) return;
  armed = true;
  setTimeout(() => setTimeout(pass, 0), 0);
}

/** One pass: the calls that yielded go on (their work runs once this returns, before the loop goes on). */
function pass(): void {
  armed = false;
  startClock(performance.now()); // the loop came round
  const first = alone.shift();
  const going = owed.concat(waiting);
  owed = [];
  waiting = [];
  if (alone.length > 0) arm();
  first?.();
  for (const next of going) next();
}
