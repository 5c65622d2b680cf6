/**
 * Fold time of two checkouts side by side, interleaved in one process (so a loaded machine slows both
 * alike): the 1M-key object, the bench's 10 MB and 100 KB ticket answers and two S4.8 shapes, on a memory store (S16.4:
 * member
 * batches must not cost the fold more than a few percent). Not part of `npm run bench`:
 *
 *   node --import tsx bench/fold-compare.ts --before=<checkout> [--after=.] [--rounds=9]
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type * as PublicApi from "mcp-result-handles";
import { ticketsOf } from "./answers.js";
import { timedFold } from "./measure.js";
import { deepObject, wideObject } from "./shapes.js";
import { median } from "./timing.js";

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => arg.replace(/^--/, "").split("=") as [string, string]),
);
const rounds = Number(args.rounds ?? 9);
const roots = { before: resolve(args.before ?? "."), after: resolve(args.after ?? ".") };
const owner = { session: "bench-fold", caller: "bench" };

const plugins = Object.fromEntries(
  await Promise.all(
    Object.entries(roots).map(async ([name, root]) => {
      const api = (await import(pathToFileURL(`${root}/src/runtimes/node/index.ts`).href)) as typeof PublicApi;
      const plugin = api.ResultHandlesPlugin.init({
        thresholdBytes: 16_384,
        ttlSeconds: 300,
        storage: { type: "memory", memory: { maxEntries: 2, maxBytes: 200_000_000 }, timeoutMs: 60_000 },
      });
      return [name, { api, plugin }] as const;
    }),
  ),
);

const answers = [
  ["1M-key object", wideObject(1_000_000)],
  ["10 MB ticket answer", ticketsOf(10_000_000)],
  ["100 KB ticket answer", ticketsOf(100_000)],
  ["object 3000 deep", deepObject(3000, 400)],
  ["object of 48k keys", wideObject(48_000)],
] as const;
for (const [label, value] of answers) {
  const times: Record<string, number[]> = { before: [], after: [] };
  for (let round = 0; round <= (JSON.stringify(value).length < 5_000_000 ? rounds * 10 : rounds); round++) {
    for (const name of round % 2 ? ["before", "after"] : ["after", "before"]) {
      const { api, plugin } = plugins[name]!;
      const ms = await timedFold(api, plugin, value, owner, name);
      if (round > 0) times[name]!.push(ms); // round 0 warms up
    }
  }
  const [before, after] = [median(times.before!), median(times.after!)];
  console.log(
    `${label}: fold median before ${before.toFixed(2)} ms, after ` +
      `${after.toFixed(2)} ms (${(((after - before) / before) * 100).toFixed(1)}%)`,
  );
}
for (const { plugin } of Object.values(plugins)) await plugin.onShutdown();
