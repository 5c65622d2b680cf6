/**
 * The one timing loop of the bench, shared by Node and the page build. Baselines and candidates run
 * interleaved (each round times every task once, in an order that rotates between rounds), so a change
 * of the machine's load hits them alike; nothing forces a GC inside the loop. Runtime-neutral.
 */

/** Median and the 25th and 75th percentiles, in ms (or as a ratio). */
export interface Spread {
  median: number;
  p25: number;
  p75: number;
}

/** The median of `values` (of an even count, the upper of the two middle ones), as `spread` takes it. */
export const median = (values: readonly number[]): number => spread(values).median;

/** A ratio taken in one run: of the medians, and the spread of each round's own ratio (steadier under load). */
export interface Ratio {
  ofMedians: number;
  perRound: Spread;
}

/** A task: timed from call to settled. */
export type Task = () => unknown;

const quantile = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

export function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: quantile(sorted, 0.5), p25: quantile(sorted, 0.25), p75: quantile(sorted, 0.75) };
}

export function ratio(candidate: readonly number[], baseline: readonly number[]): Ratio {
  return {
    ofMedians: spread(candidate).median / spread(baseline).median,
    perRound: spread(candidate.map((time, round) => time / (baseline[round] ?? NaN))),
  };
}

async function time(task: Task): Promise<number> {
  const start = performance.now();
  await task();
  return performance.now() - start;
}

/**
 * Runs `tasks` `rounds` times, interleaved, after `warmup` untimed rounds (JIT, lazily opened stores).
 * Returns each task's times, round by round.
 */
export async function interleaved<Name extends string>(
  rounds: number,
  tasks: Record<Name, Task>,
  warmup = 1,
): Promise<Record<Name, number[]>> {
  const names = Object.keys(tasks) as Name[];
  const times = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Name, number[]>;
  for (let round = -warmup; round < rounds; round++) {
    // Rotated each round, so every task runs after every other: the one after a heavy task pays its GC debt.
    const shift = ((round % names.length) + names.length) % names.length;
    const order = [...names.slice(shift), ...names.slice(0, shift)];
    for (const name of order) {
      const elapsed = await time(tasks[name]);
      if (round >= 0) times[name].push(elapsed);
    }
  }
  return times;
}

/**
 * Runs `task` beside a 1 ms timer (S21.4): its time, and the worst gap between two ticks while it ran (the
 * longest any other call would have waited). The timer settles for 5 ms first; the last gap counts up to
 * 2 ms after the task, so a hold at its very end is seen.
 */
export async function heldWhile<T>(task: () => Promise<T>): Promise<{ value: T; ms: number; held: number }> {
  let last = performance.now();
  let held = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    held = Math.max(held, now - last);
    last = now;
  }, 1);
  await new Promise((resolve) => setTimeout(resolve, 5));
  [last, held] = [performance.now(), 0];
  const started = performance.now();
  const value = await task();
  const ms = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 2));
  held = Math.max(held, performance.now() - last);
  clearInterval(timer);
  return { value, ms, held };
}
