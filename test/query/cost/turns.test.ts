// S21.4 S26.2: strands of one call that run side by side on its meter (the references of a tool call) take turns
// with the rest of the event loop: one strand's hold of YIELD_AFTER_MS per turn, never every strand's hold in one go.
import { describe, expect, it } from "vitest";
import { YIELD_AFTER_MS } from "../../../src/defaults.js";
import { CostMeter } from "../../../src/query/cost.js";
import { watchStalls } from "../../helpers/attack-bench.js";

/**
 * A strand of a call: `holds` holds of work, each until the meter says to yield, then a yield (a strand that finds the
 * clock spent by another yields at once: no hold).
 */
async function strand(meter: CostMeter, holds: number, log: string[], name: string): Promise<void> {
  for (let hold = 0; hold < holds;) {
    let worked = false;
    for (; !meter.shouldYield(); worked = true) Math.sqrt(Math.random()); // work that asks the meter as it goes
    if (worked) (log.push(name), hold++);
    await meter.yieldToLoop();
  }
}

describe("S26.2 strands of one call on one meter", () => {
  it("hold the loop one at a time, taking turns", async () => {
    const meter = new CostMeter();
    const log: string[] = [];
    // another call's timer, due whenever the loop turns: the holds logged between two of its runs held it in one go
    const other = setInterval(() => log.push("other"), 1);
    const stalls = watchStalls();
    await Promise.all(["a", "b", "c", "d"].map((name) => strand(meter, 5, log, name)));
    const stallMs = stalls.stop();
    clearInterval(other);
    const inOneGo = Math.max(
      ...log
        .join(" ")
        .split("other")
        .map((run) => run.trim().split(/\s+/).filter(Boolean).length),
    );
    console.log(`4 strands x 5 holds: at most ${inOneGo} holds in one go, loop held up to ${Math.round(stallMs)} ms`);
    // Each woken on a timer of its own, the four strands ran a hold each in one go (4 x 20 ms): taking turns, one
    // (counted, not timed: a loaded 2-core machine stretches the times, not the order)
    expect(inOneGo).toBe(1);
    // every strand ran all its holds: none starved
    for (const name of ["a", "b", "c", "d"]) expect(log.filter((entry) => entry === name)).toHaveLength(5);
    // and the hold, loosely (a loaded 2-core machine stretches it): 80-180 ms before
    expect(stallMs).toBeLessThan(10 * YIELD_AFTER_MS);
  });

  it("goes on at once when nothing else waits, one turn per yield", async () => {
    const meter = new CostMeter();
    const started = performance.now();
    for (let i = 0; i < 20; i++) await meter.yieldToLoop();
    // a timer each (1 ms in Node, more on a loaded machine): far below one hold of work per yield
    expect(performance.now() - started).toBeLessThan(20 * YIELD_AFTER_MS);
  });
});

describe("S21.4 calls that yield, each on its own meter", () => {
  it("take turns: none does a second hold before every other has done one more", async () => {
    const log: string[] = [];
    // three calls that came in together, each doing five holds of YIELD_AFTER_MS on its own meter
    await Promise.all(["a", "b", "c"].map((name) => strand(new CostMeter(), 5, log, name)));
    // the holds each had done after each hold (in order, not timed: a loaded machine stretches the times only)
    const done = new Map<string, number>();
    let spread = 0;
    for (const name of log) {
      done.set(name, (done.get(name) ?? 0) + 1);
      spread = Math.max(spread, Math.max(...done.values()) - Math.min(...["a", "b", "c"].map((n) => done.get(n) ?? 0)));
    }
    console.log(`3 calls x 5 holds, in the order they ran: ${log.join(" ")}`);
    // The first to yield went first at every pass, the others finding the pass spent: a a a a a b b b b b c c c c c
    // (a spread of 5). Taking turns it is 1; 2 at most if the machine stops the process for a whole pass's time
    // just as a pass begins (that pass then does no hold, and the order turns one more).
    expect(spread).toBeLessThanOrEqual(2);
    for (const name of ["a", "b", "c"]) expect(done.get(name)).toBe(5);
  });
});
