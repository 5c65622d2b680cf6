import { defineRuntime } from "../plugin/runtime.js";
import { nodeCryptoBackend } from "../records/crypto/node-crypto.js";
import { webCryptoBackend } from "../records/crypto/webcrypto.js";
import { MemoryStorage } from "../storage/memory.js";
import { openRedisStorage } from "../storage/redis.js";
import { openSqliteStorage } from "../storage/sqlite.js";
import { openUpstashStorage } from "../storage/upstash.js";

const env = (name: string): string | undefined => globalThis.process?.env?.[name] || undefined;

/** Node opens every server store; their client libraries load on first use (S9.5). */
export const nodeRuntime = defineRuntime("node", env, {
  memory: async (config, namespace) => new MemoryStorage(namespace, config.memory),
  redis: (config, namespace) => openRedisStorage(config.redis, namespace, config.timeoutMs),
  sqlite: (config, namespace) => openSqliteStorage(config.sqlite.path, namespace),
  upstash: (config, namespace) => openUpstashStorage(config.upstash, namespace, config.timeoutMs),
  "vercel-kv": (config, namespace) => openUpstashStorage(config.vercelKv, namespace, config.timeoutMs, "vercel-kv"),
}, nodeCryptoBackend() ?? webCryptoBackend); // node:crypto where the runtime has it (S8.4): same records, faster
