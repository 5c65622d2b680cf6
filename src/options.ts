import { z } from "zod";
import {
  DEFAULT_MEMORY_MAX_ENTRIES,
  DEFAULT_NAMESPACE,
  DEFAULT_PREVIEW,
  DEFAULT_STORE_TIMEOUT_MS,
  DEFAULT_THRESHOLD_BYTES,
  DEFAULT_TTL_SECONDS,
  MIN_THRESHOLD_BYTES,
} from "./constants.js";
import { BrowserStoreUnavailableError, ResultHandlesConfigurationError, type ConfigurationIssue } from "./errors.js";

const whole = (min: number) => z.number().int().min(min);
const positive = () => whole(1);
const text = () => z.string().min(1);
/** A store call slower than this many milliseconds counts as failed. Default 3000. */
const timeoutMs = positive().optional();

const memoryConfig = z.strictObject({
  type: z.literal("memory"),
  memory: z.strictObject({ maxEntries: whole(0).optional(), maxBytes: positive().optional() }).optional(),
  timeoutMs,
});
const indexedDbConfig = z.strictObject({
  type: z.literal("indexeddb"),
  indexeddb: z.strictObject({ database: text().optional() }).optional(),
  timeoutMs,
});
const redisConfig = z.strictObject({
  type: z.literal("redis"),
  redis: z
    .union([
      z.strictObject({ url: text() }),
      z.strictObject({
        host: text(),
        port: whole(1).max(65535),
        password: z.string().optional(),
        db: whole(0).optional(),
        tls: z.boolean().optional(),
      }),
    ])
    .optional(),
  timeoutMs,
});
const restCredentials = z.strictObject({ url: text(), token: text() });
const storageConfig = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("auto"), timeoutMs }),
  memoryConfig,
  indexedDbConfig,
  redisConfig,
  z.strictObject({ type: z.literal("sqlite"), sqlite: z.strictObject({ path: text() }), timeoutMs }),
  z.strictObject({ type: z.literal("upstash"), upstash: restCredentials.optional(), timeoutMs }),
  z.strictObject({ type: z.literal("vercel-kv"), vercelKv: restCredentials.optional(), timeoutMs }),
]);

/**
 * Where folded answers are kept, encrypted. Default `{ type: "auto" }`.
 * - `{ type: "auto" }`: in Node, Redis when `REDIS_URL` is set, else Vercel KV (`KV_REST_API_URL`,
 *   `KV_REST_API_TOKEN`), else Upstash (`UPSTASH_REDIS_REST_URL`, `UPSTASH_REDIS_REST_TOKEN`), else memory;
 *   in a page, memory.
 * - `{ type: "memory", memory?: { maxEntries?, maxBytes? } }`: this process only. `maxEntries` default 1000,
 *   `maxBytes` default 256 MiB in Node and 64 MiB in a page (0: no limit); past either the oldest go.
 * - `{ type: "indexeddb", indexeddb?: { database? } }`: pages only.
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
export type StorageConfig = z.infer<typeof storageConfig>;
export type StorageType = StorageConfig["type"];

/** Context handed to `foldPolicy` (S3, S4.5). */
export interface FoldPolicyContext {
  /** Size of the answer's data as UTF-8 JSON. */
  bytes: number;
  /** The tool's full name as the client called it. */
  fullName: string;
  /** The host's request context (the MCP SDK's `ctx`, or the WebMCP call), when there is one. */
  request: unknown;
}
/** Return false to send this answer whole; may be async. `answer` is the data that would fold (`structuredContent`, or the parsed text). */
export type FoldPolicy = (toolName: string, answer: unknown, context: FoldPolicyContext) => boolean | Promise<boolean>;

/** Options of `ResultHandlesPlugin.init`, all optional. An invalid value or unknown key throws `ResultHandlesConfigurationError`. */
export interface ResultHandlesOptions {
  /** Answers larger than this, as UTF-8 JSON, fold; the folded answer is at most half of it. Whole number ≥ 1024 (`MIN_THRESHOLD_BYTES`). Default 16384. */
  thresholdBytes?: number;
  /** How long a folded answer can be read back, in seconds. Positive whole number. Default 600. */
  ttlSeconds?: number;
  /** How much of the answer the preview shows. Default `{ items: 5, chars: 500 }`. */
  preview?: {
    /** Items kept of every list, at every depth. Positive whole number. Default 5. */
    items?: number;
    /** Characters kept of every string, at every depth. Positive whole number. Default 500. */
    chars?: number;
  };
  /** Decides per call whether a large answer folds: `(toolName, answer, { bytes, fullName, request })`, may be async. Default: always fold. */
  foldPolicy?: FoldPolicy;
  /**
   * Where folded answers are kept, encrypted. Default `{ type: "auto" }`: Redis, Vercel KV or Upstash when
   * their environment variables are set, else memory (1000 answers). Types: `auto`, `memory`, `indexeddb`
   * (pages), `redis`, `sqlite`, `upstash`, `vercel-kv` (Node); each takes `timeoutMs` (default 3000).
   */
  storage?: StorageConfig;
  /** Prefix of every storage key, so several apps can share one store. Non-empty. Default `"result-handles"`. */
  namespace?: string;
}

/** Options with every default applied: what `plugin.get(ResultHandlesConfigToken)` returns. */
export interface ResultHandlesConfig {
  readonly thresholdBytes: number;
  readonly ttlSeconds: number;
  readonly preview: { readonly items: number; readonly chars: number };
  readonly foldPolicy: FoldPolicy;
  readonly storage: StorageConfig;
  readonly namespace: string;
}

const optionsSchema = z.strictObject({
  thresholdBytes: whole(MIN_THRESHOLD_BYTES).optional(),
  ttlSeconds: positive().optional(),
  preview: z.strictObject({ items: positive().optional(), chars: positive().optional() }).optional(),
  foldPolicy: z.custom<FoldPolicy>((v) => typeof v === "function", { message: "must be a function" }).optional(),
  storage: storageConfig.optional(),
  namespace: text().optional(),
});

/** What differs between the Node and the page build when options are checked. */
export interface OptionsRuntime {
  readonly kind: "node" | "browser";
  /** Reads an environment variable; pages have none. */
  readonly env: (name: string) => string | undefined;
}

/** Storage types a page cannot open (S9.4). */
export const SERVER_ONLY_STORAGE_TYPES: ReadonlySet<string> = new Set(["redis", "sqlite", "upstash", "vercel-kv"]);

/** Environment variables that stand in for a left-out `redis`, `upstash` or `vercelKv` block (S9.1, S9.2). */
export const STORAGE_ENV = {
  redis: ["REDIS_URL"],
  upstash: ["UPSTASH_REDIS_REST_URL", "UPSTASH_REDIS_REST_TOKEN"],
  vercelKv: ["KV_REST_API_URL", "KV_REST_API_TOKEN"],
} as const;

const alwaysFold: FoldPolicy = () => true;

/**
 * Checks `init` options against S3 and applies defaults. Every problem is collected into one
 * `ResultHandlesConfigurationError` (S3.1); nothing here touches the network or the disk (S3.3).
 */
export function resolveOptions(input: unknown, runtime: OptionsRuntime): ResultHandlesConfig {
  const storageType = (input as { storage?: { type?: unknown } } | undefined)?.storage?.type;
  if (runtime.kind === "browser" && typeof storageType === "string" && SERVER_ONLY_STORAGE_TYPES.has(storageType)) {
    throw new BrowserStoreUnavailableError(storageType);
  }
  const parsed = optionsSchema.safeParse(input ?? {});
  if (!parsed.success) {
    throw new ResultHandlesConfigurationError(parsed.error.issues.flatMap(toConfigurationIssues));
  }
  const options = parsed.data;
  const storage: StorageConfig = options.storage ?? { type: "auto" };
  const issues = storageRuntimeIssues(storage, runtime);
  if (issues.length > 0) throw new ResultHandlesConfigurationError(issues);

  return Object.freeze({
    thresholdBytes: options.thresholdBytes ?? DEFAULT_THRESHOLD_BYTES,
    ttlSeconds: options.ttlSeconds ?? DEFAULT_TTL_SECONDS,
    preview: Object.freeze({
      items: options.preview?.items ?? DEFAULT_PREVIEW.items,
      chars: options.preview?.chars ?? DEFAULT_PREVIEW.chars,
    }),
    foldPolicy: options.foldPolicy ?? alwaysFold,
    storage,
    namespace: options.namespace ?? DEFAULT_NAMESPACE,
  });
}

/** Checks that need the runtime: a page cannot open IndexedDB's Node twin, and left-out credentials need their env. */
function storageRuntimeIssues(storage: StorageConfig, runtime: OptionsRuntime): ConfigurationIssue[] {
  if (storage.type === "indexeddb" && runtime.kind === "node") {
    return [{ path: "storage.type", message: 'IndexedDB exists only in web pages; use "memory", "redis" or "sqlite" in Node' }];
  }
  const block = storage.type === "vercel-kv" ? "vercelKv" : storage.type;
  if ((block === "redis" || block === "upstash" || block === "vercelKv") && (storage as Record<string, unknown>)[block] === undefined) {
    const names = STORAGE_ENV[block];
    if (names.some((name) => !runtime.env(name))) {
      return [{ path: `storage.${block}`, message: `required unless ${names.join(" and ")} ${names.length > 1 ? "are" : "is"} set` }];
    }
  }
  return [];
}

function toConfigurationIssues(issue: z.core.$ZodIssue): ConfigurationIssue[] {
  const path = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => ({ path: path ? `${path}.${key}` : key, message: "unknown option" }));
  }
  return [{ path: path || "(options)", message: describeIssue(issue) }];
}

function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "too_small":
      return `must be at least ${String(issue.minimum)}`;
    case "too_big":
      return `must be at most ${String(issue.maximum)}`;
    case "invalid_type":
      if (issue.expected === "int") return "must be a whole number";
      return `must be ${/^[aeiou]/.test(issue.expected) ? "an" : "a"} ${issue.expected}`;
    case "invalid_union":
      return issue.message.includes("discriminator")
        ? 'must be one of "auto", "memory", "indexeddb", "redis", "sqlite", "upstash", "vercel-kv"'
        : "must be { url } or { host, port, password?, db?, tls? }";
    default:
      return issue.message;
  }
}

export function storageTimeoutMs(storage: StorageConfig): number {
  return storage.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
}

export function memoryLimits(storage: StorageConfig): { maxEntries: number; maxBytes?: number } {
  const memory = storage.type === "memory" ? storage.memory : undefined;
  return { maxEntries: memory?.maxEntries ?? DEFAULT_MEMORY_MAX_ENTRIES, maxBytes: memory?.maxBytes };
}
