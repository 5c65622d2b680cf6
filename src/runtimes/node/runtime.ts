import { defineRuntime } from "../../plugin/runtime.js";
import { nodeBase64 } from "./base64.js";
import { nodeBatchWorkers } from "./batch-workers.js";
import { nodeSealThread } from "./seal-thread.js";
import { nodeUtf8Codec } from "./utf8.js";
import { nodeCryptoBackend } from "./crypto.js";
import { webCryptoBackend } from "../../records/crypto/webcrypto.js";
import { customDriver } from "../../storage/custom.js";
import { memoryDriver } from "../../storage/memory.js";
import { redisDriver } from "../../storage/redis.js";
import { sqliteDriver } from "../../storage/sqlite.js";
import { restDrivers } from "../../storage/upstash.js";

const env = (name: string): string | undefined => globalThis.process?.env?.[name] || undefined;

const { upstash: upstashDriver, vercelKv: vercelKvDriver } = restDrivers({
  runsIn: ["node"],
  load: () => import("@upstash/redis"),
  base64: nodeBase64,
});

/**
 * Node opens every server store; their client libraries load on first use (S9.5). The order is `auto`'s
 * (S9.2): Redis, then Vercel KV, then Upstash, by whose variables are set; else memory.
 */
export const nodeRuntime = defineRuntime(
  "node",
  env,
  {
    drivers: [redisDriver, vercelKvDriver, upstashDriver, sqliteDriver, memoryDriver, customDriver],
    elsewhere: ["indexeddb"],
    refuse: (_type, runHere) => ({
      path: "storage.type",
      message: `IndexedDB exists only in web pages; use ${runHere
        .map((type) => JSON.stringify(type))
        .join(", ")
        .replace(/, ([^,]*)$/, " or $1")} in Node`,
    }),
  },
  {
    // node:crypto where the runtime has it (S8.4): same records, faster
    crypto: nodeCryptoBackend() ?? webCryptoBackend,
    startWorkers: nodeBatchWorkers,
    startSealThread: nodeSealThread,
    codec: nodeUtf8Codec,
  },
);
