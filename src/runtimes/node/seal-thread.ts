/**
 * Node's seal thread (S21.7, `SealThread`): one `worker_threads` worker that runs AES-256-GCM through
 * `node:crypto` on pieces a fold hands it while it serialises the rest. Its code is the few lines below,
 * evaluated as they are: it needs nothing of this package, so it loads the same from the sources, the
 * builds and a bundle.
 *
 * Node 20's `cipher.update` writes each piece's ciphertext into fresh memory (a copy into a buffer of the
 * exact length, page-faulted in as it is written): on the calling thread that was a fifth of a 10 MB
 * fold; here it happens beside the serialisation. The worker is started on first use and taken into use
 * once loaded (a fold meanwhile seals on its own thread), held only while it has jobs (it never keeps a
 * process alive), stopped after SEAL_THREAD.idleMs without work. A job that fails, or does not answer
 * within its deadline, rejects (the fold then seals that answer on its own thread); a thread that failed is
 * not used for SEAL_THREAD.retryMs.
 */
import { SEAL_THREAD } from "../../defaults.js";
import type { PieceJob, SealedPiece, SealThread } from "../../records/crypto/seal-thread.js";
import { useSharedPieceBuffers } from "../../records/buffer-pool.js";
import { unref } from "../../util/unref.js";

type Threads = typeof import("node:worker_threads");
type NodeWorker = InstanceType<Threads["Worker"]>;

/**
 * The worker: one `PieceJob` (and its `id`) in; out `{ id, storageKey, ciphertext, tag }` (the ciphertext's
 * buffer moved, not copied) or `{ id, failed }`. The storage key is HKDF-SHA256 as `AnswerKeys.pieceKey`
 * derives it. It keeps nothing between jobs, and counts the jobs it has done in `workerData.state[1]`,
 * which the watchdog reads (`state[0]` is 1 once it takes jobs).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const crypto = require("node:crypto");
const state = workerData.state;
parentPort.on("message", ({ id, job }) => {
  try {
    const storageKey = Buffer.from(crypto.hkdfSync("sha256", job.ikm, job.salt, job.info, 32)).toString("hex");
    const cipher = crypto.createCipheriv("aes-256-gcm", job.key, job.iv);
    cipher.setAAD(Buffer.concat([job.head, Buffer.from(storageKey, "latin1"), job.tail]));
    const ciphertext = cipher.update(job.plaintext);
    cipher.final();
    const whole = ciphertext.byteOffset === 0 && ciphertext.byteLength === ciphertext.buffer.byteLength;
    parentPort.postMessage({ id, storageKey, ciphertext, tag: cipher.getAuthTag() }, whole ? [ciphertext.buffer] : []);
  } catch {
    parentPort.postMessage({ id, failed: true });
  }
  Atomics.add(state, 1, 1);
});
Atomics.store(state, 0, 1);
`;

type Reply = { id: number; storageKey: string; ciphertext: Uint8Array; tag: Uint8Array } | { id: number; failed: true };

interface Job {
  resolve(sealed: SealedPiece): void;
  reject(error: Error): void;
}

type SealThreadSettings = { readonly [K in keyof typeof SEAL_THREAD]: number };

const builtin = <T>(id: string): T | undefined =>
  (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.(id) as
    T | undefined;

/**
 * Node's seal thread, where `worker_threads` and `node:crypto` are at hand (else none: folds seal on their
 * own thread). From here on the serialiser writes pieces into SharedArrayBuffers, which the thread reads in place.
 */
export function nodeSealThread(settings: SealThreadSettings = SEAL_THREAD): SealThread | undefined {
  const threads = builtin<Threads>("node:worker_threads");
  if (!threads || !builtin("node:crypto") || typeof SharedArrayBuffer !== "function") return undefined;
  useSharedPieceBuffers();
  return new NodeSealThread(threads, settings);
}

class NodeSealThread implements SealThread {
  private worker: NodeWorker | undefined;
  /**
   * Shared with the worker: [0] is 1 once it takes jobs, [1] counts the jobs it has done. Read here without
   * waiting for a message, which would be seen only once the thread yields to the event loop (folds one after another,
   * with nothing but promises between them, would never see it; a calling thread held by other work would
   * see the watchdog before the replies waiting for it).
   */
  private state: Int32Array | undefined;
  /** The worker's count of jobs done when the watchdog was last set. */
  private doneAtWatch = 0;
  private readonly jobs = new Map<number, Job>();
  private nextId = 0;
  private brokenUntil = 0;
  private idle: ReturnType<typeof setTimeout> | undefined;
  /**
   * Fails the thread when it answers nothing for `deadlineMs` while it holds jobs (one timer, not one a job: a 10 MB
   * answer is 20 jobs).
   */
  private watchdog: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly threads: Threads,
    private readonly settings: SealThreadSettings,
  ) {}

  available(): boolean {
    if (Date.now() < this.brokenUntil) return false;
    if (!this.worker) this.start();
    return this.loaded;
  }

  private get loaded(): boolean {
    return this.state !== undefined && Atomics.load(this.state, 0) === 1;
  }

  seal(job: PieceJob): Promise<SealedPiece> {
    const worker = this.worker;
    if (!worker || !this.loaded) return Promise.reject(new Error("the seal thread is not loaded"));
    clearTimeout(this.idle);
    const id = this.nextId++;
    return new Promise<SealedPiece>((resolve, reject) => {
      if (this.jobs.size === 0) {
        worker.ref(); // a fold awaits it: the process stays up until it answers
        this.watch();
      }
      this.jobs.set(id, { resolve, reject });
      worker.postMessage({ id, job });
    });
  }

  /**
   * Fails the thread when it has done no job for `deadlineMs` while it holds some. Its count of jobs done
   * says so, not the replies, which wait for this thread's event loop like the timer does.
   */
  private watch(): void {
    clearTimeout(this.watchdog);
    const state = this.state;
    if (!state) return;
    this.doneAtWatch = Atomics.load(state, 1);
    this.watchdog = unref(
      setTimeout(() => {
        if (this.state !== state || this.jobs.size === 0) return;
        // it is working: the replies are on their way
        if (Atomics.load(state, 1) !== this.doneAtWatch) return this.watch();
        this.fail(new Error("the seal thread did no job within its deadline"));
      }, this.settings.deadlineMs),
    );
  }

  private start(): void {
    let worker: NodeWorker;
    try {
      const state = new Int32Array(new SharedArrayBuffer(8));
      worker = new this.threads.Worker(WORKER_SOURCE, { eval: true, workerData: { state } });
      this.state = state;
    } catch {
      this.brokenUntil = Date.now() + this.settings.retryMs; // no threads here, or a policy forbids them
      return;
    }
    this.worker = worker;
    worker.on("message", (reply: Reply) => this.receive(worker, reply));
    worker.on("error", () => this.worker === worker && this.fail(new Error("the seal thread failed")));
    worker.on("exit", () => this.worker === worker && this.fail(new Error("the seal thread exited")));
    worker.unref(); // after the listeners: adding a "message" listener refs the worker again
    this.idleSoon();
  }

  private receive(worker: NodeWorker, reply: Reply): void {
    if (worker !== this.worker) return;
    const job = this.jobs.get(reply.id);
    if (!job) return this.fail(new Error("the seal thread answered what was not asked"));
    this.jobs.delete(reply.id);
    if (this.jobs.size > 0) this.watch();
    else clearTimeout(this.watchdog);
    if ("failed" in reply) job.reject(new Error("the seal thread could not seal a piece"));
    else
      job.resolve({
        storageKey: reply.storageKey,
        ciphertext: new Uint8Array(reply.ciphertext.buffer, reply.ciphertext.byteOffset, reply.ciphertext.byteLength),
        tag: new Uint8Array(reply.tag),
      });
    if (this.jobs.size === 0) {
      worker.unref();
      this.idleSoon();
    }
  }

  /** Stops the thread after a pause without jobs: an idle server holds no thread. */
  private idleSoon(): void {
    clearTimeout(this.idle);
    this.idle = unref(setTimeout(() => this.stop(new Error("the seal thread stopped")), this.settings.idleMs));
  }

  private fail(error: Error): void {
    this.brokenUntil = Date.now() + this.settings.retryMs;
    this.stop(error);
  }

  /** Ends the thread; the jobs it holds reject (their folds seal on their own thread). */
  private stop(error: Error): void {
    clearTimeout(this.idle);
    clearTimeout(this.watchdog);
    const worker = this.worker;
    this.worker = undefined;
    this.state = undefined;
    if (worker) void worker.terminate();
    for (const job of this.jobs.values()) job.reject(error);
    this.jobs.clear();
  }
}
