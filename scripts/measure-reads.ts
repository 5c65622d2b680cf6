/**
 * S16.4 figures: per-query time of a 2000-character window on a 100 MB string answer ({ log }), and of
 * a refused `$` on a 10 MB answer (rows, a log and events), through ResultQueryTool on the memory store,
 * with the event loop's longest block. Run: npx tsx scripts/measure-reads.ts
 */
import { MemoryStorage, ResultHandleStore, ResultQueryError, ResultQueryTool } from "../src/runtimes/node/index.js";
import type { ResultHandlesConfig } from "../src/plugin/options.js";

const owner = { session: "measure", caller: "measure" };
const line = 'line "quoted" \\ tab\t ünï 😀 end\n';
const text = (chars: number) => line.repeat(Math.ceil(chars / line.length)).slice(0, chars);

async function perQuery(value: unknown, args: Record<string, unknown>, runs: number): Promise<number[]> {
  const store = new ResultHandleStore(new MemoryStorage("measure", { maxBytes: 0 }), 600);
  const handle = store.newHandle();
  const saving = performance.now();
  await store.save(handle, value, owner);
  saves.push(performance.now() - saving);
  const tool = new ResultQueryTool(() => [
    { config: { sliceLimitBytes: 16_384, preview: { chars: 500 } } as ResultHandlesConfig, store: async () => store },
  ]);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await tool.query({ handle, ...args }, owner).catch((error: unknown) => {
      if (!(error instanceof ResultQueryError)) throw error;
    });
    times.push(performance.now() - started);
  }
  await store.onShutdown();
  return times;
}

const saves: number[] = [];
const show = (times: number[]) => times.map((t) => t.toFixed(1)).join(", ") + " ms";
const log = text(100_000_000);
console.log(
  `100 MB string, $.log window (first, then cached):  ` +
    `${show(await perQuery({ log }, { path: "$.log", offset: 50_000_000 }, 4))}`,
);
const fresh: number[] = [];
for (let i = 0; i < 3; i++) fresh.push((await perQuery({ log }, { path: "$.log", offset: i * 40_000_000 }, 1))[0]!);
console.log(`100 MB string, first window of a fresh handle (×3): ${show(fresh)}`);
const tenMb = {
  report: "weekly",
  rows: Array.from({ length: 60_000 }, (_, i) => ({
    id: i,
    title: `Row ${i} ${"x".repeat(i % 50)}`,
    tags: ["a", "b"],
  })),
  log: text(4_000_000),
  meta: { pages: 3, events: Array.from({ length: 20_000 }, (_, i) => ({ at: i, kind: "tick" })) },
};
console.log(
  `${(JSON.stringify(tenMb).length / 1e6).toFixed(1)} MB answer, refused ` +
    `$:                   ${show(await perQuery(tenMb, { path: "$" }, 4))}`,
);
const rows10 = {
  rows: Array.from({ length: 100_000 }, (_, i) => ({ id: i, title: `Row ${i} ${"y".repeat(60)}` })),
  total: 100_000,
};
console.log(
  `${(JSON.stringify(rows10).length / 1e6).toFixed(1)} MB { rows, total }, refused ` +
    `$:              ${show(await perQuery(rows10, { path: "$" }, 4))}`,
);
console.log(`save times (100 MB ×4, 10 MB, 9 MB):                ${show(saves)}`);
