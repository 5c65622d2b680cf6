/**
 * Batch workers in a page (S14.6): module Web Workers. The worker's file sits next to this build's entry
 * (the build's batch-worker.js, a file of its own); the page's bundler finds it by the `new Worker(new URL(…,
 * import.meta.url))` form, as
 * Vite, webpack and Parcel do. Where it cannot start (no Worker, a Content-Security-Policy without
 * `worker-src 'self'`, a bundler that left the file behind), the pool stops using workers at the first
 * failure (for `retryMs`) and queries count on the page's thread, as they would without workers.
 */
import { BATCH_WORKERS } from "../../defaults.js";
import { WorkerPool, type BatchWorkerSettings, type WorkerPort } from "../../query/workers/pool.js";

export function browserBatchWorkers(settings: BatchWorkerSettings = BATCH_WORKERS): WorkerPool | undefined {
  if (typeof Worker !== "function") return undefined;
  const cores = globalThis.navigator?.hardwareConcurrency || 1;
  return new WorkerPool(
    () => workerPort(new Worker(new URL("./batch-worker.js", import.meta.url), { type: "module" })),
    Math.min(settings.threads, cores),
    settings.minBytes,
    settings.idleMs,
    settings.retryMs,
    settings.silentMs,
  );
}

function workerPort(worker: Worker): WorkerPort {
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    listen(receive) {
      worker.onmessage = (event) => receive(event.data);
      worker.onerror = () => receive(undefined);
      worker.onmessageerror = () => receive(undefined);
    },
    terminate: () => worker.terminate(),
  };
}
