import { z } from "zod";
import { DEFAULT_STORE_DEADLINE_MS, DEFAULT_STORE_TIMEOUT_MS } from "../defaults.js";
import type { ConfigurationIssue } from "../errors.js";
import { whole } from "../util/option-schema-parts.js";
import type { customDriver } from "./custom.js";
import {
  envReady,
  type AnyStorageDriver,
  type GivenConfigOf,
  type ResolvedConfigOf,
  type StorageEnvironment,
} from "./driver.js";
import type { indexedDbDriver } from "./indexeddb.js";
import type { memoryDriver } from "./memory.js";
import type { redisDriver } from "./redis.js";
import type { sqliteDriver } from "./sqlite.js";
import type { restDrivers } from "./upstash.js";

export type { AnyStorageDriver, RuntimeKind, StorageDriver, StorageEnvironment } from "./driver.js";
export type { RedisConnection } from "./redis.js";
export type { RestCredentials } from "./upstash.js";

/** Every driver of every build, for the types users write (the values are each runtime's own list). */
type RestDriver = ReturnType<typeof restDrivers>[keyof ReturnType<typeof restDrivers>];
type KnownDriver =
  | typeof memoryDriver
  | typeof indexedDbDriver
  | typeof redisDriver
  | typeof sqliteDriver
  | RestDriver
  | typeof customDriver;

/**
 * Where folded answers are kept, encrypted. Default `{ type: "auto" }`.
 * - `{ type: "auto" }`: in Node, Redis when `REDIS_CLUSTER_URLS` or `REDIS_URL` is set, else Vercel KV
 *   (`KV_REST_API_URL`, `KV_REST_API_TOKEN`), else Upstash (`UPSTASH_REDIS_REST_URL`,
 *   `UPSTASH_REDIS_REST_TOKEN`), else memory; in a page, memory. Decided once, at `init`.
 * - `{ type: "memory", memory?: { maxEntries?, maxBytes? } }`: this process only. `maxEntries` default 1000,
 *   `maxBytes` default 256 MiB in Node and 64 MiB in a page (0: no limit); past either the oldest go.
 * - `{ type: "indexeddb", indexeddb?: { database? } }`: pages only; database default `"mcp-result-handles"`.
 * - `{ type: "redis", redis: { url } | { host, port, password?, db? (0), tls? (false) } | { cluster: [{ host,
 *   port }, …], password?, tls? } }`: Node, `ioredis`; `redis` may be left out when `REDIS_CLUSTER_URLS`
 *   or `REDIS_URL` is set.
 * - `{ type: "sqlite", sqlite: { path } }`: Node, `better-sqlite3`.
 * - `{ type: "upstash", upstash?: { url, token } }` and `{ type: "vercel-kv", vercelKv?: { url, token } }`:
 *   Node, `@upstash/redis`; credentials default to their environment variables.
 * - `{ type: "custom", storage }`: any object with `get`, `set`, `delete` and `close` (S9.0), every build.
 *
 * Every type takes `timeoutMs` (default 3000): a slower store call counts as failed, and the answer is
 * sent whole; and `deadlineMs` (default 1500, or a given `timeoutMs` when longer): how long one tool call may wait
 * for its store in all (S26.3), so a slow store ends a query with `RESULT_STORE_UNAVAILABLE` and a fold
 * sends the answer whole, however many store calls each would have made. In the page build, `redis`, `sqlite`,
 * `upstash` and `vercel-kv` make `init` throw
 * `BrowserStoreUnavailableError`. In the edge build (Workers, S17.1) `auto` is memory, `upstash`,
 * `vercel-kv` and `custom` run, and `redis`, `sqlite` and `indexeddb` make `init` throw
 * `EdgeStoreUnavailableError`.
 */
export type StorageConfig = { type: "auto"; timeoutMs?: number; deadlineMs?: number } | GivenConfigOf<KnownDriver>;
export type StorageType = StorageConfig["type"];

/**
 * A storage config with `auto` decided, credentials taken from the environment where the config left
 * them out, and every default applied: what a runtime opens.
 */
export type ResolvedStorageConfig = ResolvedConfigOf<KnownDriver>;

/** What a runtime hands the config: the drivers it opens, and how it refuses the types of other builds. */
export interface StorageCatalog {
  /** The drivers this build opens, in the order `auto` tries their environment (S9.2). */
  readonly drivers: readonly AnyStorageDriver[];
  /** Types that run only in other builds: asking for one here is refused by `refuse`, not "unknown". */
  readonly elsewhere: readonly string[];
  /**
   * The refusal of a type of `elsewhere`, given the types that run here: an error is thrown at once
   * (a page, S9.4; an edge runtime, S17.1), an issue joins the other option problems (S3.1).
   */
  refuse(type: string, runHere: readonly string[]): Error | ConfigurationIssue;
}

/** A build's environment and its catalog: what checking and resolving `storage` needs. */
export interface StorageSetting extends StorageEnvironment {
  readonly storage: StorageCatalog;
}

const timeoutMs = whole(1).optional();
const deadlineMs = whole(1).optional();
const schemas = new WeakMap<StorageCatalog, z.ZodType<StorageConfig>>();

/** The `storage` option of S9.1 as this build takes it: one strict object per driver, and `auto`. */
export function storageSchema(catalog: StorageCatalog): z.ZodType<StorageConfig> {
  let schema = schemas.get(catalog);
  if (!schema) {
    const options = catalog.drivers.map((driver) =>
      z.strictObject({ type: z.literal(driver.type), ...driver.options, timeoutMs, deadlineMs }),
    );
    schema = z.discriminatedUnion("type", [
      z.strictObject({ type: z.literal("auto"), timeoutMs, deadlineMs }),
      ...options,
    ]) as unknown as z.ZodType<StorageConfig>;
    schemas.set(catalog, schema);
  }
  return schema;
}

/** Every type this build knows the name of: `auto`, its drivers', and those it refuses. */
export function storageTypeNames(catalog: StorageCatalog): string[] {
  return ["auto", ...[...catalog.drivers.map((driver) => driver.type), ...catalog.elsewhere].sort()];
}

const runHere = (catalog: StorageCatalog) => catalog.drivers.map((driver) => driver.type).sort();

/**
 * The refusal of a storage type this build cannot open, read from raw input before it is parsed so a
 * page throws `BrowserStoreUnavailableError` even for an otherwise incomplete config (S9.4).
 */
export function placementIssues(input: unknown, setting: StorageSetting): ConfigurationIssue[] {
  const type = (input as { storage?: { type?: unknown } } | undefined)?.storage?.type;
  if (typeof type !== "string" || !setting.storage.elsewhere.includes(type)) return [];
  const refusal = setting.storage.refuse(type, runHere(setting.storage));
  if (refusal instanceof Error) throw refusal;
  return [refusal];
}

const driverOf = (setting: StorageSetting, type: string) =>
  setting.storage.drivers.find((driver) => driver.type === type);

/** Left-out credentials whose environment variables are not set either (S9.1). */
export function missingEnvIssues(config: StorageConfig, setting: StorageSetting): ConfigurationIssue[] {
  const driver = driverOf(setting, config.type);
  const env = driver?.env;
  if (!env || (config as Record<string, unknown>)[env.block] !== undefined || envReady(driver, setting)) return [];
  const ways = env.alternatives;
  const plural = ways.length === 1 && ways[0]!.length > 1;
  return [
    {
      path: `storage.${env.block}`,
      message: `required unless ${ways.map((names) => names.join(" and ")).join(" or ")} ${plural ? "are" : "is"} set`,
    },
  ];
}

/** Decides `auto` (S9.2), fills left-out credentials from the environment (S9.1) and applies defaults. */
export function resolveStorage(config: StorageConfig, setting: StorageSetting): ResolvedStorageConfig {
  const chosen =
    config.type === "auto"
      ? (setting.storage.drivers.find((driver) => envReady(driver, setting)) ?? driverOf(setting, "memory"))
      : driverOf(setting, config.type);
  // the schema let it through: a build's bug
  if (!chosen) throw new Error(`storage type "${config.type}" has no driver in this build`);
  const given = config.type === "auto" ? { type: chosen.type } : config;
  const timeoutMs = config.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  // a timeoutMs given longer than the deadline's default raises it; the timeout's own default does not
  const deadlineMs = config.deadlineMs ?? Math.max(DEFAULT_STORE_DEADLINE_MS, config.timeoutMs ?? 0);
  return {
    type: chosen.type,
    ...chosen.resolve(given as never, setting),
    timeoutMs,
    deadlineMs,
  } as ResolvedStorageConfig;
}
