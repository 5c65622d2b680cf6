// S21.3 S21.4 S21.5 from the outside, on a real redis-server behind a real MCP server over HTTP: one owner's
// many concurrent filters over her 10 MB answer. Sixty of them once queued 600 MB of reads on the one Redis
// connection: most were answered RESULT_STORE_UNAVAILABLE ("try the same call again") though Redis was
// healthy, another owner waited 2.2-3.6 s, and every answer Redis sent stayed reachable after a collection
// (1.3 GB for 60 reads). Now an owner's calls run 8 at a time, 64 wait, the rest are refused in words that
// say so, and what was read is let go.
import v8 from "node:v8";
import vm from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUERY_CALLS_PER_OWNER } from "../../src/defaults.js";
import { startAttackBench, type AttackBench, type Result } from "../helpers/attack-bench.js";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.js";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;
/** ArrayBuffers and other memory outside the JS heap, after two collections: what is kept, not garbage. */
const kept = () => {
  gc();
  gc();
  const { external, arrayBuffers } = process.memoryUsage();
  return (external + arrayBuffers) / 1e6;
};
const codeOf = (result: Result) => (result.structuredContent as { error?: { code: string } } | undefined)?.error?.code;
const textOf = (result: Result) => result.content?.[0]?.text ?? "";

describe("S21.3 S21.5 one owner's many concurrent calls over a 10 MB answer on Redis", () => {
  let redis: RedisServer;
  let bench: AttackBench;
  let rows: string;
  let bobs: string;
  beforeAll(async () => {
    redis = await startRedisServer();
    // The default store deadline (1500 ms, S26.3): the calls must not spend it queueing behind each other.
    bench = await startAttackBench({ storage: { type: "redis", redis: { url: redis.url } } });
    bench.answer.next = {
      rows: Array.from({ length: 10_000 }, (_, i) => ({ id: i, title: `Row ${i} `.padEnd(1000, "x") })),
    };
    rows = (await bench.alice("report_structured")).structuredContent!.handle as string;
    bench.answer.next = { rows: Array.from({ length: 300 }, (_, i) => ({ id: i, title: `Row ${i}` })) };
    bobs = (await bench.bob("report_structured")).structuredContent!.handle as string;
    bench.answer.next = undefined;
  }, 60_000);
  afterAll(async () => {
    await bench?.close();
    await redis?.dispose();
  });

  const filter = (i: number) =>
    bench.alice("result_query", { handle: rows, path: `$.rows[?match(@.title, 'Row ${i}.*9')].id`, limit: 2 });
  /** Row i's ids the filter selects, from the rows as built: those whose title matches. */
  const expected = (i: number) =>
    Array.from({ length: 10_000 }, (_, id) => id)
      .filter((id) => new RegExp(`^Row ${i}.*9$`).test(`Row ${id} `.padEnd(1000, "x")))
      .slice(0, 2);

  it("sixty filters at once: every one answered, the other owner within 1 s, nothing kept after", async () => {
    const before = kept();
    let bob: { ms: number; result: Result } | undefined;
    const bobTimer = setTimeout(async () => {
      const started = performance.now();
      const result = await bench.bob("result_query", { handle: bobs, path: "$.rows[?@.id == 7].title" });
      bob = { ms: performance.now() - started, result };
    }, 300);
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => filter(i)));
    const wall = performance.now() - started;
    while (!bob) await new Promise((resolve) => setTimeout(resolve, 20));
    clearTimeout(bobTimer);
    const after = kept();
    console.log(
      `60 concurrent filters over 10 MB on Redis: all in ${Math.round(wall)} ms, codes ` +
        `${JSON.stringify(results.map(codeOf).filter(Boolean))}, bob ${Math.round(bob.ms)} ms, memory outside ` +
        `the heap kept ${Math.round(before)} -> ${Math.round(after)} MB`,
    );
    expect(results.map(codeOf).filter(Boolean)).toEqual([]);
    results.forEach((result, i) => expect(result.structuredContent).toMatchObject({ value: expected(i) }));
    expect(bob.result.structuredContent).toMatchObject({ value: ["Row 7"] });
    expect(bob.ms).toBeLessThan(1000);
    // 60 reads of 10 MB were 1.3 GB kept; what stays now is the store's own, not the reads'.
    expect(after - before).toBeLessThan(100);
  }, 120_000);

  it("past 8 running and 64 waiting, a call is refused at once in words that say why and what to do", async () => {
    const { running, waiting } = QUERY_CALLS_PER_OWNER;
    const count = running + waiting + 8;
    const results = await Promise.all(Array.from({ length: count }, (_, i) => filter(i)));
    const refused = results.filter((result) => codeOf(result) === "INVALID_INPUT");
    const answered = results.filter((result) => codeOf(result) === undefined);
    console.log(
      `${count} concurrent filters: ${answered.length} answered, ${refused.length} refused: ` +
        JSON.stringify(results.filter((result) => result.isError).map((result) => textOf(result).slice(0, 90))),
    );
    expect(answered.length + refused.length).toBe(count);
    expect(answered.length).toBeGreaterThanOrEqual(running + waiting);
    expect(refused.length).toBeGreaterThan(0);
    expect(textOf(refused[0]!)).toMatch(
      new RegExp(`^INVALID_INPUT: ${running + waiting} of your result_query calls are under way.*send this call again`),
    );
    // Another owner is not refused: its calls are counted apart.
    expect(
      (await bench.bob("result_query", { handle: bobs, path: "$.rows[?@.id == 7].title" })).structuredContent,
    ).toMatchObject({ value: ["Row 7"] });
  }, 120_000);
});
