/**
 * The Node stores the bench runs on: memory, SQLite (temp files), Redis (a throwaway redis-server on a free
 * loopback port) and Upstash (a REST bridge to that redis-server, bench/servers.ts, so its figure is the
 * client plus a local bridge, not a remote Upstash). Also the store round trip table
 * (was `bench:storage`): save (seal + store) and read (fetch + open + parse) through `createResultHandleStore`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as PublicApi from "mcp-result-handles";
import type { StorageConfig } from "mcp-result-handles";
import {
  startRedis,
  startRedisCluster,
  startUpstashBridge,
  type BenchCluster,
  type BenchServer,
  type UpstashEndpoint,
} from "./servers.js";
import { ticketsOf } from "./answers.js";
import { memoryFor, type Keep } from "./measure.js";
import { interleaved, ratio, spread, type Ratio, type Spread } from "./timing.js";

/**
 * Large answers take longer than the default 3 s store timeout on a loaded machine; a timeout would leave them
 * unfolded.
 */
const TIMEOUT_MS = 60_000;

export interface NodeStores {
  /** `keep`: what a memory store must hold (the others ignore it). */
  storage(store: string, keep?: Keep): StorageConfig;
  close(): Promise<void>;
}

export async function openNodeStores(options: {
  redis: boolean;
  upstash: boolean;
  cluster?: boolean;
}): Promise<NodeStores> {
  const dir = mkdtempSync(join(tmpdir(), "result-handles-bench-"));
  let redis: BenchServer | undefined;
  let bridge: UpstashEndpoint | undefined;
  let cluster: BenchCluster | undefined;
  try {
    if (options.redis || options.upstash) redis = await startRedis();
    if (options.upstash && redis) bridge = await startUpstashBridge(redis.url);
    if (options.cluster) cluster = await startRedisCluster();
  } catch (error) {
    await bridge?.close();
    await redis?.close();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  let files = 0;
  return {
    storage(store, keep = { answers: 1, bytes: 10_000_000 }) {
      switch (store) {
        case "memory":
          // Only what the case needs, so the folds of a timed loop do not pile up.
          return memoryFor(keep);
        case "sqlite":
          return { type: "sqlite", sqlite: { path: join(dir, `bench-${files++}.sqlite`) }, timeoutMs: TIMEOUT_MS };
        case "redis":
          if (!redis) throw new Error("redis-server was not started");
          return { type: "redis", redis: { url: redis.url }, timeoutMs: TIMEOUT_MS };
        case "cluster":
          if (!cluster) throw new Error("the Redis Cluster was not started");
          return { type: "redis", redis: { cluster: [...cluster.endpoints] }, timeoutMs: TIMEOUT_MS };
        case "upstash":
          if (!bridge) throw new Error("the Upstash bridge was not started");
          return { type: "upstash", upstash: { url: bridge.url, token: bridge.token }, timeoutMs: TIMEOUT_MS };
        default:
          throw new Error(`unknown store ${store}`);
      }
    },
    async close() {
      await bridge?.close();
      await redis?.close();
      await cluster?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface RoundTripResult {
  store: string;
  size: string;
  bytes: number;
  rounds: number;
  times: { stringify: Spread; parse: Spread; save: Spread; read: Spread };
  ratios: { save: Ratio; read: Ratio };
}

/** Save and read through `createResultHandleStore`, against stringify and parse of the same answer, interleaved. */
export async function storeRoundTrips(
  createResultHandleStore: typeof PublicApi.createResultHandleStore,
  stores: NodeStores,
  backends: readonly string[],
  sizes: readonly { label: string; bytes: number; rounds: number }[],
  report: (row: RoundTripResult) => void,
): Promise<RoundTripResult[]> {
  const owner = { session: "bench-session", caller: "bench" };
  const rows: RoundTripResult[] = [];
  for (const size of sizes) {
    const value = ticketsOf(size.bytes);
    const json = JSON.stringify(value);
    for (const backend of backends) {
      // Memory keeps every save here: evicting the answer read each round would turn reads into misses.
      const storage =
        backend === "memory"
          ? { type: "memory" as const, memory: { maxEntries: 0 }, timeoutMs: TIMEOUT_MS }
          : stores.storage(backend);
      const store = await createResultHandleStore({ storage, namespace: "bench", ttlSeconds: 120 });
      try {
        const handle = store.newHandle();
        await store.save(handle, value, owner);
        const times = await interleaved(size.rounds, {
          stringify: () => JSON.stringify(value),
          parse: () => JSON.parse(json),
          save: () => store.save(store.newHandle(), value, owner),
          read: async () => {
            const found = (await store.read(handle, owner)) as { value?: { total?: number } } | undefined;
            if (found?.value?.total !== value.total) throw new Error(`${backend}: the answer did not read back`);
          },
        });
        const row: RoundTripResult = {
          store: backend,
          size: size.label,
          bytes: json.length,
          rounds: size.rounds,
          times: {
            stringify: spread(times.stringify),
            parse: spread(times.parse),
            save: spread(times.save),
            read: spread(times.read),
          },
          ratios: { save: ratio(times.save, times.stringify), read: ratio(times.read, times.parse) },
        };
        report(row);
        rows.push(row);
      } finally {
        await store.onShutdown();
      }
    }
  }
  return rows;
}
