/**
 * S16.4 figures for a wide object: per-query time on a 1M-key object (each query on a handle never read,
 * so nothing is cached: the medians of `--rounds` queries), the index size, and the fold time of that
 * object and of the bench's 10 MB ticket answer. Not part of `npm run bench`; run in Node:
 *
 *   node --import tsx bench/wide-object.ts [--root=<a checkout to measure, default this one>] [--rounds=5]
 *   [--stores=memory,redis]
 *
 * `--root` lets the same script measure another checkout (such as the commit before wide objects).
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type * as PublicApi from "mcp-result-handles";
import { ticketsOf } from "./answers.js";
import { timedFold } from "./measure.js";
import { startRedis } from "./servers.js";
import { wideObject } from "./shapes.js";
import { median } from "./timing.js";
import type { AnyStorageDriver } from "../src/storage/driver.js";

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => arg.replace(/^--/, "").split("=") as [string, string]),
);
const root = resolve(args.root ?? ".");
const rounds = Number(args.rounds ?? 5);
const stores = (args.stores ?? "memory,redis").split(",");
const api = (await import(pathToFileURL(join(root, "src/runtimes/node/index.ts")).href)) as typeof PublicApi;
const { redisDriver } = (await import(pathToFileURL(join(root, "src/storage/redis.ts")).href)) as {
  redisDriver: AnyStorageDriver;
};
const { withNamespace } = (await import(pathToFileURL(join(root, "src/storage/namespace.ts")).href)) as {
  withNamespace: (s: PublicApi.NamespacedStorage, ns: string) => PublicApi.NamespacedStorage;
};
const owner = { session: "bench-wide", caller: "bench" };

function join(...parts: string[]): string {
  return parts.join("/");
}

const QUERIES: Record<string, Record<string, unknown>> = {
  $: { path: "$" },
  "$ limit 5000 (refused)": { path: "$", limit: 5000 },
  "$ offset 500000 limit 10": { path: "$", offset: 500_000, limit: 10 },
  "$.key_500000": { path: "$.key_500000" },
  "$.kye_500000 (refused)": { path: "$.kye_500000" },
  "$.key_999999": { path: "$.key_999999" },
  "$.nope (refused)": { path: "$.nope" },
  "search 'value 999999'": { path: "$", search: "value 999999" },
  "search 'ü' (every batch)": { path: "$", search: "ü" },
};

/** A tool over a new store on `storage`: nothing read before is cached (a fresh handle's first query). */
function freshTool(storage: PublicApi.NamespacedStorage) {
  const store = new api.ResultHandleStore(storage, 300);
  return {
    store,
    tool: new api.ResultQueryTool(() => [
      { config: { thresholdBytes: 16_384, preview: { chars: 500 } } as never, store: async () => store },
    ]),
  };
}

async function measure(
  name: string,
  storage: PublicApi.NamespacedStorage,
  plugin: PublicApi.ResultHandlesPluginCore,
): Promise<void> {
  const wide = wideObject(1_000_000);
  const tickets = ticketsOf(10_000_000);
  const fold = (value: unknown) => timedFold(api, plugin, value, owner, name);
  const folds: number[] = [];
  const ticketFolds: number[] = [];
  for (let i = 0; i <= rounds; i++) (folds.push(await fold(wide)), ticketFolds.push(await fold(tickets)));
  const { store } = freshTool(storage);
  const handle = store.newHandle();
  await store.save(handle, wide, owner);
  const names = Object.keys(QUERIES);
  const times: Record<string, number[]> = Object.fromEntries(names.map((query) => [query, []]));
  for (let round = 0; round <= rounds; round++) {
    for (const query of names) {
      const { tool, store: reader } = freshTool(storage);
      const started = performance.now();
      try {
        await tool.query({ handle, ...QUERIES[query] }, owner);
      } catch (error) {
        if (!(error instanceof api.ResultQueryError)) throw error;
      }
      if (round > 0) times[query]!.push(performance.now() - started); // round 0 warms up
      void reader;
    }
  }
  console.log(
    `\n${name}: 1M-key object (${(JSON.stringify(wide).length / 1e6).toFixed(1)} MB), ` +
      `fold median ${median(folds.slice(1)).toFixed(0)} ms (${folds
        .slice(1)
        .map((t) => t.toFixed(0))
        .join(", ")})`,
  );
  console.log(
    `  fold of the 10 MB ticket answer: median ${median(ticketFolds.slice(1)).toFixed(0)} ms (${ticketFolds
      .slice(1)
      .map((t) => t.toFixed(0))
      .join(", ")})`,
  );
  for (const query of names)
    console.log(
      `  ${query.padEnd(28)} ${median(times[query]!).toFixed(1).padStart(8)} ` +
        `ms  (${times[query]!.map((t) => t.toFixed(1)).join(", ")})`,
    );
}

for (const store of stores) {
  if (store === "memory") {
    const plugin = api.ResultHandlesPlugin.init({
      thresholdBytes: 16_384,
      ttlSeconds: 300,
      storage: { type: "memory", memory: { maxEntries: 0, maxBytes: 200_000_000 }, timeoutMs: 60_000 },
    });
    await measure(store, new api.MemoryStorage("bench-wide", { maxBytes: 200_000_000 }), plugin);
    await plugin.onShutdown();
  } else if (store === "redis") {
    const redis = await startRedis();
    const plugin = api.ResultHandlesPlugin.init({
      thresholdBytes: 16_384,
      ttlSeconds: 300,
      storage: { type: "redis", redis: { url: redis.url }, timeoutMs: 60_000 },
    });
    const resolved = redisDriver.resolve({ type: "redis", redis: { url: redis.url } }, {
      kind: "node",
      env: () => undefined,
    } as never);
    const storage = withNamespace(await redisDriver.open({ ...resolved, timeoutMs: 60_000 }), "bench-wide");
    try {
      await measure(store, storage, plugin);
    } finally {
      await plugin.onShutdown();
      await storage.close();
      await redis.close();
    }
  }
}
