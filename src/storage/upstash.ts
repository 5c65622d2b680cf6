import { z } from "zod";
import { text } from "../util/option-schema-parts.js";
import type { Base64Codec } from "./base64.js";
import { defineDriver, type RuntimeKind, type StorageEnvironment } from "./driver.js";
import { loadClient } from "./load-client.js";
import type { NamespacedStorage } from "./types.js";

const restCredentials = z.strictObject({ url: text(), token: text() });
export type RestCredentials = z.infer<typeof restCredentials>;

/** The pair of variables a REST store reads when its block is left out (S9.1). */
const fromEnv = ([url, token]: readonly string[], { env }: StorageEnvironment): RestCredentials => ({
  url: env(url!) ?? "",
  token: env(token!) ?? "",
});

/**
 * What the store uses of @upstash/redis's client, written here so the package's types do not import an
 * optional peer. `@upstash/redis` and its runtime entries (`/cloudflare`, `/fastly`) all fit.
 */
interface UpstashClient {
  get<T>(key: string): Promise<T | null>;
  set(key: string, value: string, options: { px: number }): Promise<unknown>;
  del(key: string): Promise<number>;
}
interface UpstashConfig {
  url: string;
  token: string;
  automaticDeserialization: boolean;
  enableTelemetry: boolean;
  retry: false;
  signal: () => AbortSignal;
}
type UpstashModule = { Redis: new (config: UpstashConfig) => UpstashClient };

/** How a build reaches Upstash: where the REST stores run, how the client loads, and its base64. */
interface RestClientSetup {
  readonly runsIn: readonly RuntimeKind[];
  /**
   * Loads the client on first use (S9.5), written out as `() => import("<name>")` so bundlers see the
   * name: `@upstash/redis` in Node; at the edge, `@upstash/redis/cloudflare` (fetch only, no Node APIs).
   */
  readonly load: () => Promise<UpstashModule>;
  readonly base64: Base64Codec;
}

const UPSTASH_ENV = ["UPSTASH_REDIS_REST_URL", "UPSTASH_REDIS_REST_TOKEN"] as const;
const KV_ENV = ["KV_REST_API_URL", "KV_REST_API_TOKEN"] as const;

/**
 * The two REST drivers of a build: `{ type: "upstash", upstash?: { url, token } }` (or
 * UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN) and `{ type: "vercel-kv", vercelKv?: { url, token } }`
 * (or KV_REST_API_URL and KV_REST_API_TOKEN): Vercel KV is Upstash under Vercel's name, the same adapter.
 */
export function restDrivers(setup: RestClientSetup) {
  return {
    upstash: defineDriver({
      type: "upstash",
      runsIn: setup.runsIn,
      options: { upstash: restCredentials.optional() },
      env: { block: "upstash", alternatives: [UPSTASH_ENV] },
      resolve: ({ upstash }, environment) => ({ upstash: upstash ?? fromEnv(UPSTASH_ENV, environment) }),
      open: ({ upstash, timeoutMs }) => openUpstashStorage(upstash, timeoutMs, setup),
    }),
    vercelKv: defineDriver({
      type: "vercel-kv",
      runsIn: setup.runsIn,
      options: { vercelKv: restCredentials.optional() },
      env: { block: "vercelKv", alternatives: [KV_ENV] },
      resolve: ({ vercelKv }, environment) => ({ vercelKv: vercelKv ?? fromEnv(KV_ENV, environment) }),
      open: ({ vercelKv, timeoutMs }) => openUpstashStorage(vercelKv, timeoutMs, setup, "vercel-kv"),
    }),
  };
}

/**
 * Upstash Redis over its REST protocol through @upstash/redis (S9), with native expiry (`SET … PX`).
 * Values go as base64 text with automatic (de)serialization off: the REST protocol carries strings as
 * UTF-8 JSON, which would mangle binary records and numeric-looking strings.
 */
async function openUpstashStorage(
  credentials: RestCredentials,
  timeoutMs: number,
  setup: RestClientSetup,
  storageType = "upstash",
): Promise<NamespacedStorage> {
  const { Redis } = await loadClient("@upstash/redis", storageType, setup.load);
  const client = new Redis({
    url: credentials.url,
    token: credentials.token,
    automaticDeserialization: false,
    enableTelemetry: false,
    // The store's own timeout bounds each call; retrying inside it would only hide a failure (S4.7).
    retry: false,
    signal: () => AbortSignal.timeout(timeoutMs),
  });
  return new UpstashStorage(client, setup.base64);
}

class UpstashStorage implements NamespacedStorage {
  constructor(
    private readonly client: UpstashClient,
    private readonly base64: Base64Codec,
  ) {}

  async get(key: string): Promise<Uint8Array | undefined> {
    const text = await this.client.get<string>(key);
    return typeof text === "string" ? this.base64.decode(text) : undefined;
  }

  async set(key: string, value: Uint8Array, ttlSeconds: number): Promise<void> {
    await this.client.set(key, this.base64.encode(value), { px: ttlSeconds * 1000 });
  }

  async delete(key: string): Promise<void> {
    await this.client.del(key);
  }

  /** Each call is one HTTP request: there is no connection to close. */
  async close(): Promise<void> {}
}
