import { BrowserStoreUnavailableError } from "../../errors.js";
import { defineRuntime } from "../../plugin/runtime.js";
import { browserBatchWorkers } from "./batch-workers.js";
import { webCryptoBackend } from "../../records/crypto/webcrypto.js";
import { customDriver } from "../../storage/custom.js";
import { indexedDbDriver } from "../../storage/indexeddb.js";
import { memoryDriver } from "../../storage/memory.js";

/** A page opens memory, IndexedDB and a storage passed in; server stores are refused at init (S9.4). */
export const browserRuntime = defineRuntime(
  "browser",
  () => undefined,
  {
    drivers: [memoryDriver, indexedDbDriver, customDriver],
    elsewhere: ["redis", "sqlite", "upstash", "vercel-kv"],
    refuse: (type) => new BrowserStoreUnavailableError(type),
  },
  { crypto: webCryptoBackend, startWorkers: browserBatchWorkers }, // pages use WebCrypto only (S8.4)
);
