/**
 * A few worker threads that count a query's nodes in list batches (S14.6, query/batch-count.ts), for the
 * runtimes that have threads: Node (`worker_threads`) and pages (Web Workers). Each runtime says only how
 * to start one worker (node/batch-workers.ts, browser/batch-workers.ts); queueing, replies and failures are
 * handled here alike.
 *
 * Workers start on the first large query and stop after a pause (`idleMs`), so an idle server holds no
 * threads, and a Node process never waits for them to exit. A worker that fails (cannot start, crashes,
 * answers garbage) fails the jobs it holds, and the pool stops using threads for good: the query then runs
 * on the calling thread as it does without a pool. A failure never reaches the caller as an error.
 */
import type { CountJob, CountReply } from "./batch-count.js";

/** One started worker, as the runtime gives it. */
export interface WorkerPort {
  post(message: { id: number; job: CountJob }, transfer: ArrayBuffer[]): void;
  /** Called with each reply, and with `undefined` when the worker fails or exits. */
  listen(receive: (reply: { id: number; reply: CountReply } | undefined) => void): void;
  /** Whether the worker has jobs: a Node process may exit while its workers are idle, never while they count. */
  busy?(busy: boolean): void;
  terminate(): void;
}

export interface BatchWorkers {
  /** Lists of at least this many bytes are counted in workers (smaller ones cost less than the hand-over). */
  readonly minBytes: number;
  /** Whether a job may be handed over now without queueing past what the workers can take. */
  readonly usable: boolean;
  /** Resolves when a worker can take one more job (at most two waiting per worker). */
  ready(): Promise<void>;
  /** Counts `job` in a worker; rejects when the worker fails (the caller then counts on its own thread). */
  count(job: CountJob): Promise<CountReply>;
}

interface Running {
  port: WorkerPort;
  pending: Map<number, { resolve: (reply: CountReply) => void; reject: (error: Error) => void }>;
}

const JOBS_PER_WORKER = 2;

export class WorkerPool implements BatchWorkers {
  private workers: Running[] = [];
  private broken = false;
  private nextId = 0;
  private idle: ReturnType<typeof setTimeout> | undefined;
  private waiting: (() => void)[] = [];

  constructor(
    private readonly start: () => WorkerPort,
    private readonly size: number,
    readonly minBytes: number,
    private readonly idleMs: number,
  ) {}

  get usable(): boolean {
    return !this.broken && this.size > 0;
  }

  ready(): Promise<void> {
    if (this.load() < this.size * JOBS_PER_WORKER) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  count(job: CountJob): Promise<CountReply> {
    if (!this.usable) return Promise.reject(new Error("batch workers unavailable"));
    clearTimeout(this.idle);
    let worker: Running;
    try {
      worker = this.leastLoaded();
    } catch (error) {
      this.fail();
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    const id = this.nextId++;
    return new Promise<CountReply>((resolve, reject) => {
      if (worker.pending.size === 0) worker.port.busy?.(true);
      worker.pending.set(id, { resolve, reject });
      const transfer = job.bytes.byteOffset === 0 && job.bytes.byteLength === job.bytes.buffer.byteLength ? [job.bytes.buffer as ArrayBuffer] : [];
      worker.port.post({ id, job }, transfer);
    });
  }

  private load(): number {
    return this.workers.reduce((sum, worker) => sum + worker.pending.size, 0);
  }

  private leastLoaded(): Running {
    if (this.workers.length < this.size && this.workers.every((worker) => worker.pending.size > 0)) {
      const running: Running = { port: this.start(), pending: new Map() };
      running.port.listen((message) => this.receive(running, message));
      this.workers.push(running);
      return running;
    }
    return this.workers.reduce((best, worker) => (worker.pending.size < best.pending.size ? worker : best));
  }

  private receive(worker: Running, message: { id: number; reply: CountReply } | undefined): void {
    if (!this.workers.includes(worker)) return; // stopped on purpose (idle): its exit is no failure
    const job = message && worker.pending.get(message.id);
    if (!job) return this.fail(); // the worker failed, exited, or answered what was not asked
    worker.pending.delete(message.id);
    if (worker.pending.size === 0) worker.port.busy?.(false);
    job.resolve(message.reply);
    this.waiting.shift()?.();
    if (this.load() === 0) {
      this.idle = setTimeout(() => this.stop(), this.idleMs);
      (this.idle as { unref?: () => void }).unref?.(); // a pause to stop on, not a reason for Node to stay up
    }
  }

  private fail(): void {
    this.broken = true;
    this.stop();
  }

  /** Stops every worker; the jobs they hold fail (their queries count on the calling thread). */
  stop(): void {
    clearTimeout(this.idle);
    const workers = this.workers;
    this.workers = [];
    for (const { port, pending } of workers) {
      port.terminate();
      for (const { reject } of pending.values()) reject(new Error("batch worker stopped"));
    }
    for (const wake of this.waiting.splice(0)) wake();
  }
}
