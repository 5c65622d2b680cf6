/**
 * What a runtime's entry adds to the shared API (S2), bound to its runtime: the entries of node/, browser/ and
 * edge/ are this and a plugin class of three lines each, and the runtime.ts beside them says what differs.
 */
import { openResultHandleStore, type CreateResultHandleStoreOptions } from "../plugin/open-store.js";
import type { Runtime } from "../plugin/runtime.js";
import type { ResultHandleStore } from "../records/store.js";

/** `createResultHandleStore` of a build: a store opened by that build's drivers and crypto, outside the plugin. */
export function storeOpener(runtime: Runtime): (options: CreateResultHandleStoreOptions) => Promise<ResultHandleStore> {
  return (options) => openResultHandleStore(runtime, options);
}
