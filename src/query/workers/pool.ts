/**
 * A few worker threads that count a query's nodes in list batches (S14.6, `countJob`; a wide object's member
 * batches too, S26.1), for the runtimes that have threads: Node (`worker_threads`) and pages (Web Workers). Each
 * runtime says only how to start one worker (`nodeBatchWorkers`, `browserBatchWorkers`); queueing, replies and
 * failures are handled here alike.
 *
 * Workers start when the first large query asks for them, and take jobs once they say they are loaded
 * (loading the query engine takes a worker 50–200 ms: a query meanwhile counts on the calling thread
 * rather than wait). They stop after a pause (`idleMs`), so an idle server holds no threads, and a Node
 * process never waits for them to exit. A worker that fails (cannot start, crashes, answers what was not
 * asked) fails the jobs it holds, and the pool stops using threads for `retryMs`: those queries run on the
 * calling thread, as they do without a pool, and a failure never reaches the caller as an error. After the
 * pause the next large query starts them again (a page whose bundler left the worker's file behind pays
 * one failed start per pause).
 */
import { BATCH_WORKER_SILENT_MS, BATCH_WORKERS } from "../../defaults.js";
import type { CountJob, CountReply } from "./job.js";
import { unref } from "../../util/unref.js";

/**
 * A job whose worker said nothing for `BATCH_WORKER_SILENT_MS` (S21.4): the worker was stopped and replaced, and
 * the call it belongs to is refused as over its cost (never counted again on the calling thread).
 */
export class JobOverrun extends Error {
  constructor(
    /** How long the job had been posted when it was stopped, and how long its worker may stay silent (ms): what its
     * refusal says (S26.1). */
    readonly ms: number,
    readonly silentMs: number,
  ) {
    super(`batch worker silent for ${silentMs} ms: its job stopped after ${Math.round(ms)} ms`);
  }
}

/**
 * What a worker posts: once `{ loaded: true }` when it can take jobs, `{ alive: true }` after each batch of a job
 * but its last, and one reply per job.
 */
export type WorkerMessage = { loaded: true } | { alive: true } | { id: number; reply: CountReply };

/** One started worker, as the runtime gives it. */
export interface WorkerPort {
  post(message: { id: number; job: CountJob }, transfer: ArrayBuffer[]): void;
  /** Called with each message, and with `undefined` when the worker fails or exits. */
  listen(receive: (message: WorkerMessage | undefined) => void): void;
  /**
   * Whether the worker is loading or has jobs: a Node process may exit while its workers are idle, never while they
   * load or count.
   */
  busy?(busy: boolean): void;
  terminate(): void;
}

export interface BatchWorkers {
  /**
   * Lists (and wide objects) of at least this many bytes are counted in workers (smaller ones cost less than the
   * hand-over).
   */
  readonly minBytes: number;
  /**
   * Whether workers can take jobs now; when none is running, this starts them (the caller counts on its own thread
   * meanwhile).
   */
  available(): boolean;
  /** Starts the workers, and resolves once one can take jobs: true, or false when they failed instead. */
  warm(): Promise<boolean>;
  /**
   * Resolves when a worker can take one more job (at most two waiting per worker) for `caller` (any object
   * standing for one call): waiting callers are served in turn (S21.4).
   */
  ready(caller?: object): Promise<void>;
  /**
   * Counts `job` in a worker; rejects when the worker fails (the caller then counts on its own thread), or with
   * JobOverrun when its worker stays silent too long (`BATCH_WORKER_SILENT_MS`).
   */
  count(job: CountJob, caller?: object): Promise<CountReply>;
  /** Jobs the workers have answered so far (what the bench reports). */
  readonly answered: number;
}

interface Running {
  port: WorkerPort;
  loaded: boolean;
  pending: Map<
    number,
    {
      resolve: (reply: CountReply) => void;
      reject: (error: Error) => void;
      /** The check of its worker's silence (`BATCH_WORKER_SILENT_MS`). */
      silence: ReturnType<typeof setTimeout>;
      /** When it was posted (performance.now()). */
      posted: number;
    }
  >;
  /** When it last said anything (performance.now()). */
  heard: number;
}

/** How a runtime sizes its pool (`BATCH_WORKERS`; tests count lists of any size there). */
export interface BatchWorkerSettings {
  readonly minBytes: number;
  readonly threads: number;
  readonly idleMs: number;
  readonly retryMs?: number;
  /** How long a worker holding jobs may say nothing (`BATCH_WORKER_SILENT_MS`). */
  readonly silentMs?: number;
}

const JOBS_PER_WORKER = 2;

export class WorkerPool implements BatchWorkers {
  private workers: Running[] = [];
  /** Until when (epoch ms) the pool is not used, after a worker failed. */
  private brokenUntil = 0;
  private nextId = 0;
  private idle: ReturnType<typeof setTimeout> | undefined;
  private waiting: { caller: object | undefined; wake: () => void }[] = [];
  /** The caller last let in: the next slot goes to another one when another waits (S21.4). */
  private lastServed: object | undefined;
  private onLoaded: (() => void)[] = [];
  answered = 0;

  constructor(
    private readonly start: () => WorkerPort,
    private readonly size: number,
    readonly minBytes: number,
    private readonly idleMs: number,
    private readonly retryMs: number = BATCH_WORKERS.retryMs,
    private readonly silentMs: number = BATCH_WORKER_SILENT_MS,
  ) {}

  /** False for `retryMs` after a worker failed. */
  get usable(): boolean {
    return Date.now() >= this.brokenUntil && this.size > 0;
  }

  available(): boolean {
    if (!this.usable) return false;
    if (this.workers.length === 0) this.startAll();
    return this.workers.some((worker) => worker.loaded);
  }

  warm(): Promise<boolean> {
    if (this.available() || !this.usable) return Promise.resolve(this.usable);
    // Woken by a load, a failure, or the workers stopped before loading: true only when one can take jobs.
    return new Promise((resolve) => this.onLoaded.push(() => resolve(this.usable && this.loaded().length > 0)));
  }

  ready(caller?: object): Promise<void> {
    const loaded = this.loaded().length;
    if (loaded === 0) return Promise.resolve(); // none: `count` refuses at once
    if (this.load() < loaded * JOBS_PER_WORKER && this.waiting.length === 0) {
      this.lastServed = caller;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push({ caller, wake: () => resolve() }));
  }

  /** Lets the next waiting caller in: one other than the last served when there is one (callers in turn, S21.4). */
  private wakeNext(): void {
    if (this.waiting.length === 0) return;
    let at = this.waiting.findIndex((each) => each.caller === undefined || each.caller !== this.lastServed);
    if (at < 0) at = 0;
    const [next] = this.waiting.splice(at, 1);
    this.lastServed = next!.caller;
    next!.wake();
  }

  count(job: CountJob, _caller?: object): Promise<CountReply> {
    const loaded = this.loaded();
    if (!this.usable || loaded.length === 0) return Promise.reject(new Error("no batch worker is loaded"));
    clearTimeout(this.idle);
    const worker = loaded.reduce((best, each) => (each.pending.size < best.pending.size ? each : best));
    const id = this.nextId++;
    return new Promise<CountReply>((resolve, reject) => {
      if (worker.pending.size === 0) worker.port.busy?.(true);
      // Silence counts from the post, or from the worker's last word (a job waits behind at most one other in it).
      const posted = performance.now();
      worker.pending.set(id, { resolve, reject, silence: this.checkSilence(worker, id, this.silentMs), posted });
      const transfer =
        job.bytes.byteOffset === 0 && job.bytes.byteLength === job.bytes.buffer.byteLength
          ? [job.bytes.buffer as ArrayBuffer]
          : [];
      worker.port.post({ id, job }, transfer);
    });
  }

  /** Stops every worker; the jobs they hold fail (their queries count on the calling thread). */
  stop(): void {
    clearTimeout(this.idle);
    const workers = this.workers;
    this.workers = [];
    for (const { port, pending } of workers) {
      port.terminate();
      for (const { reject, silence } of pending.values())
        (clearTimeout(silence), reject(new Error("batch worker stopped")));
    }
    for (const wake of [...this.waiting.splice(0).map((each) => each.wake), ...this.onLoaded.splice(0)]) wake();
  }

  /**
   * Looks at job `id` after `ms`: while its worker has said something within `silentMs` it looks again later; a
   * worker silent that long is overrun (S21.4). Decided a turn of the loop later, so that what the worker posted while
   * this thread was held is heard first (timers run before the messages that waited).
   */
  private checkSilence(worker: Running, id: number, ms: number): ReturnType<typeof setTimeout> {
    const check = () => {
      const job = worker.pending.get(id);
      if (!job || !this.workers.includes(worker)) return;
      job.silence = unref(
        setTimeout(() => {
          if (worker.pending.get(id) !== job) return;
          const silent = performance.now() - Math.max(worker.heard, job.posted);
          if (silent >= this.silentMs) this.overrun(worker, id);
          else job.silence = this.checkSilence(worker, id, this.silentMs - silent);
        }, 0),
      );
    };
    return unref(setTimeout(check, ms));
  }

  /**
   * A job whose worker was silent too long (S21.4): the worker is stopped and a new one started in its place; the
   * job is refused as over its cost, the others it held fail (their calls count on the calling thread).
   */
  private overrun(worker: Running, id: number): void {
    if (!this.workers.includes(worker) || !worker.pending.has(id)) return;
    this.workers = this.workers.filter((each) => each !== worker);
    worker.port.terminate();
    for (const [each, { reject, silence, posted }] of worker.pending) {
      clearTimeout(silence);
      const ms = performance.now() - posted;
      reject(each === id ? new JobOverrun(ms, this.silentMs) : new Error("batch worker replaced"));
    }
    worker.pending.clear();
    try {
      this.startOne();
    } catch {
      this.fail();
    }
  }

  private loaded(): Running[] {
    return this.workers.filter((worker) => worker.loaded);
  }

  private load(): number {
    return this.workers.reduce((sum, worker) => sum + worker.pending.size, 0);
  }

  private startOne(): void {
    const running: Running = { port: this.start(), loaded: false, pending: new Map(), heard: performance.now() };
    this.workers.push(running);
    running.port.listen((message) => this.receive(running, message));
    running.port.busy?.(true); // loading: a process awaiting `warm` stays up until it is loaded
  }

  private startAll(): void {
    try {
      for (let i = 0; i < this.size; i++) this.startOne();
    } catch {
      this.fail(); // no Worker here, or a policy forbids it: the thread that asked counts alone
    }
    this.idleSoon();
  }

  private receive(worker: Running, message: WorkerMessage | undefined): void {
    if (!this.workers.includes(worker)) return; // stopped on purpose (idle): its exit is no failure
    worker.heard = performance.now();
    if (message && "alive" in message) return; // between two batches of a job (`checkSilence`)
    if (message && "loaded" in message && !worker.loaded) {
      worker.loaded = true;
      worker.port.busy?.(false);
      if (this.load() === 0) this.idleSoon(); // the pause counts from when it can take jobs, not from its start
      for (const wake of this.onLoaded.splice(0)) wake();
      this.wakeNext(); // a replacement loaded: a waiting caller may go on
      return;
    }
    const job = message && "id" in message ? worker.pending.get(message.id) : undefined;
    // it failed, exited, or answered what was not asked
    if (!job || !message || !("reply" in message)) return this.fail();
    worker.pending.delete(message.id);
    clearTimeout(job.silence);
    if (worker.pending.size === 0) worker.port.busy?.(false);
    this.answered++;
    job.resolve(message.reply);
    this.wakeNext();
    if (this.load() === 0) this.idleSoon();
  }

  /** Stops the workers after `idleMs` without a job: a pause to stop on, never a reason for Node to stay up. */
  private idleSoon(): void {
    clearTimeout(this.idle);
    this.idle = unref(setTimeout(() => this.stop(), this.idleMs));
  }

  private fail(): void {
    this.brokenUntil = Date.now() + this.retryMs;
    this.stop();
  }
}
