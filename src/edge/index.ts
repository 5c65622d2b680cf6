/**
 * Edge build (Cloudflare Workers, Vercel Edge; S17.1): WebCrypto, memory per isolate, Upstash and Vercel KV over fetch.
 * Same API as the other builds.
 */
import { openResultHandleStore, type CreateResultHandleStoreOptions } from "../plugin/open-store.js";
import { ResultHandlesPluginCore } from "../plugin-with-hosts.js";
import type { ResultHandleStore } from "../records/store.js";
import { edgeRuntime } from "./runtime.js";

export * from "../public-api.js";

export class ResultHandlesPlugin extends ResultHandlesPluginCore {
  protected static override runtime = edgeRuntime;
}

export function createResultHandleStore(options: CreateResultHandleStoreOptions): Promise<ResultHandleStore> {
  return openResultHandleStore(edgeRuntime, options);
}

export default ResultHandlesPlugin;
