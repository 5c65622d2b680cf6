/**
 * For the cost attacks (S21.5): runs an attack while a second owner sends a small `result_query` 300 ms
 * after it starts, and measures that call's wait from when it was due (a blocked event loop also delays
 * the timer that sends it, so the wait counts from the due time, not from when the timer fired).
 */
import type { AttackBench, Caller, Result } from "./attack-bench.js";
import { handleOf, textOf, watchStalls } from "./attack-bench.js";

export interface Measured<T = Result, S = Result> {
  result: T;
  /** The attack's time, ms. */
  ms: number;
  /** The second caller's wait, from 300 ms after the attack started to its answer, ms. */
  waitMs: number;
  /** The second caller's answer. */
  second: S;
  /** The longest the event loop was held meanwhile, ms (a 5 ms ticker). */
  stallMs: number;
}

/** Folds `answer` as `who` and returns its handle. */
export async function foldAs(bench: AttackBench, who: Caller, answer: unknown): Promise<string> {
  bench.answer.next = answer;
  const folded = await who("report");
  bench.answer.next = undefined;
  return handleOf(folded);
}

/**
 * Folds bob's small answer (300 rows) and returns his small query of it: the second caller's call of S21.5, which
 * answers `["Row number 7"]`.
 */
export async function bobsSmallQuery(bench: AttackBench): Promise<() => Promise<Result>> {
  const handle = await foldAs(bench, bench.bob, {
    rows: Array.from({ length: 300 }, (_, i) => ({ id: i, title: `Row number ${i}` })),
  });
  return () => bench.bob("result_query", { handle, path: "$.rows[?@.id == 7].title" });
}

export async function withSecondCaller<T = Result, S = Result>(
  attack: () => Promise<T>,
  second: () => Promise<S>,
): Promise<Measured<T, S>> {
  const stalls = watchStalls();
  const started = performance.now();
  const due = started + 300;
  const secondDone = new Promise<{ result: S; waitMs: number }>((resolve, reject) => {
    setTimeout(() => {
      second().then((result) => resolve({ result, waitMs: performance.now() - due }), reject);
    }, 300);
  });
  const result = await attack();
  const ms = performance.now() - started;
  const { result: secondResult, waitMs } = await secondDone;
  return { result, ms, waitMs, second: secondResult, stallMs: stalls.stop() };
}

const round = (n: number) => Math.round(n);
/** One line of figures: what the attack answered, its time, the second caller's wait, the longest hold of the loop. */
export function line(label: string, m: Measured): string {
  return (
    `${label}: ${round(m.ms)} ms (${textOf(m.result).slice(0, 60).replace(/\n/g, " ")}…), second ` +
    `caller waited ${round(m.waitMs)} ms, event loop held up to ${round(m.stallMs)} ms`
  );
}
