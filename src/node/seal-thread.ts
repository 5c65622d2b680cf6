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
import { SEAL_THREAD } from "../defaults.js";
import type { Sealed } from "../records/crypto/backend.js";
import type { SealThread } from "../records/crypto/seal-thread.js";
import { useSharedPieceBuffers } from "../records/buffer-pool.js";

type Threads = typeof import("node:worker_threads");
type NodeWorker = InstanceType<Threads["Worker"]>;

/** The worker: one `{ id, key, iv, ad, bytes }` in, one `{ id, ciphertext, tag }` (its buffer moved, not copied) or `{ id, failed }` out. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const crypto = require("node:crypto");
parentPort.on("message", ({ id, key, iv, ad, bytes }) => {
  try {
    const cipher = crypto.createCipheriv("aes-256-gcm", key, iv);
    cipher.setAAD(ad);
    const ciphertext = cipher.update(bytes);
    cipher.final();
    const whole = ciphertext.byteOffset === 0 && ciphertext.byteLength === ciphertext.buffer.byteLength;
    parentPort.postMessage({ id, ciphertext, tag: cipher.getAuthTag() }, whole ? [ciphertext.buffer] : []);
  } catch {
    parentPort.postMessage({ id, failed: true });
  }
});
Atomics.store(workerData.loaded, 0, 1);
`;

type Reply = { id: number; ciphertext: Uint8Array; tag: Uint8Array } | { id: number; failed: true };

interface Job {
  resolve(sealed: Sealed): void;
  reject(error: Error): void;
}

const builtin = <T>(id: string): T | undefined =>
  (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.(id) as T | undefined;

/**
 * Node's seal thread, where `worker_threads` and `node:crypto` are at hand (else none: folds seal on their
 * own thread). From here on the serialiser writes pieces into SharedArrayBuffers, which the thread reads in place.
 */
export function nodeSealThread(settings: typeof SEAL_THREAD = SEAL_THREAD): SealThread | undefined {
  const threads = builtin<Threads>("node:worker_threads");
  if (!threads || !builtin("node:crypto") || typeof SharedArrayBuffer !== "function") return undefined;
  useSharedPieceBuffers();
  return new NodeSealThread(threads, settings);
}

class NodeSealThread implements SealThread {
  private worker: NodeWorker | undefined;
  /**
   * Set to 1 by the worker once it takes jobs: read here without waiting for a message, which would be
   * seen only once the event loop turns (folds one after another, with nothing but promises between
   * them, would never see it).
   */
  private loadedFlag: Int32Array | undefined;
  private readonly jobs = new Map<number, Job>();
  private nextId = 0;
  private brokenUntil = 0;
  private idle: ReturnType<typeof setTimeout> | undefined;
  /** Fails the thread when it answers nothing for `deadlineMs` while it holds jobs (one timer, not one a job: a 10 MB answer is 20 jobs). */
  private watchdog: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly threads: Threads,
    private readonly settings: typeof SEAL_THREAD,
  ) {}

  available(): boolean {
    if (Date.now() < this.brokenUntil) return false;
    if (!this.worker) this.start();
    return this.loaded;
  }

  private get loaded(): boolean {
    return this.loadedFlag !== undefined && Atomics.load(this.loadedFlag, 0) === 1;
  }

  encrypt(key: Uint8Array, iv: Uint8Array, ad: Uint8Array, plaintext: Uint8Array): Promise<Sealed> {
    const worker = this.worker;
    if (!worker || !this.loaded) return Promise.reject(new Error("the seal thread is not loaded"));
    clearTimeout(this.idle);
    const id = this.nextId++;
    return new Promise<Sealed>((resolve, reject) => {
      if (this.jobs.size === 0) {
        worker.ref(); // a fold awaits it: the process stays up until it answers
        this.watch();
      }
      this.jobs.set(id, { resolve, reject });
      worker.postMessage({ id, key, iv, ad, bytes: plaintext });
    });
  }

  private watch(): void {
    clearTimeout(this.watchdog);
    this.watchdog = setTimeout(() => this.fail(new Error("the seal thread answered nothing within its deadline")), this.settings.deadlineMs);
    (this.watchdog as { unref?: () => void }).unref?.();
  }

  private start(): void {
    let worker: NodeWorker;
    try {
      const loaded = new Int32Array(new SharedArrayBuffer(4));
      worker = new this.threads.Worker(WORKER_SOURCE, { eval: true, workerData: { loaded } });
      this.loadedFlag = loaded;
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
    else job.resolve({ ciphertext: new Uint8Array(reply.ciphertext.buffer, reply.ciphertext.byteOffset, reply.ciphertext.byteLength), tag: new Uint8Array(reply.tag) });
    if (this.jobs.size === 0) {
      worker.unref();
      this.idleSoon();
    }
  }

  /** Stops the thread after a pause without jobs: an idle server holds no thread. */
  private idleSoon(): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => this.stop(new Error("the seal thread stopped")), this.settings.idleMs);
    (this.idle as { unref?: () => void }).unref?.();
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
    this.loadedFlag = undefined;
    if (worker) void worker.terminate();
    for (const job of this.jobs.values()) job.reject(error);
    this.jobs.clear();
  }
}
