import { z } from "zod";
import { DEFAULT_MEMORY_MAX_BYTES, DEFAULT_MEMORY_MAX_ENTRIES, DEFAULT_STORE_TIMEOUT_MS } from "../plugin/defaults.js";
import { BrowserStoreUnavailableError, EdgeStoreUnavailableError, type ConfigurationIssue } from "../errors.js";
import { text, whole } from "../plugin/option-schema-parts.js";

const timeoutMs = whole(1).optional();

const redisConnection = z.union([
  z.strictObject({ url: text() }),
  z.strictObject({
    host: text(),
    port: whole(1).max(65535),
    password: z.string().optional(),
    db: whole(0).optional(),
    tls: z.boolean().optional(),
  }),
]);
const restCredentials = z.strictObject({ url: text(), token: text() });

/** The `storage` option of S9.1, as given. */
export const storageConfigSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("auto"), timeoutMs }),
  z.strictObject({
    type: z.literal("memory"),
    memory: z.strictObject({ maxEntries: whole(0).optional(), maxBytes: whole(0).optional() }).optional(),
    timeoutMs,
  }),
  z.strictObject({ type: z.literal("indexeddb"), indexeddb: z.strictObject({ database: text().optional() }).optional(), timeoutMs }),
  z.strictObject({ type: z.literal("redis"), redis: redisConnection.optional(), timeoutMs }),
  z.strictObject({ type: z.literal("sqlite"), sqlite: z.strictObject({ path: text() }), timeoutMs }),
  z.strictObject({ type: z.literal("upstash"), upstash: restCredentials.optional(), timeoutMs }),
  z.strictObject({ type: z.literal("vercel-kv"), vercelKv: restCredentials.optional(), timeoutMs }),
]);

/**
 * Where folded answers are kept, encrypted. Default `{ type: "auto" }`.
 * - `{ type: "auto" }`: in Node, Redis when `REDIS_URL` is set, else Vercel KV (`KV_REST_API_URL`,
 *   `KV_REST_API_TOKEN`), else Upstash (`UPSTASH_REDIS_REST_URL`, `UPSTASH_REDIS_REST_TOKEN`), else memory;
 *   in a page, memory. Decided once, at `init`.
 * - `{ type: "memory", memory?: { maxEntries?, maxBytes? } }`: this process only. `maxEntries` default 1000,
 *   `maxBytes` default 256 MiB in Node and 64 MiB in a page (0: no limit); past either the oldest go.
 * - `{ type: "indexeddb", indexeddb?: { database? } }`: pages only; database default `"mcp-result-handles"`.
 * - `{ type: "redis", redis: { url } | { host, port, password?, db? (0), tls? (false) } }`: Node, `ioredis`;
 *   `redis` may be left out when `REDIS_URL` is set.
 * - `{ type: "sqlite", sqlite: { path } }`: Node, `better-sqlite3`.
 * - `{ type: "upstash", upstash?: { url, token } }` and `{ type: "vercel-kv", vercelKv?: { url, token } }`:
 *   Node, `@upstash/redis`; credentials default to their environment variables.
 *
 * Every type takes `timeoutMs` (default 3000): a slower store call counts as failed, and the answer is
 * sent whole. In the page build, `redis`, `sqlite`, `upstash` and `vercel-kv` make `init` throw
 * `BrowserStoreUnavailableError`.
 */
export type StorageConfig = z.infer<typeof storageConfigSchema>;
export type StorageType = StorageConfig["type"];
export type RedisConnection = z.infer<typeof redisConnection>;
export type RestCredentials = z.infer<typeof restCredentials>;

/** Where a build runs: Node (also Deno and Bun), a web page, or an edge runtime such as Cloudflare Workers (S17.1). */
export type RuntimeKind = "node" | "browser" | "edge";

/**
 * A storage config with `auto` decided, credentials taken from the environment where the config left
 * them out, and every default applied: what a runtime opens.
 */
export type ResolvedStorageConfig = { readonly timeoutMs: number } & (
  | { readonly type: "memory"; readonly memory: { readonly maxEntries: number; readonly maxBytes: number } }
  | { readonly type: "indexeddb"; readonly indexeddb: { readonly database: string } }
  | { readonly type: "redis"; readonly redis: RedisConnection }
  | { readonly type: "sqlite"; readonly sqlite: { readonly path: string } }
  | { readonly type: "upstash"; readonly upstash: RestCredentials }
  | { readonly type: "vercel-kv"; readonly vercelKv: RestCredentials }
);
export type ResolvedStorageType = ResolvedStorageConfig["type"];

interface StorageTypeInfo {
  /** The builds that can open it (S9.4). */
  readonly runsIn: readonly RuntimeKind[];
  /** The config block that environment variables can stand in for (S9.1), and those variables (S9.2). */
  readonly env?: { readonly block: "redis" | "upstash" | "vercelKv"; readonly names: readonly string[] };
}

/**
 * Every storage type: where it runs and which environment variables it reads. Both runtimes read this
 * table. `auto` picks the first type below, in this order, whose variables are all set and which runs
 * in this build, else memory (S9.2): Redis, then Vercel KV, then Upstash.
 */
export const STORAGE_TYPES = {
  auto: { runsIn: ["node", "browser", "edge"] },
  memory: { runsIn: ["node", "browser", "edge"] },
  redis: { runsIn: ["node"], env: { block: "redis", names: ["REDIS_URL"] } },
  // Over fetch: they run at the edge too (S17.1), where no environment variable is read, so `auto` is memory.
  "vercel-kv": { runsIn: ["node", "edge"], env: { block: "vercelKv", names: ["KV_REST_API_URL", "KV_REST_API_TOKEN"] } },
  upstash: { runsIn: ["node", "edge"], env: { block: "upstash", names: ["UPSTASH_REDIS_REST_URL", "UPSTASH_REDIS_REST_TOKEN"] } },
  sqlite: { runsIn: ["node"] },
  indexeddb: { runsIn: ["browser"] },
} as const satisfies Record<StorageType, StorageTypeInfo>;

/** Types a build can open, by the table. */
export type StorageTypeIn<K extends RuntimeKind> = {
  [T in ResolvedStorageType]: K extends (typeof STORAGE_TYPES)[T]["runsIn"][number] ? T : never;
}[ResolvedStorageType];

/** The IndexedDB database a page store uses unless `storage.indexeddb.database` names another. */
export const DEFAULT_INDEXEDDB_DATABASE = "mcp-result-handles";

/** What resolving a storage config needs to know of its build. */
export interface StorageEnvironment {
  readonly kind: RuntimeKind;
  /** Reads an environment variable; pages have none. */
  readonly env: (name: string) => string | undefined;
}

export const storageTypeNames = Object.keys(STORAGE_TYPES) as StorageType[];

/** The storage types a build can open, `auto` aside, as the table says. */
export function storageTypesIn(kind: RuntimeKind): StorageType[] {
  return storageTypeNames.filter((type) => type !== "auto" && (STORAGE_TYPES[type].runsIn as readonly RuntimeKind[]).includes(kind));
}

const info = (type: StorageType): StorageTypeInfo => STORAGE_TYPES[type];

/**
 * The issue of a storage type this build cannot open, read from raw input before it is parsed so a page
 * throws `BrowserStoreUnavailableError` even for an otherwise incomplete config (S9.4).
 */
export function placementIssues(input: unknown, runtime: StorageEnvironment): ConfigurationIssue[] {
  const type = (input as { storage?: { type?: unknown } } | undefined)?.storage?.type;
  if (typeof type !== "string" || !Object.hasOwn(STORAGE_TYPES, type)) return [];
  if ((info(type as StorageType).runsIn as readonly string[]).includes(runtime.kind)) return [];
  // A page refuses a server store at once (S9.4), and so does an edge runtime (S17.1); Node reports the
  // page-only store as an option issue.
  if (runtime.kind === "browser") throw new BrowserStoreUnavailableError(type);
  if (runtime.kind === "edge") throw new EdgeStoreUnavailableError(type, storageTypesIn("edge"));
  return [{ path: "storage.type", message: 'IndexedDB exists only in web pages; use "memory", "redis", "sqlite", "upstash" or "vercel-kv" in Node' }];
}

const envBlock = (config: StorageConfig, block: string): unknown => (config as Record<string, unknown>)[block];
const envReady = (names: readonly string[], runtime: StorageEnvironment) => names.every((name) => runtime.env(name));

/** Left-out credentials whose environment variables are not set either (S9.1). */
export function missingEnvIssues(config: StorageConfig, runtime: StorageEnvironment): ConfigurationIssue[] {
  const env = info(config.type).env;
  if (!env || envBlock(config, env.block) !== undefined || envReady(env.names, runtime)) return [];
  const names = env.names;
  return [{ path: `storage.${env.block}`, message: `required unless ${names.join(" and ")} ${names.length > 1 ? "are" : "is"} set` }];
}

/** Decides `auto` (S9.2), fills left-out credentials from the environment (S9.1) and applies defaults. */
export function resolveStorage(config: StorageConfig, runtime: StorageEnvironment): ResolvedStorageConfig {
  const timeout = { timeoutMs: config.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS };
  const read = (names: readonly string[]) => names.map((name) => runtime.env(name) ?? "");
  switch (config.type) {
    case "auto": {
      const chosen = storageTypeNames.find((type) => {
        const entry = info(type);
        return entry.env && entry.runsIn.includes(runtime.kind) && envReady(entry.env.names, runtime);
      });
      return resolveStorage({ type: chosen ?? "memory", timeoutMs: config.timeoutMs } as StorageConfig, runtime);
    }
    case "memory":
      return {
        type: "memory",
        memory: {
          maxEntries: config.memory?.maxEntries ?? DEFAULT_MEMORY_MAX_ENTRIES,
          maxBytes: config.memory?.maxBytes ?? DEFAULT_MEMORY_MAX_BYTES[runtime.kind],
        },
        ...timeout,
      };
    case "indexeddb":
      return { type: "indexeddb", indexeddb: { database: config.indexeddb?.database ?? DEFAULT_INDEXEDDB_DATABASE }, ...timeout };
    case "redis": {
      const [url] = read(STORAGE_TYPES.redis.env.names);
      return { type: "redis", redis: config.redis ?? { url: url! }, ...timeout };
    }
    case "sqlite":
      return { type: "sqlite", sqlite: config.sqlite, ...timeout };
    case "upstash": {
      const [url, token] = read(STORAGE_TYPES.upstash.env.names);
      return { type: "upstash", upstash: config.upstash ?? { url: url!, token: token! }, ...timeout };
    }
    case "vercel-kv": {
      const [url, token] = read(STORAGE_TYPES["vercel-kv"].env.names);
      return { type: "vercel-kv", vercelKv: config.vercelKv ?? { url: url!, token: token! }, ...timeout };
    }
  }
}
