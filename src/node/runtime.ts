import { ResultHandlesError } from "../errors.js";
import { memoryLimits, STORAGE_ENV, type StorageConfig } from "../options.js";
import type { Runtime } from "../runtime.js";
import { MemoryStorage } from "../storage/memory.js";
import type { NamespacedStorage } from "../storage/types.js";

const env = (name: string): string | undefined => globalThis.process?.env?.[name] || undefined;

/** S9.2: Redis, else Vercel KV, else Upstash when their variables are set, else memory. */
function resolveAuto(config: StorageConfig): StorageConfig {
  if (config.type !== "auto") return config;
  const has = (names: readonly string[]) => names.every((name) => env(name));
  if (has(STORAGE_ENV.redis)) return { type: "redis", timeoutMs: config.timeoutMs };
  if (has(STORAGE_ENV.vercelKv)) return { type: "vercel-kv", timeoutMs: config.timeoutMs };
  if (has(STORAGE_ENV.upstash)) return { type: "upstash", timeoutMs: config.timeoutMs };
  return { type: "memory", timeoutMs: config.timeoutMs };
}

async function openStorage(config: StorageConfig, namespace: string): Promise<NamespacedStorage> {
  const resolved = resolveAuto(config);
  if (resolved.type === "memory") return new MemoryStorage(namespace, memoryLimits(resolved));
  throw new ResultHandlesError("STORAGE_UNAVAILABLE", `storage type "${resolved.type}" is not in this release yet; use { type: "memory" }`);
}

export const nodeRuntime: Runtime = { kind: "node", env, openStorage };
