import { EdgeStoreUnavailableError } from "../../errors.js";
import { defineRuntime } from "../../plugin/runtime.js";
import { webCryptoBackend } from "../../records/crypto/webcrypto.js";
import { webBase64 } from "../../storage/base64.js";
import { customDriver } from "../../storage/custom.js";
import { memoryDriver } from "../../storage/memory.js";
import { restDrivers } from "../../storage/upstash.js";

/** Upstash and Vercel KV through @upstash/redis's fetch-only entry, base64 by btoa/atob: no Node API. */
const { upstash: upstashDriver, vercelKv: vercelKvDriver } = restDrivers({
  runsIn: ["edge"],
  load: () => import("@upstash/redis/cloudflare"),
  base64: webBase64,
});

/**
 * An edge runtime (Cloudflare Workers, Vercel Edge; S17.1) opens memory (per isolate), the stores spoken
 * over `fetch` and a storage passed in; Redis and SQLite (and IndexedDB) are refused at init. It reads no
 * environment variable: a Worker's settings come as bindings, passed in the options, so `auto` is memory.
 * Encryption is WebCrypto, the one a Worker has without a Node compatibility flag.
 */
export const edgeRuntime = defineRuntime(
  "edge",
  () => undefined,
  {
    drivers: [memoryDriver, upstashDriver, vercelKvDriver, customDriver],
    elsewhere: ["redis", "sqlite", "indexeddb"],
    refuse: (type, runHere) => new EdgeStoreUnavailableError(type, runHere),
  },
  { crypto: webCryptoBackend },
);
