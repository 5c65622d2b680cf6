// S14.4, S14.5, S16.1 attacked from the outside (a real McpServer over HTTP, a bystander timed meanwhile):
// needles that match everywhere in 10 MB, a string of a million lines, a million-key object, and the
// nearest-key refusal there. Figures are printed for the hardening report.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  figures,
  startAttackBench,
  whileServing,
  handleOf,
  textOf,
  type AttackBench,
} from "../../helpers/attack-bench.js";

let bench: AttackBench;
beforeAll(async () => {
  bench = await startAttackBench(); // thresholdBytes 1024, the smallest allowed; preview.chars the default 500
});
afterAll(async () => {
  await bench.close();
});
async function folded(answer: unknown): Promise<string> {
  bench.answer.next = answer;
  return handleOf(await bench.alice("report"));
}
async function query(label: string, args: Record<string, unknown>) {
  const attack = await whileServing(bench.bystander, () => bench.alice("result_query", args));
  console.log(`${label}: ${figures(attack)}, reply ${JSON.stringify(attack.value).length} bytes`);
  return attack;
}

describe("S14.4 a hit always fits the slice limit", () => {
  it(
    "a match inside a long string answers its hit, cut to fit 1024 bytes, instead of refusing " + "every call",
    async () => {
      const handle = await folded({
        log: `${"x".repeat(100_000)}timeout here${"y".repeat(100_000)}`,
        other: "z".repeat(2000),
      });
      const found = await query("one hit in a 200,000-character string", { handle, search: "TIMEOUT" });
      expect(textOf(found.value)).not.toMatch(/^RESULT_SLICE_TOO_LARGE/);
      const hit = (
        found.value.structuredContent as { value: { path: string; text: string; offset: number }[]; total: number }
      ).value[0]!;
      expect(found.value.structuredContent).toMatchObject({ total: 1 });
      expect(hit.path).toBe("$.log");
      expect(hit.text).toContain("timeout here");
      expect(hit.text.length).toBeLessThanOrEqual(1000);
      expect(JSON.stringify(found.value.structuredContent).length).toBeLessThanOrEqual(1024);
      // Where the hit's text starts: result_query with that offset reads on from there.
      const on = await bench.alice("result_query", { handle, path: "$.log", offset: hit.offset, limit: 100 });
      expect((on.structuredContent as { value: string }).value).toBe(hit.text.slice(0, 100));
    },
  );
});

describe("S16.1 worst cases of search and refusals stay linear, and answers stay small", () => {
  it(
    "a needle matching every line of a 10 MB string of 1,000,000 lines, and every one of " + "1,000,000 strings",
    async () => {
      const lines = await folded({ log: Array.from({ length: 1_000_000 }, (_, i) => `a line ${i}`).join("\n") });
      for (const [label, args] of [
        ["search 'a' over 1,000,000 lines", { handle: lines, search: "a" }],
        ["search 'a' over 1,000,000 lines, limit 100,000", { handle: lines, search: "a", limit: 100_000 }],
        ["search 'a' over 1,000,000 lines, the last page", { handle: lines, search: "a", limit: 10, page: 100_000 }],
      ] as const) {
        const attack = await query(label, args);
        expect(JSON.stringify(attack.value).length).toBeLessThan(3000);
        expect(attack.stallMs).toBeLessThan(1500);
      }
      const last = await bench.alice("result_query", { handle: lines, search: "a", limit: 10, page: 100_000 });
      expect(last.structuredContent).toMatchObject({ total: 1_000_000, offset: 999_990 });
      const strings = await folded({ rows: Array.from({ length: 1_000_000 }, (_, i) => `a${i}`) });
      const every = await query("search 'a' over 1,000,000 strings", { handle: strings, search: "a", limit: 5 });
      expect(every.value.structuredContent).toMatchObject({ total: 1_000_000, nextOffset: 5 });
      expect(every.stallMs).toBeLessThan(1500);
    },
    60_000,
  );

  it("needles built against the string search of 10 MB of one character", async () => {
    const handle = await folded({ s: "a".repeat(10_000_000) });
    for (const needle of [
      "b" + "a".repeat(199),
      "a".repeat(199) + "b",
      "a".repeat(100) + "b" + "a".repeat(99),
      "a".repeat(200),
    ]) {
      const attack = await query(`search of ${needle.length} characters over 10 MB of 'a'`, { handle, search: needle });
      expect(attack.stallMs).toBeLessThan(1000);
    }
  }, 60_000);

  it("a million-key object: search over every key, and the nearest-key refusal", async () => {
    const handle = await folded(Object.fromEntries(Array.from({ length: 1_000_000 }, (_, i) => [`key${i}`, i])));
    const keys = await query("search 'key' over 1,000,000 keys", { handle, search: "key", limit: 3 });
    expect(keys.value.structuredContent).toMatchObject({ total: 1_000_000 });
    const near = await query("nearest-key refusal on 1,000,000 keys", { handle, path: "$.kez12345" });
    expect(textOf(near.value)).toMatch(/^RESULT_PATH_NOT_FOUND: .*object of 1000000 keys.*did you mean "key12345"/);
    expect(textOf(near.value).length).toBeLessThan(1200);
    const none = await query("no key near, on 1,000,000 keys", { handle, path: "$.nothingclose" });
    expect(textOf(none.value)).toMatch(/^RESULT_PATH_NOT_FOUND: /);
    for (const attack of [keys, near, none]) expect(attack.stallMs).toBeLessThan(2500);
  }, 60_000);
});
