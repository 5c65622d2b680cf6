import { defineRuntime } from "../plugin/runtime.js";
import { webCryptoBackend } from "../records/crypto.js";
import { MemoryStorage } from "../storage/memory.js";
import { openUpstashStorage } from "../storage/upstash.js";

/**
 * An edge runtime (Cloudflare Workers, Vercel Edge; S17.1) opens memory (per isolate) and the stores
 * spoken over `fetch`; Redis and SQLite are refused at init. It reads no environment variable: a Worker's
 * settings come as bindings, passed in the options, so `auto` is memory. Encryption is WebCrypto, the one
 * a Worker has without a Node compatibility flag.
 */
export const edgeRuntime = defineRuntime(
  "edge",
  () => undefined,
  {
    memory: async (config, namespace) => new MemoryStorage(namespace, config.memory),
    upstash: (config, namespace) => openUpstashStorage(config.upstash, namespace, config.timeoutMs),
    "vercel-kv": (config, namespace) => openUpstashStorage(config.vercelKv, namespace, config.timeoutMs, "vercel-kv"),
  },
  { crypto: webCryptoBackend },
);
