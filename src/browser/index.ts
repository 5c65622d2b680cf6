/** Page build: WebCrypto store in memory; Redis, SQLite, Upstash and Vercel KV are refused at init (S9.4). */
import { openResultHandleStore, type CreateResultHandleStoreOptions } from "../plugin/open-store.js";
import { ResultHandlesPluginCore } from "../plugin-with-hosts.js";
import type { ResultHandleStore } from "../records/store.js";
import { browserRuntime } from "./runtime.js";

export * from "../public-api.js";

export class ResultHandlesPlugin extends ResultHandlesPluginCore {
  protected static override runtime = browserRuntime;
}

export function createResultHandleStore(options: CreateResultHandleStoreOptions): Promise<ResultHandleStore> {
  return openResultHandleStore(browserRuntime, options);
}

export default ResultHandlesPlugin;
