import { z } from "zod";
import { ResultHandlesConfigurationError } from "../errors.js";
import { text, whole } from "../util/option-schema-parts.js";
import { defineDriver, type StorageEnvironment } from "./driver.js";
import { openRedisStorage, type RedisConnection } from "./redis-client.js";

const endpoint = { host: text(), port: whole(1).max(65535) };

const redisConnection = z.union(
  [
    z.strictObject({ url: text() }),
    z.strictObject({
      ...endpoint,
      password: z.string().optional(),
      db: whole(0).optional(),
      tls: z.boolean().optional(),
    }),
    // A Redis Cluster (S17.2): any of its masters to start from; the client learns the others.
    z.strictObject({
      cluster: z.array(z.strictObject(endpoint)).min(1),
      password: z.string().optional(),
      tls: z.boolean().optional(),
    }),
  ],
  {
    error:
      "must be { url }, { host, port, password?, db?, tls? } " + "or { cluster: [{ host, port }, …], password?, tls? }",
  },
) satisfies z.ZodType<RedisConnection>;
export type { RedisConnection } from "./redis-client.js";

const CLUSTER_ENV = "REDIS_CLUSTER_URLS";
const URL_ENV = "REDIS_URL";

/**
 * `{ type: "redis", redis: { url } | { host, port, password?, db?, tls? } | { cluster: [{ host, port }, …] } }`,
 * Node only, through ioredis. Left out, `redis` comes from REDIS_CLUSTER_URLS (comma-separated
 * `redis://host:port`), else REDIS_URL; `auto` picks it when either is set (S9.2, S17.2).
 */
export const redisDriver = defineDriver({
  type: "redis",
  runsIn: ["node"],
  options: { redis: redisConnection.optional() },
  env: { block: "redis", alternatives: [[CLUSTER_ENV], [URL_ENV]] },
  resolve: ({ redis }, environment) => ({ redis: redis ?? fromEnv(environment) }),
  open: ({ redis, timeoutMs }) => openRedisStorage(redis, timeoutMs),
});

function fromEnv({ env }: StorageEnvironment): RedisConnection {
  const cluster = env(CLUSTER_ENV);
  return cluster ? clusterFromUrls(cluster) : { url: env(URL_ENV) ?? "" };
}

/** REDIS_CLUSTER_URLS as a cluster block; a password or `rediss:` on the first URL holds for every node. */
function clusterFromUrls(list: string): RedisConnection {
  const urls = list
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
  const parsed = urls.map((item) => (URL.canParse(item) ? new URL(item) : undefined));
  const bad = urls.filter((_, i) => !/^rediss?:$/.test(parsed[i]?.protocol ?? "") || !parsed[i]!.hostname);
  if (bad.length > 0 || urls.length === 0) {
    const what = bad.length > 0 ? bad.map((item) => JSON.stringify(item)).join(", ") : "nothing";
    throw new ResultHandlesConfigurationError([
      {
        path: "storage.redis",
        message: `${CLUSTER_ENV} must list redis://host:port URLs, comma-separated; it holds ${what}`,
      },
    ]);
  }
  const first = parsed[0]!;
  return {
    cluster: parsed.map((url) => ({ host: url!.hostname.replace(/^\[|\]$/g, ""), port: Number(url!.port || 6379) })),
    ...(first.password && { password: decodeURIComponent(first.password) }),
    ...(first.protocol === "rediss:" && { tls: true }),
  };
}
