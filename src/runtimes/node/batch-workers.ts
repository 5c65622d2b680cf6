/**
 * Batch workers in Node (S14.6): `worker_threads`, each running one file of the build (its batch-worker.js).
 * A worker is referenced only while it counts, so an idle pool never keeps a process alive. Where Node
 * has no `process.getBuiltinModule` (before 20.16) there are none, and queries count on the calling thread.
 */
import { BATCH_WORKERS } from "../../defaults.js";
import { WorkerPool, type BatchWorkerSettings, type WorkerPort } from "../../query/workers/pool.js";

type Threads = typeof import("node:worker_threads");
type NodeWorker = InstanceType<Threads["Worker"]>;

const builtin = <T>(id: string): T | undefined =>
  (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.(id) as
    T | undefined;

/** Node's batch workers; `settings` differ from the defaults only in tests (a list of any size counted there). */
export function nodeBatchWorkers(settings: BatchWorkerSettings = BATCH_WORKERS): WorkerPool | undefined {
  const threads = builtin<Threads>("node:worker_threads");
  const os = builtin<typeof import("node:os")>("node:os");
  if (!threads || !os) return undefined;
  const cores = typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length;
  return new WorkerPool(
    () => workerPort(startBatchWorker(threads)),
    Math.min(settings.threads, cores),
    settings.minBytes,
    settings.idleMs,
    settings.retryMs,
    settings.silentMs,
  );
}

/** One batch worker thread. */
function startBatchWorker({ Worker }: Threads): NodeWorker {
  // The CommonJS build has no import.meta (its bundler leaves an empty object): it knows its file instead.
  const here =
    typeof __filename === "string"
      ? builtin<typeof import("node:url")>("node:url")!.pathToFileURL(__filename).href
      : import.meta.url;
  // The Node and FrontMCP entries share this code (S22.1), so the build puts it in a chunk beside dist/node/
  // rather than in it: the worker is dist/node/batch-worker.js from either place.
  if (!here.endsWith(".ts"))
    return new Worker(new URL(/\/node\/[^/]+$/.test(here) ? "./batch-worker.js" : "./node/batch-worker.js", here));
  return new Worker(workerFromSources(here), { eval: true });
}

/**
 * Run from the sources (the tests, the bench, `npm start`), the worker is TypeScript: the worker thread
 * bundles it with esbuild (a dev dependency) and imports the bundle as a data: URL. Off the calling thread,
 * as tsx's loading was, and about 0.2 s of CPU a worker where loading the sources through tsx cost 0.5 s.
 */
function workerFromSources(here: string): string {
  const url = builtin<typeof import("node:url")>("node:url")!;
  const esbuild = url.pathToFileURL(
    builtin<typeof import("node:module")>("node:module")!.createRequire(here).resolve("esbuild"),
  ).href;
  const entry = url.fileURLToPath(new URL("./batch-worker.ts", here));
  const options = {
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    write: false,
    logLevel: "silent",
  };
  // import(), not require: the code is CommonJS or a module by the process's --input-type, and import() is in both.
  const bundle = `(esbuild.buildSync ?? esbuild.default.buildSync)(${JSON.stringify(options)}).outputFiles[0].text`;
  return (
    `import(${JSON.stringify(esbuild)})` +
    `.then((esbuild) => import("data:text/javascript," + encodeURIComponent(${bundle})))`
  );
}

/** A worker thread as the pool drives it: a failure, an exit or an error event ends it for the pool. */
function workerPort(worker: NodeWorker): WorkerPort {
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    listen(receive) {
      worker.on("message", receive);
      worker.on("error", () => receive(undefined));
      worker.on("exit", () => receive(undefined));
      worker.unref(); // after the listeners: adding a "message" listener refs the worker again
    },
    busy: (busy) => (busy ? worker.ref() : worker.unref()),
    terminate: () => void worker.terminate(),
  };
}
