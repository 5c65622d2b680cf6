/**
 * A page's batch worker (S14.6): a module Web Worker answering the count jobs it is posted (`replyTo`), started by
 * `browserBatchWorkers`.
 */
import { replyTo } from "../../query/workers/job.js";

const scope = globalThis as unknown as {
  onmessage: ((event: { data: Parameters<typeof replyTo>[0] }) => void) | null;
  postMessage(message: unknown): void;
};
const ALIVE = { alive: true }; // between two batches of a job (`replyTo`)
scope.onmessage = (event) => scope.postMessage(replyTo(event.data, () => scope.postMessage(ALIVE)));
scope.postMessage({ loaded: true }); // the query engine is loaded: jobs may come
