import { defineRuntime } from "../runtime.js";
import { MemoryStorage } from "../storage/memory.js";

/** A page opens memory and IndexedDB; server stores are refused at init (S9.4). */
export const browserRuntime = defineRuntime("browser", () => undefined, {
  memory: async (config, namespace) => new MemoryStorage(namespace, config.memory),
  indexeddb: async () => {
    throw new Error('storage type "indexeddb" is not in this release yet; use { type: "memory" }');
  },
});
