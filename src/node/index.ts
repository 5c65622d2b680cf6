/** Node build: full storage (S9). Same API as the page build. */
import { openResultHandleStore, type CreateResultHandleStoreOptions } from "../plugin/open-store.js";
import { ResultHandlesPluginCore } from "../plugin-with-hosts.js";
import type { ResultHandleStore } from "../records/store.js";
import { nodeRuntime } from "./runtime.js";

export * from "../public-api.js";

export class ResultHandlesPlugin extends ResultHandlesPluginCore {
  protected static override runtime = nodeRuntime;
}

export function createResultHandleStore(options: CreateResultHandleStoreOptions): Promise<ResultHandleStore> {
  return openResultHandleStore(nodeRuntime, options);
}

export default ResultHandlesPlugin;
