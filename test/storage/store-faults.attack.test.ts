// S26.3 attacked with shapes of its own, from the outside (a real MCP server over HTTP, a bystander whose
// tools/list is timed): many references in one call over a slow store share one deadline; a store that
// never answers ends every call by its deadline; Redis frozen under concurrent 10 MB filters. Figures are
// printed for the report.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NamespacedStorage } from "mcp-result-handles";
import { figures, startAttackBench, whileServing, type AttackBench, type Result } from "../helpers/attack-bench.js";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const codeOf = (result: Result) =>
  (result.structuredContent as { error?: { code: string } } | undefined)?.error?.code ??
  /^([A-Z_]+):/.exec(result.content?.[0]?.text ?? "")?.[1];
const handleOf = (result: Result) => (result.structuredContent as { handle?: string } | undefined)?.handle;
const rows = (n: number, width = 60) => ({
  rows: Array.from({ length: n }, (_, i) => ({ id: i, note: "x".repeat(width) })),
});

/** Keeps records in a Map; `delay` before each get; `hang` makes every get and set wait for ever. */
class FaultyStore implements NamespacedStorage {
  readonly records = new Map<string, Uint8Array>();
  delay = 0;
  hang = false;
  async get(key: string): Promise<Uint8Array | undefined> {
    if (this.hang) return new Promise(() => {});
    await sleep(this.delay);
    return this.records.get(key);
  }
  async set(key: string, value: Uint8Array): Promise<void> {
    if (this.hang) return new Promise(() => {});
    this.records.set(key, value.slice());
  }
  async delete(key: string): Promise<void> {
    this.records.delete(key);
  }
  async close(): Promise<void> {}
}

describe("S26.3 a custom store that is slow or hangs", () => {
  const store = new FaultyStore();
  let bench: AttackBench;
  beforeAll(async () => {
    bench = await startAttackBench({ thresholdBytes: 16_384, storage: { type: "custom", storage: store } });
  });
  afterAll(() => bench?.close());

  it(
    "16 references in one call, each read from a store answering " + "in 400 ms per call: one deadline for all of them",
    async () => {
      store.delay = 0;
      const handles: string[] = [];
      for (let i = 0; i < 16; i++) {
        bench.answer.next = rows(3000);
        handles.push(handleOf(await bench.alice("report"))!);
      }
      store.delay = 400;
      try {
        const items = handles.map((handle) => ({ $result: handle, path: "$.rows[0:100]" }));
        const attack = await whileServing(bench.bystander, () => bench.alice("count_items", { items }));
        console.log(
          `S26.3 16 references over a store answering in 400 ms: ${codeOf(attack.value)}; ${figures(attack)}`,
        );
        expect(codeOf(attack.value)).toBe("RESULT_STORE_UNAVAILABLE");
        expect(attack.ms).toBeLessThan(1500 + 1000); // one deadline (deadlineMs 1500), not one per reference
        expect(attack.listMaxMs).toBeLessThan(1000);
      } finally {
        store.delay = 0;
      }
    },
  );

  it("a store that never answers: a fold and a query each end by the deadline, the bystander is served", async () => {
    bench.answer.next = rows(20_000);
    const handle = handleOf(await bench.alice("report"))!;
    store.hang = true;
    try {
      const attack = await whileServing(bench.bystander, () =>
        Promise.all([
          bench.alice("report"),
          bench.bob("report"),
          bench.alice("result_query", { handle, path: "$.rows[?@.id > 10].id" }),
        ]),
      );
      const [fold, other, query] = attack.value;
      console.log(
        `S26.3 a store that never answers: 2 folds and a filter ` +
          `together: ${figures(attack)}; the query ${codeOf(query)}`,
      );
      expect(handleOf(fold)).toBeUndefined();
      expect(handleOf(other)).toBeUndefined();
      expect((fold.structuredContent as { rows: unknown[] }).rows).toHaveLength(20_000);
      expect(codeOf(query)).toBe("RESULT_STORE_UNAVAILABLE");
      expect(attack.ms).toBeLessThan(1500 + 1500); // the deadline (deadlineMs, default 1500)
      expect(attack.stallMs).toBeLessThan(300);
    } finally {
      store.hang = false;
    }
  });
});

describe("S26.3 Redis frozen under concurrent 10 MB filters", () => {
  let redis: RedisServer;
  let bench: AttackBench;
  beforeAll(async () => {
    redis = await startRedisServer();
    bench = await startAttackBench({ thresholdBytes: 16_384, storage: { type: "redis", redis: { url: redis.url } } });
  }, 30_000);
  afterAll(async () => {
    redis?.resume();
    await bench?.close();
    await redis?.dispose();
  });

  it(
    "8 filters over a 10 MB answer read piece by piece while Redis " +
      "freezes: each ends by the deadline; after SIGCONT they answer",
    async () => {
      bench.answer.next = rows(100_000);
      const handle = handleOf(await bench.alice("report"))!;
      const filter = () => bench.alice("result_query", { handle, path: "$.rows[?@.id == 99999].id" });
      expect((await filter()).structuredContent).toMatchObject({ total: 1 });
      let thawed = false;
      try {
        const attack = await whileServing(bench.bystander, async () => {
          const running = Array.from({ length: 8 }, () => filter());
          await sleep(20); // the filters are reading their pieces
          redis.pause();
          return Promise.all(running);
        });
        const codes = attack.value.map((result) => codeOf(result) ?? "answered");
        console.log(`S26.3 Redis frozen under 8 concurrent 10 MB filters: ${codes.join(", ")}; ${figures(attack)}`);
        expect(attack.ms).toBeLessThan(1500 + 1500); // the deadline (deadlineMs, default 1500)
        expect(attack.listMaxMs).toBeLessThan(1000);
        for (const code of codes) expect(["RESULT_STORE_UNAVAILABLE", "answered"]).toContain(code);
        redis.resume();
        thawed = true;
        const resumed = performance.now();
        let after = await filter();
        while (codeOf(after) === "RESULT_STORE_UNAVAILABLE" && performance.now() - resumed < 10_000) {
          await sleep(25);
          after = await filter();
        }
        const backMs = performance.now() - resumed;
        console.log(`S26.3 after SIGCONT the 10 MB filter answers again after ${Math.round(backMs)} ms`);
        expect(after.structuredContent).toMatchObject({ total: 1 });
        expect(backMs).toBeLessThan(2000); // this includes one whole 10 MB filter run
      } finally {
        if (!thawed) redis.resume();
      }
    },
    30_000,
  );
});
