import type { Redis as UpstashClient } from "@upstash/redis";
import type { RestCredentials } from "./config.js";
import { fromBase64, toBase64 } from "../util/base64.js";
import { loadClient } from "./load-client.js";
import { namespacedKey, type NamespacedStorage } from "./types.js";

/**
 * Upstash Redis over its REST protocol through @upstash/redis (S9), with native expiry (`SET … PX`).
 * Vercel KV is the same service and the same adapter, configured from KV_REST_API_URL and
 * KV_REST_API_TOKEN. Values go as base64 text with automatic (de)serialization off: the REST protocol
 * carries strings as UTF-8 JSON, which would mangle binary records and numeric-looking strings.
 */
export async function openUpstashStorage(credentials: RestCredentials, namespace: string, timeoutMs: number, storageType = "upstash"): Promise<NamespacedStorage> {
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
  return new UpstashStorage(client, namespace);
}

class UpstashStorage implements NamespacedStorage {
  constructor(
    private readonly client: UpstashClient,
    private readonly namespace: string,
  ) {}

  async get(key: string): Promise<Uint8Array | undefined> {
    const text = await this.client.get<string>(namespacedKey(this.namespace, key));
    if (typeof text !== "string") return undefined;
    return fromBase64(text);
  }

  async set(key: string, value: Uint8Array, ttlSeconds: number): Promise<void> {
    const text = toBase64(value);
    await this.client.set(namespacedKey(this.namespace, key), text, { px: ttlSeconds * 1000 });
  }

  async delete(key: string): Promise<void> {
    await this.client.del(namespacedKey(this.namespace, key));
  }

  /** Each call is one HTTP request: there is no connection to close. */
  async close(): Promise<void> {}
}
