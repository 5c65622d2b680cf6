import { z } from "zod";
import {
  DEFAULT_COST_LIMIT,
  DEFAULT_NAMESPACE,
  DEFAULT_PREVIEW,
  DEFAULT_THRESHOLD_BYTES,
  DEFAULT_TTL_SECONDS,
  KNOWN_HOST_LIMITS,
  MIN_THRESHOLD_BYTES,
  type HostLimit,
} from "../defaults.js";
import { ResultHandlesConfigurationError, type ConfigurationIssue } from "../errors.js";
import { text, whole } from "../util/option-schema-parts.js";
import {
  missingEnvIssues,
  placementIssues,
  resolveStorage,
  storageSchema,
  storageTypeNames,
  type StorageCatalog,
  type StorageConfig,
  type StorageEnvironment,
} from "../storage/config.js";

import { nearestKey } from "../query/refusals/nearest-key.js";
import { isPlainObject } from "../util/json.js";
import { BARE_CATALOG } from "./bare-catalog.js";

const positive = () => whole(1);

export type { ResolvedStorageConfig, StorageConfig, StorageType } from "../storage/config.js";
export type { FoldPolicy, FoldPolicyContext, HostLimit, ResultHandlesConfig } from "../config.js";
import { tokenThresholdBytes, type FoldPolicy, type ResultHandlesConfig } from "../config.js";

/**
 * Options of `ResultHandlesPlugin.init`, all optional. An invalid value or unknown key throws
 * `ResultHandlesConfigurationError`.
 */
export interface ResultHandlesOptions {
  /**
   * Answers larger than this, as UTF-8 JSON, fold; the folded answer is at most half of it, and no slice of
   * `result_query` is larger. Whole number ≥ 1024 (`MIN_THRESHOLD_BYTES`). Default 16384.
   */
  thresholdBytes?: number;
  /**
   * Fold by tokens instead (S18.6): answers whose JSON text is estimated at more than this many tokens fold
   * (tokenx, loaded on first use). Positive whole number. Not together with `thresholdBytes`; the slice limit
   * of `result_query` is then 4 bytes a token (at least 1024).
   */
  thresholdTokens?: number;
  /** How long a folded answer can be read back, in seconds. Positive whole number. Default 600. */
  ttlSeconds?: number;
  /** How much of the answer the preview shows. Default `{ items: 5, chars: 500 }`. */
  preview?: {
    /** Items kept of every list, at every depth. Positive whole number. Default 5. */
    items?: number;
    /** Characters kept of every string, at every depth. Positive whole number. Default 500. */
    chars?: number;
  };
  /**
   * Decides per call whether a large answer folds: `(toolName, answer, { bytes, fullName, request })`, may be async.
   * Default: always fold.
   */
  foldPolicy?: FoldPolicy;
  /**
   * Where folded answers are kept, encrypted. Default `{ type: "auto" }`: Redis, Vercel KV or Upstash when
   * their environment variables are set, else memory (1000 answers, 256 MiB in Node, 64 MiB in a page).
   * Types: `auto`, `memory`, `indexeddb` (pages), `redis`, `sqlite`, `upstash`, `vercel-kv` (Node), and
   * `custom` (`{ type: "custom", storage }`, any object with `get`, `set`, `delete` and `close`, every
   * build); each takes `timeoutMs` (default 3000: one store call) and `deadlineMs` (default 1500, or a given
   * `timeoutMs` when longer: how long one tool call may wait for its store in all, S26.3).
   */
  storage?: StorageConfig;
  /** Prefix of every storage key, so several apps can share one store. Non-empty. Default `"result-handles"`. */
  namespace?: string;
  /**
   * Units of work one `result_query` call, resource read or reference may cost (S21.1): nodes visited,
   * filter-expression nodes per item, regex work, bytes decrypted and parsed, references read; a unit is
   * about a nanosecond of work. Past it the call is refused with `INVALID_INPUT` naming what cost most.
   * Positive whole number. Default 1000000000 (about one second).
   */
  costLimit?: number;
  /**
   * Fold also what the calling host would cut (S23): `"auto"` (default) knows Codex, Gemini CLI, Claude Code,
   * Cline, Goose and Zed by the `clientInfo.name` they send, and folds an answer over that host's cut (less
   * a margin) even under `thresholdBytes`; `result_query`'s slices stay within it too. `false` turns this
   * off; an object `{ [clientInfo.name]: { bytes?, chars?, lines?, tokens? } }` adds hosts or replaces the
   * known entries (positive whole numbers, at least one unit each).
   */
  hostLimits?: "auto" | false | Readonly<Record<string, HostLimitOption>>;
}

/** One host's cut as `hostLimits` takes it (S23.1): any of the four units, positive whole numbers. */
export interface HostLimitOption {
  bytes?: number;
  chars?: number;
  lines?: number;
  tokens?: number;
}

const HOST_LIMIT_UNITS = ["bytes", "chars", "lines", "tokens"] as const;

const optionsShape = {
  thresholdBytes: whole(MIN_THRESHOLD_BYTES).optional(),
  thresholdTokens: positive().optional(),
  ttlSeconds: positive().optional(),
  preview: z.strictObject({ items: positive().optional(), chars: positive().optional() }).optional(),
  foldPolicy: z.custom<FoldPolicy>((v) => typeof v === "function", { message: "must be a function" }).optional(),
  namespace: text().optional(),
  costLimit: positive().optional(),
  hostLimits: z.unknown().optional(), // checked by hostLimitIssues, which names each bad entry (S23.1)
};
const schemas = new WeakMap<StorageCatalog, z.ZodType<ResultHandlesOptions>>();

/** The options schema of a build: the same for every build but for the storage types it takes. */
function optionsSchema(catalog: StorageCatalog): z.ZodType<ResultHandlesOptions> {
  let schema = schemas.get(catalog);
  if (!schema) {
    schema = z.strictObject({
      ...optionsShape,
      storage: storageSchema(catalog).optional(),
    }) as z.ZodType<ResultHandlesOptions>;
    schemas.set(catalog, schema);
  }
  return schema;
}

/**
 * What differs between the Node and the page build when options are checked: the environment, and the
 * storage drivers (a runtime made by hand without them takes memory and custom storage, S17.3).
 */
export type OptionsRuntime = StorageEnvironment & { readonly storage?: StorageCatalog };

const alwaysFold: FoldPolicy = () => true;

/**
 * Checks `init` options against S3 and applies defaults. Every problem is collected into one
 * `ResultHandlesConfigurationError` (S3.1); nothing here touches the network or the disk (S3.3).
 */
export function resolveOptions(input: unknown, given: OptionsRuntime): ResultHandlesConfig {
  const runtime = { kind: given.kind, env: given.env, storage: given.storage ?? BARE_CATALOG };
  // A page refuses server stores before anything else (S9.4); Node reports a page-only store with the rest.
  const placement = placementIssues(input, runtime);
  const parsed = optionsSchema(runtime.storage).safeParse(input ?? {});
  const both = [...bothThresholds(input), ...hostLimitIssues(input)];
  if (!parsed.success || placement.length > 0 || both.length > 0) {
    const schema = optionsSchema(runtime.storage);
    let issues =
      parsed.error?.issues.flatMap((issue) => toConfigurationIssues(issue, runtime.storage, schema, input)) ?? [];
    // A type this build refuses has said so; its block's details would only repeat it.
    if (placement.length > 0) issues = issues.filter((issue) => !issue.path.startsWith("storage"));
    throw new ResultHandlesConfigurationError([...placement, ...both, ...issues]);
  }
  const options = parsed.data;
  const storage: StorageConfig = options.storage ?? { type: "auto" };
  const envIssues = missingEnvIssues(storage, runtime);
  if (envIssues.length > 0) throw new ResultHandlesConfigurationError(envIssues);

  return Object.freeze({
    // S4.3, S18.6: what folds; S7.6: the slice limit, the same bytes, or 4 bytes a token of a threshold in tokens.
    ...(options.thresholdTokens !== undefined
      ? { foldTokens: options.thresholdTokens, sliceLimitBytes: tokenThresholdBytes(options.thresholdTokens) }
      : {
          foldBytes: options.thresholdBytes ?? DEFAULT_THRESHOLD_BYTES,
          sliceLimitBytes: options.thresholdBytes ?? DEFAULT_THRESHOLD_BYTES,
        }),
    ttlSeconds: options.ttlSeconds ?? DEFAULT_TTL_SECONDS,
    preview: Object.freeze({
      items: options.preview?.items ?? DEFAULT_PREVIEW.items,
      chars: options.preview?.chars ?? DEFAULT_PREVIEW.chars,
    }),
    foldPolicy: options.foldPolicy ?? alwaysFold,
    storage: resolveStorage(storage, runtime),
    namespace: options.namespace ?? DEFAULT_NAMESPACE,
    costLimit: options.costLimit ?? DEFAULT_COST_LIMIT,
    hostLimits: resolveHostLimits(options.hostLimits),
  });
}

/** S23.1: the known table, nothing (`false`), or the table with the option's entries added or replacing. */
function resolveHostLimits(option: ResultHandlesOptions["hostLimits"]): Readonly<Record<string, HostLimit>> {
  if (option === false) return Object.freeze({});
  if (option === undefined || option === "auto") return KNOWN_HOST_LIMITS;
  const given = Object.entries(option).map(([name, limit]): [string, HostLimit] => {
    const known = Object.hasOwn(KNOWN_HOST_LIMITS, name) ? KNOWN_HOST_LIMITS[name]!.host : undefined;
    const units = Object.fromEntries(
      HOST_LIMIT_UNITS.filter((unit) => ownUnit(limit, unit) !== undefined).map((unit) => [unit, limit[unit]]),
    );
    return [name, Object.freeze({ host: known ?? name, ...units })];
  });
  // fromEntries defines own members: a host named "__proto__" or "constructor" is an entry like any other.
  return Object.freeze(Object.fromEntries([...Object.entries(KNOWN_HOST_LIMITS), ...given]));
}

/** S23.1, S3.1: every problem of a `hostLimits` option, each named by its path. */
function hostLimitIssues(input: unknown): ConfigurationIssue[] {
  const option = (input as { hostLimits?: unknown } | null | undefined)?.hostLimits;
  if (option === undefined || option === "auto" || option === false) return [];
  if (!isTable(option)) {
    return [
      {
        path: "hostLimits",
        message: 'must be "auto", false, or an object of { bytes?, chars?, lines?, tokens? } by clientInfo.name',
      },
    ];
  }
  const issues: ConfigurationIssue[] = [];
  for (const [name, limit] of Object.entries(option)) {
    const path = `hostLimits.${name}`;
    if (name.trim() === "") issues.push({ path: "hostLimits", message: "a host's clientInfo.name must not be empty" });
    if (!isTable(limit)) {
      issues.push({ path, message: "must be an object with bytes, chars, lines or tokens (positive whole numbers)" });
      continue;
    }
    const units = HOST_LIMIT_UNITS as readonly string[];
    for (const [unit, value] of Object.entries(limit)) {
      if (!units.includes(unit)) {
        const near = nearestKey(Object.fromEntries(units.map((known) => [known, true])), units, unit);
        issues.push({
          path: `${path}.${unit}`,
          message: `unknown unit${near ? `; did you mean ${near}?` : ""} (bytes, chars, lines or tokens)`,
        });
      } else if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
        issues.push({ path: `${path}.${unit}`, message: "must be a positive whole number" });
      }
    }
    if (!HOST_LIMIT_UNITS.some((unit) => ownUnit(limit, unit) !== undefined))
      issues.push({ path, message: "give at least one of bytes, chars, lines, tokens" });
  }
  return issues;
}

/**
 * S23.1: an object of entries, as a literal or JSON gives it. A Map, a Set or a Date holds no entries
 * Object.entries sees: it was taken as an empty table (a Map of hosts silently changed nothing).
 */
function isTable(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && Object.prototype.toString.call(value) === "[object Object]";
}

/** A unit of a host's entry, its own member only: a unit inherited from a prototype was used unchecked. */
function ownUnit(limit: object, unit: (typeof HOST_LIMIT_UNITS)[number]): unknown {
  return Object.hasOwn(limit, unit) ? (limit as Record<string, unknown>)[unit] : undefined;
}

/** S18.6, S3.1: one threshold, in bytes or in tokens; both given is a problem named with the others. */
function bothThresholds(input: unknown): ConfigurationIssue[] {
  const given = input as { thresholdBytes?: unknown; thresholdTokens?: unknown } | null | undefined;
  if (given?.thresholdBytes === undefined || given.thresholdTokens === undefined) return [];
  return [
    {
      path: "thresholdTokens",
      message:
        "give thresholdTokens or thresholdBytes, not both (with thresholdTokens the slice limit is 4 bytes a token)",
    },
  ];
}

function toConfigurationIssues(
  issue: z.core.$ZodIssue,
  catalog: StorageCatalog,
  schema: z.ZodType,
  input: unknown,
): ConfigurationIssue[] {
  const path = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    // A misspelt option names the one it is close to (issue 16): `tllSeconds` → `ttlSeconds`.
    const known = keysAt(schema, issue.path, input);
    return issue.keys.map((key) => {
      const near = nearestKey(Object.fromEntries(known.map((name) => [name, true])), known, key);
      return {
        path: path ? `${path}.${key}` : key,
        message: near ? `unknown option ${key}; did you mean ${near}?` : "unknown option",
      };
    });
  }
  const message = describeIssue(issue, catalog);
  if (path === "storage.type" && message.startsWith("must be one of")) {
    const given = (input as { storage?: { type?: unknown } }).storage?.type;
    const types = storageTypeNames(catalog);
    const near =
      typeof given === "string"
        ? nearestKey(Object.fromEntries(types.map((name) => [name, true])), types, given)
        : undefined;
    if (near) return [{ path, message: `${message}; did you mean ${JSON.stringify(near)}?` }];
  }
  return [{ path: path || "(options)", message }];
}

/** The option names an object of the schema takes at `path`, following `input` through unions by its `type`. */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[], input: unknown): string[] {
  let node: z.ZodType | undefined = schema;
  let value = input;
  for (const segment of path) {
    const object = objectOf(node, value);
    node = object?.shape[String(segment)] as z.ZodType | undefined;
    value = (value as Record<string, unknown> | undefined)?.[String(segment)];
  }
  return Object.keys(objectOf(node, value)?.shape ?? {});
}

function objectOf(node: z.ZodType | undefined, value: unknown): z.ZodObject | undefined {
  while (node instanceof z.ZodOptional) node = node.unwrap() as z.ZodType;
  if (node instanceof z.ZodDiscriminatedUnion) {
    const type = (value as { type?: unknown } | undefined)?.type;
    return (node.options as z.ZodObject[]).find((option) =>
      (option.shape.type as z.ZodLiteral).values.has(type as never),
    );
  }
  return node instanceof z.ZodObject ? node : undefined;
}

function describeIssue(issue: z.core.$ZodIssue, catalog: StorageCatalog): string {
  switch (issue.code) {
    case "too_small":
      return `must be at least ${String(issue.minimum)}`;
    case "too_big":
      return `must be at most ${String(issue.maximum)}`;
    case "invalid_type":
      if (issue.expected === "int") return "must be a whole number";
      return `must be ${/^[aeiou]/.test(issue.expected) ? "an" : "a"} ${issue.expected}`;
    case "invalid_union":
      // A union names its own shapes (a redis block's, for one); a bad `type` gets the list of types.
      return issue.message.includes("discriminator") ||
        ("note" in issue && String(issue.note).includes("discriminator"))
        ? `must be one of ${storageTypeNames(catalog)
            .map((name) => JSON.stringify(name))
            .join(", ")}`
        : issue.message;
    default:
      return issue.message;
  }
}
