/**
 * A Node batch worker's entry (S14.6): answers the count jobs it is posted (`replyTo`). Built as a file of its own,
 * started by `startBatchWorker`.
 */
import { parentPort } from "node:worker_threads";
import { replyTo } from "../../query/workers/job.js";
import { useUtf8Codec } from "../../util/utf8.js";
import { nodeUtf8Codec } from "./utf8.js";

useUtf8Codec(nodeUtf8Codec); // a worker is a fresh module graph: it decodes batches with Buffer too

const ALIVE = { alive: true }; // between two batches of a job (`replyTo`)
parentPort!.on("message", (message: Parameters<typeof replyTo>[0]) =>
  parentPort!.postMessage(replyTo(message, () => parentPort!.postMessage(ALIVE))),
);
parentPort!.postMessage({ loaded: true }); // the query engine is loaded: jobs may come
