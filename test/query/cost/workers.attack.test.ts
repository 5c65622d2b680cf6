// S21.4 on the batch workers' pool: a job past its deadline is refused (JobOverrun), its worker stopped and
// replaced, and the pool goes on; waiting callers are served in turn. Worker ports stand in for threads
// here (the pool is the same code for Node and pages; real threads run in attacks.test.ts).
import { describe, expect, it } from "vitest";
import { JobOverrun, WorkerPool, type WorkerPort } from "../../../src/query/workers/pool.js";
import type { CountJob } from "../../../src/query/workers/job.js";

/** A port that loads at once and answers each job after `replyMs` (never, when undefined). */
function port(replyMs: number | undefined, started: { count: number; terminated: number }): WorkerPort {
  started.count++;
  let receive: Parameters<WorkerPort["listen"]>[0] = () => {};
  return {
    post: ({ id, job }) => {
      if (replyMs !== undefined)
        setTimeout(
          () => receive({ id, reply: { nodes: job.ranges.filter((_, i) => i % 3 === 0).map(() => 1), steps: [1] } }),
          replyMs,
        );
    },
    listen: (listener) => {
      receive = listener;
      setTimeout(() => listener({ loaded: true }), 1);
    },
    terminate: () => void started.terminated++,
  };
}
const job = (): CountJob => ({
  query: "$.rows[*]",
  length: 1,
  bytes: new Uint8Array(4),
  ranges: [0, 0, 1],
  ascii: [true],
});

describe("S21.4 batch jobs have a deadline", () => {
  it(
    "a job that never answers is refused as an overrun after its " +
      "deadline; the worker is replaced and the pool goes on",
    async () => {
      const started = { count: 0, terminated: 0 };
      let hang = true;
      const pool = new WorkerPool(() => port(hang ? undefined : 5, started), 1, 0, 60_000, 60_000, 50);
      expect(await pool.warm()).toBe(true);
      const at = performance.now();
      const overran = await pool.count(job(), {}).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(overran).toBeInstanceOf(JobOverrun);
      expect(performance.now() - at).toBeLessThan(1000); // 2 × 50 ms: it may wait behind one job in its worker
      expect(started).toMatchObject({ count: 2, terminated: 1 }); // stopped and replaced, not the pool turned off
      hang = false;
      expect(await pool.warm()).toBe(true); // the replacement loaded: the pool still takes jobs
      pool.stop();
    },
  );
});

describe("S21.4 waiting callers are served in turn", () => {
  it("a second caller waiting behind a first that fills the workers gets the next free slot", async () => {
    const started = { count: 0, terminated: 0 };
    const pool = new WorkerPool(() => port(30, started), 1, 0, 60_000, 60_000, 5_000);
    expect(await pool.warm()).toBe(true);
    const [slow, other] = [{}, {}];
    const order: string[] = [];
    await pool.ready(slow);
    const jobs = [pool.count(job(), slow), pool.count(job(), slow)]; // the one worker's two places
    const waits = [pool.ready(slow).then(() => order.push("slow")), pool.ready(other).then(() => order.push("other"))];
    await Promise.race(waits);
    expect(order).toEqual(["other"]); // the slow caller asked first, but had the last turn
    jobs.push(pool.count(job(), other));
    await Promise.all([...jobs, ...waits]);
    expect(order).toEqual(["other", "slow"]);
    pool.stop();
  });
});
