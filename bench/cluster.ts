/**
 * The cluster part (S17.2): folding the 10 MB ticket answer on a 3-master Redis Cluster beside one Redis,
 * and the first read of 20 rows from each, interleaved with a `JSON.stringify` and a `JSON.parse` of the
 * same answer. The cluster is the bench's own (bench/servers.ts), its records spread over the masters by slot.
 */
import type * as PublicApi from "mcp-result-handles";
import type { StorageConfig } from "mcp-result-handles";
import { ticketsOf } from "./answers.js";
import { interleaved, ratio, spread, type Ratio, type Spread } from "./timing.js";

export interface ClusterPartResult {
  bytes: number;
  rounds: number;
  /** Rounds whose fold came back whole (a store failure or timeout). */
  unfolded: { redis: number; cluster: number };
  times: Record<"stringify" | "parse" | "foldRedis" | "foldCluster" | "readRedis" | "readCluster", Spread>;
  ratios: { foldRedis: Ratio; foldCluster: Ratio; clusterOverRedis: Ratio; readRedis: Ratio; readCluster: Ratio };
}

const owner = { session: "bench-cluster", caller: "bench" };

export async function runClusterPart(
  api: Pick<typeof PublicApi, "ResultHandlesPlugin" | "foldToolResult" | "ResultQueryTool" | "RESULT_HANDLE_META_KEY">,
  storage: { redis: StorageConfig; cluster: StorageConfig },
  options: { bytes: number; rounds: number },
): Promise<ClusterPartResult> {
  const value = ticketsOf(options.bytes);
  const json = JSON.stringify(value);
  const warmup = 1;
  const plugins = {
    redis: api.ResultHandlesPlugin.init({ thresholdBytes: 16_384, ttlSeconds: 120, storage: storage.redis }),
    cluster: api.ResultHandlesPlugin.init({ thresholdBytes: 16_384, ttlSeconds: 120, storage: storage.cluster }),
  };
  const unfolded = { redis: 0, cluster: 0 };
  for (const [name, plugin] of Object.entries(plugins))
    plugin.logger = { warn: (message) => console.error(`[${name}] ${message.slice(0, 200)}`) };
  const fold = async (on: keyof typeof plugins) => {
    const folded = await api.foldToolResult(plugins[on], {
      toolName: "bench",
      result: { structuredContent: value },
      owner,
    });
    if (folded._meta?.[api.RESULT_HANDLE_META_KEY] === undefined) unfolded[on]++;
    return (folded.structuredContent as { handle?: string }).handle;
  };
  try {
    // Fresh handles for the reads, folded before the loop (see measure.ts).
    const unread = { redis: [] as (string | undefined)[], cluster: [] as (string | undefined)[] };
    for (let i = 0; i < options.rounds + warmup; i++)
      for (const on of ["redis", "cluster"] as const) unread[on].push(await fold(on));
    if (unfolded.redis || unfolded.cluster)
      throw new Error(`the 10 MB answer did not fold: ${JSON.stringify(unfolded)}`);
    const read = { path: "$.rows", offset: Math.floor(value.rows.length / 2), limit: 20 };
    const reader = (on: keyof typeof plugins) => {
      const tool = new api.ResultQueryTool(() => [plugins[on]]);
      return async () => {
        const slice = await tool.query({ ...read, handle: unread[on].pop() }, owner);
        if (!Array.isArray(slice.value) || slice.value.length !== 20)
          throw new Error(`${on}: the read did not return 20 rows`);
      };
    };
    const times = await interleaved(
      options.rounds,
      {
        stringify: () => JSON.stringify(value),
        parse: () => JSON.parse(json),
        foldRedis: () => fold("redis"),
        foldCluster: () => fold("cluster"),
        readRedis: reader("redis"),
        readCluster: reader("cluster"),
      },
      warmup,
    );
    return {
      bytes: new TextEncoder().encode(json).byteLength,
      rounds: options.rounds,
      unfolded,
      times: Object.fromEntries(
        Object.entries(times).map(([name, values]) => [name, spread(values)]),
      ) as ClusterPartResult["times"],
      ratios: {
        foldRedis: ratio(times.foldRedis, times.stringify),
        foldCluster: ratio(times.foldCluster, times.stringify),
        clusterOverRedis: ratio(times.foldCluster, times.foldRedis),
        readRedis: ratio(times.readRedis, times.parse),
        readCluster: ratio(times.readCluster, times.parse),
      },
    };
  } finally {
    await Promise.all(Object.values(plugins).map((plugin) => plugin.onShutdown()));
  }
}
