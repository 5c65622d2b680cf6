// `npm run bench:storage`: save-and-read round trip of 1 MB and 10 MB answers on each Node backend, through
// the public store API of the built package (encrypt + store, then read + decrypt + parse). Memory and SQLite
// run in this process; Redis and Upstash go to a throwaway redis-server on loopback (Upstash through the
// test suite's REST bridge, so its figure is the client plus a local bridge, not a remote Upstash).
// Prints figures; asserts nothing. Run on an idle machine; medians of several runs.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
// The built package itself (tsx would map the package name to src/ through tsconfig paths).
import { createResultHandleStore } from "../dist/node/index.js";
import { startRedisServer } from "../test/helpers/redis-server.ts";
import { startUpstashBridge } from "../test/helpers/upstash-bridge.ts";

const owner = { session: "bench-session", caller: "bench" };

function answerOf(bytes) {
  const rows = [];
  let size = 12;
  for (let i = 0; size < bytes; i++) {
    const row = { id: `T-${i}`, title: `Ticket ${i}: printer on floor ${i % 12} jams on duplex`, status: ["open", "pending", "closed"][i % 3], tags: ["hardware", i % 2 ? "urgent" : "routine"] };
    rows.push(row);
    size += JSON.stringify(row).length + 1;
  }
  return { rows, total: rows.length };
}

// Run with --expose-gc: collecting before each timed run keeps one run's garbage out of the next one's time.
const collect = globalThis.gc ?? (() => {});

async function median(runs, fn) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    collect();
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const redis = await startRedisServer();
const bridge = await startUpstashBridge(redis.url);
const dir = mkdtempSync(join(tmpdir(), "result-handles-bench-"));
const backends = [
  ["memory", { type: "memory", memory: { maxEntries: 0, maxBytes: 0 } }],
  ["sqlite", { type: "sqlite", sqlite: { path: join(dir, "bench.sqlite") } }],
  ["redis", { type: "redis", redis: { url: redis.url } }],
  ["upstash", { type: "upstash", upstash: { url: bridge.url, token: bridge.token } }],
];
const sizes = [
  ["1 MB", 1_000_000, 11],
  ["10 MB", 10_000_000, 5],
];

try {
  console.log(`Node ${process.version}, ${process.arch}; medians in ms of save (seal + store) and read (fetch + open + parse)`);
  console.log("backend | size  |   save  |   read  | round trip");
  for (const [label, bytes, runs] of sizes) {
    const value = answerOf(bytes);
    for (const [name, storage] of backends) {
      const store = await createResultHandleStore({ storage: { ...storage, timeoutMs: 60_000 }, namespace: "bench", ttlSeconds: 60 });
      const handle = store.newHandle();
      const save = await median(runs, () => store.save(handle, value, owner));
      const read = await median(runs, async () => {
        const found = await store.read(handle, owner);
        if (found?.value?.total !== value.total) throw new Error(`${name}: the answer did not read back`);
      });
      const trip = await median(runs, async () => {
        const other = store.newHandle();
        await store.save(other, value, owner);
        await store.read(other, owner);
      });
      console.log(`${name.padEnd(7)} | ${label.padEnd(5)} | ${save.toFixed(1).padStart(7)} | ${read.toFixed(1).padStart(7)} | ${trip.toFixed(1).padStart(9)}`);
      await store.onShutdown();
    }
  }
} finally {
  await bridge.close();
  await redis.dispose();
  rmSync(dir, { recursive: true, force: true });
}
