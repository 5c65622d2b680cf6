import { defineRuntime } from "../plugin/runtime.js";
import { webCryptoBackend } from "../records/crypto/webcrypto.js";
import { openIndexedDbStorage } from "../storage/indexeddb.js";
import { MemoryStorage } from "../storage/memory.js";

/** A page opens memory and IndexedDB; server stores are refused at init (S9.4). */
export const browserRuntime = defineRuntime("browser", () => undefined, {
  memory: async (config, namespace) => new MemoryStorage(namespace, config.memory),
  indexeddb: (config, namespace) => openIndexedDbStorage(config.indexeddb.database, namespace),
}, webCryptoBackend); // pages use WebCrypto only (S8.4)
