// S21.4 on the batch workers' pool: a job whose worker stays silent too long is refused (JobOverrun), its worker
// stopped and replaced, and the pool goes on; a job that takes long but whose worker says it is alive between
// batches is answered; waiting callers are served in turn. Worker ports stand in for threads
// here (the pool is the same code for Node and pages; real threads run in attacks.test.ts).
import { describe, expect, it } from "vitest";
import { JobOverrun, WorkerPool, type WorkerPort } from "../../../src/query/workers/pool.js";
import type { CountJob } from "../../../src/query/workers/job.js";

/**
 * A port that loads at once and answers each job after `replyMs` (never, when undefined), saying it is alive every
 * `aliveMs` meanwhile when given (as a worker does between two batches).
 */
function port(
  replyMs: number | undefined,
  started: { count: number; terminated: number },
  aliveMs?: number,
): WorkerPort {
  started.count++;
  let receive: Parameters<WorkerPort["listen"]>[0] = () => {};
  return {
    post: ({ id, job }) => {
      const alive = aliveMs === undefined ? undefined : setInterval(() => receive({ alive: true }), aliveMs);
      if (replyMs !== undefined)
        setTimeout(() => {
          clearInterval(alive);
          receive({ id, reply: { nodes: job.ranges.filter((_, i) => i % 3 === 0).map(() => 1), steps: [1] } });
        }, replyMs);
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

describe("S21.4 a batch worker may not stay silent", () => {
  it(
    "a job whose worker never says anything is refused as an overrun once it was silent " +
      "too long; the worker is replaced and the pool goes on",
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
      expect(performance.now() - at).toBeLessThan(1000); // silent 50 ms
      expect(started).toMatchObject({ count: 2, terminated: 1 }); // stopped and replaced, not the pool turned off
      hang = false;
      expect(await pool.warm()).toBe(true); // the replacement loaded: the pool still takes jobs
      pool.stop();
    },
  );

  it("a job of 400 ms whose worker says it is alive every 20 ms is answered; 50 ms of silence allowed", async () => {
    const started = { count: 0, terminated: 0 };
    const pool = new WorkerPool(() => port(400, started, 20), 1, 0, 60_000, 60_000, 50);
    expect(await pool.warm()).toBe(true);
    const at = performance.now();
    const reply = await pool.count(job(), {});
    expect(reply.nodes).toEqual([1]); // answered, not refused (a deadline on the whole job refused it at 100 ms)
    expect(performance.now() - at).toBeGreaterThanOrEqual(390);
    expect(started).toMatchObject({ count: 1, terminated: 0 });
    pool.stop();
  });
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
