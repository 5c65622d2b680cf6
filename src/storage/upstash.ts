import type { Redis as UpstashClient } from "@upstash/redis";
import { z } from "zod";
import { text } from "../plugin/option-schema-parts.js";
import { defineDriver, type StorageEnvironment } from "./driver.js";
import { fromBase64, toBase64 } from "../util/base64.js";
import { loadClient } from "./load-client.js";
import type { NamespacedStorage } from "./types.js";

const restCredentials = z.strictObject({ url: text(), token: text() });
export type RestCredentials = z.infer<typeof restCredentials>;

/** The pair of variables a REST store reads when its block is left out (S9.1). */
const fromEnv = ([url, token]: readonly string[], { env }: StorageEnvironment): RestCredentials => ({ url: env(url!) ?? "", token: env(token!) ?? "" });

const UPSTASH_ENV = ["UPSTASH_REDIS_REST_URL", "UPSTASH_REDIS_REST_TOKEN"] as const;
/** `{ type: "upstash", upstash?: { url, token } }`, or UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN. */
export const upstashDriver = defineDriver({
  type: "upstash",
  runsIn: ["node", "edge"], // over fetch: edge runtimes too (S17.1)
  options: { upstash: restCredentials.optional() },
  env: { block: "upstash", alternatives: [UPSTASH_ENV] },
  resolve: ({ upstash }, environment) => ({ upstash: upstash ?? fromEnv(UPSTASH_ENV, environment) }),
  open: ({ upstash, timeoutMs }) => openUpstashStorage(upstash, timeoutMs),
});

const KV_ENV = ["KV_REST_API_URL", "KV_REST_API_TOKEN"] as const;
/** `{ type: "vercel-kv", vercelKv?: { url, token } }`, or KV_REST_API_URL and KV_REST_API_TOKEN: Upstash under Vercel's name. */
export const vercelKvDriver = defineDriver({
  type: "vercel-kv",
  runsIn: ["node", "edge"], // over fetch: edge runtimes too (S17.1)
  options: { vercelKv: restCredentials.optional() },
  env: { block: "vercelKv", alternatives: [KV_ENV] },
  resolve: ({ vercelKv }, environment) => ({ vercelKv: vercelKv ?? fromEnv(KV_ENV, environment) }),
  open: ({ vercelKv, timeoutMs }) => openUpstashStorage(vercelKv, timeoutMs, "vercel-kv"),
});

/**
 * Upstash Redis over its REST protocol through @upstash/redis (S9), with native expiry (`SET … PX`).
 * Vercel KV is the same service and the same adapter, configured from KV_REST_API_URL and
 * KV_REST_API_TOKEN. Values go as base64 text with automatic (de)serialization off: the REST protocol
 * carries strings as UTF-8 JSON, which would mangle binary records and numeric-looking strings.
 */
export async function openUpstashStorage(credentials: RestCredentials, timeoutMs: number, storageType = "upstash"): Promise<NamespacedStorage> {
  const { Redis } = await loadClient("@upstash/redis", storageType, () => import("@upstash/redis"));
  const client = new Redis({
    url: credentials.url,
    token: credentials.token,
    automaticDeserialization: false,
    enableTelemetry: false,
    // The store's own timeout bounds each call; retrying inside it would only hide a failure (S4.7).
    retry: false,
    signal: () => AbortSignal.timeout(timeoutMs),
  });
  return new UpstashStorage(client);
}

class UpstashStorage implements NamespacedStorage {
  constructor(private readonly client: UpstashClient) {}

  async get(key: string): Promise<Uint8Array | undefined> {
    const text = await this.client.get<string>(key);
    if (typeof text !== "string") return undefined;
    return fromBase64(text);
  }

  async set(key: string, value: Uint8Array, ttlSeconds: number): Promise<void> {
    const text = toBase64(value); // no Buffer: the edge build needs no Node compatibility flag (S17.1)
    await this.client.set(key, text, { px: ttlSeconds * 1000 });
  }

  async delete(key: string): Promise<void> {
    await this.client.del(key);
  }

  /** Each call is one HTTP request: there is no connection to close. */
  async close(): Promise<void> {}
}
