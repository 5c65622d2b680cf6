// S26.3 from the outside: a custom store (S17.3) that answers slowly, behind a real MCP server over HTTP.
// A call's store calls end within its storage deadline (deadlineMs) all together, not timeoutMs each: a
// filter over a 10 MB answer read piece by piece from a store answering in 1 s per call ends with
// RESULT_STORE_UNAVAILABLE (11 s before); a fold whose store writes slowly goes out whole, and what the
// store writes after that is deleted again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NamespacedStorage } from "mcp-result-handles";
import { startAttackBench, watchStalls, type AttackBench, type Result } from "../helpers/attack-bench.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Keeps records in a Map; each call waits `delays` first (0 until a test slows it). Counts what it holds. */
class SlowStore implements NamespacedStorage {
  readonly records = new Map<string, Uint8Array>();
  readonly delays = { get: 0, set: 0 };
  gets = 0;
  async get(key: string): Promise<Uint8Array | undefined> {
    this.gets++;
    await sleep(this.delays.get);
    return this.records.get(key);
  }
  async set(key: string, value: Uint8Array): Promise<void> {
    await sleep(this.delays.set);
    this.records.set(key, value.slice());
  }
  async delete(key: string): Promise<void> {
    this.records.delete(key);
  }
  async close(): Promise<void> {}
}

const codeOf = (result: Result) => (result.structuredContent as { error?: { code: string } } | undefined)?.error?.code;
const handleOf = (result: Result) => (result.structuredContent as { handle?: string } | undefined)?.handle;
/** About 10 MB of rows: about twenty pieces. */
const answer = { rows: Array.from({ length: 100_000 }, (_, i) => ({ id: i, name: `row ${i}`, note: "x".repeat(60) })) };

/** A query and a second caller's small query 300 ms after it (another server's store: fast), with their figures. */
async function withBystander(
  bench: AttackBench,
  other: AttackBench,
  otherHandle: string,
  attack: () => Promise<Result>,
) {
  const stalls = watchStalls();
  const started = performance.now();
  const second = (async () => {
    await sleep(300);
    const due = performance.now();
    const result = await other.alice("result_query", { handle: otherHandle, path: "$.rows[5].id" });
    return { result, waitMs: performance.now() - due };
  })();
  const result = await attack();
  const ms = performance.now() - started;
  const { result: secondResult, waitMs } = await second;
  return { result, ms, second: secondResult, waitMs, stallMs: stalls.stop() };
}

describe("S26.3 a deadline over all the store calls of one call", () => {
  const store = new SlowStore();
  let bench: AttackBench;
  let fast: AttackBench; // the second caller's server, on a memory store
  let fastHandle: string;
  beforeAll(async () => {
    bench = await startAttackBench({ thresholdBytes: 16_384, storage: { type: "custom", storage: store } });
    fast = await startAttackBench({ thresholdBytes: 16_384 });
    fast.answer.next = { rows: answer.rows.slice(0, 1000) };
    fastHandle = handleOf(await fast.alice("report"))!;
    expect(fastHandle).toBeTypeOf("string");
  }, 30_000);
  afterAll(async () => {
    await bench?.close();
    await fast?.close();
  });

  it(
    "a filter over 10 MB from a store answering in 1 s per call: " +
      "RESULT_STORE_UNAVAILABLE by the deadline, not 11 s",
    async () => {
      store.delays.get = 0;
      store.delays.set = 0;
      bench.answer.next = answer;
      const handle = handleOf(await bench.alice("report"))!;
      expect(handle).toBeTypeOf("string");
      const quick = await bench.alice("result_query", { handle, path: "$.rows[?@.id == 99999].name" });
      // with a fast store, the filter reads every piece and answers
      expect(quick.structuredContent).toMatchObject({ total: 1 });

      store.delays.get = 1000;
      const gets = store.gets;
      try {
        const m = await withBystander(bench, fast, fastHandle, () =>
          bench.alice("result_query", { handle, path: "$.rows[?@.id == 99998].name" }),
        );
        console.log(
          `S26.3 slow store (1 s per call): the 10 MB filter answered ${codeOf(m.result)} ` +
            `after ${Math.round(m.ms)} ms and ${store.gets - gets} store reads; ` +
            `a second caller waited ${Math.round(m.waitMs)} ms; event loop held up to ${Math.round(m.stallMs)} ms`,
        );
        expect(codeOf(m.result)).toBe("RESULT_STORE_UNAVAILABLE");
        expect(m.ms).toBeGreaterThanOrEqual(1500 - 100); // the deadline (deadlineMs, default 1500)…
        expect(m.ms).toBeLessThan(1500 + 1500); // …and no later: 11 s before S26.3
        expect(store.gets - gets).toBeLessThanOrEqual(8); // it stopped asking (the answer has about 20 pieces)
        expect(m.second.structuredContent).toMatchObject({ value: 5 });
        expect(m.waitMs).toBeLessThan(1000);
        expect(m.stallMs).toBeLessThan(300);
      } finally {
        store.delays.get = 0;
      }
    },
    30_000,
  );

  it(
    "a fold whose store writes in 4 s goes out whole after the deadline, and what it wrote late " + "is deleted",
    async () => {
      bench.answer.next = { rows: answer.rows.slice(0, 2000) };
      const before = store.records.size;
      store.delays.set = 4000;
      try {
        const started = performance.now();
        const fold = await bench.alice("report");
        const ms = performance.now() - started;
        expect(handleOf(fold)).toBeUndefined();
        expect((fold.structuredContent as { rows: unknown[] }).rows).toHaveLength(2000); // sent whole
        expect(ms).toBeLessThan(1500 + 1500);
        await sleep(4000 - ms + 500); // the writes end…
        console.log(
          `S26.3 slow writes (4 s): the fold went out whole after ${Math.round(ms)} ms; ` +
            `records kept once the writes ended: ${store.records.size - before}`,
        );
        expect(store.records.size).toBe(before); // …and nothing of an answer sent whole stays
      } finally {
        store.delays.set = 0;
      }
    },
    30_000,
  );

  it(
    "the deadline counts waiting for the store, not the call's own work: " +
      "deadlineMs 100 over a fast store still answers a long filter",
    async () => {
      const quick = await startAttackBench({ thresholdBytes: 16_384, storage: { type: "memory", deadlineMs: 100 } });
      try {
        quick.answer.next = answer;
        const handle = handleOf(await quick.alice("report"))!;
        const started = performance.now();
        const result = await quick.alice("result_query", { handle, path: "$.rows[?@.id == 99999].name" });
        const ms = performance.now() - started;
        console.log(
          `S26.3 deadlineMs 100 over memory: a 10 MB filter answered ` +
            `${codeOf(result) ?? "its value"} in ${Math.round(ms)} ms`,
        );
        expect(result.structuredContent).toMatchObject({ total: 1 });
        expect(ms).toBeGreaterThan(100); // longer than the deadline, all of it work, not waiting
      } finally {
        await quick.close();
      }
    },
    30_000,
  );

  it("deadlineMs 1500: the same filter is refused within 2 s (S21.5)", async () => {
    const tight = await startAttackBench({
      thresholdBytes: 16_384,
      storage: { type: "custom", storage: store, deadlineMs: 1500 },
    });
    try {
      tight.answer.next = answer;
      const handle = handleOf(await tight.alice("report"))!;
      store.delays.get = 1000;
      const m = await withBystander(tight, fast, fastHandle, () =>
        tight.alice("result_query", { handle, path: "$.rows[?@.id == 99998].name" }),
      );
      console.log(
        `S26.3 slow store, deadlineMs 1500: ${codeOf(m.result)} after ` +
          `${Math.round(m.ms)} ms; a second caller waited ${Math.round(m.waitMs)} ms`,
      );
      expect(codeOf(m.result)).toBe("RESULT_STORE_UNAVAILABLE");
      expect(m.ms).toBeLessThan(2000);
      expect(m.waitMs).toBeLessThan(1000);
    } finally {
      store.delays.get = 0;
      await tight.close();
    }
  }, 30_000);
});
