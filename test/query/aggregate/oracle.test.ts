// S24.4: every aggregate compared with a plain-code oracle of its own (helpers/aggregate-oracle.ts, over
// json-p3's nodes of the parsed answer) on seeded random answers (nested lists, members missing and of
// mixed types, unicode keys), on every store (memory, SQLite, Redis), read whole, batch by batch on the
// calling thread, and counted on real batch worker threads (S24.3); pages of groups (S7.1); the note of a
// member no node has (S18.2).
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Owner } from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { nodeBatchWorkers } from "../../../src/runtimes/node/batch-workers.js";
import { parseQueryArguments } from "../../../src/query/query.js";
import { answerWhole } from "../../helpers/query-shortcuts.js";
import {
  closeTo,
  oracleAggregate,
  PATHS,
  randomAnswer,
  seeded,
  SPECS,
  type Spec,
} from "../../helpers/aggregate-oracle.js";
import { countedQueries, everyStore } from "../../helpers/store-queries.js";
import { casesOn, soakSized } from "../../helpers/soak.js";

const owner: Owner = { session: "s-aggregate", caller: "reader" };
const config = { sliceLimitBytes: 64 * 1024, preview: { chars: 500 } } as ResultHandlesConfig;
const workers = nodeBatchWorkers({ minBytes: 0, threads: 2, idleMs: 60_000 })!;
beforeAll(async () => expect(await workers.warm()).toBe(true));
afterAll(() => workers.stop());

/** Seeded cases: a path, a spec, and sometimes a page. */
function cases(
  seed: number,
  count: number,
): { path: string; spec: Spec; paging: { offset?: number; limit?: number; page?: number } }[] {
  const random = seeded(seed);
  const out = [];
  for (let i = 0; i < count; i++) {
    const path = PATHS[Math.floor(random() * PATHS.length)]!;
    const spec = SPECS[Math.floor(random() * SPECS.length)]!;
    const r = random();
    const paging =
      r < 0.5
        ? {}
        : r < 0.7
          ? { limit: 1 + Math.floor(random() * 4) }
          : r < 0.85
            ? { offset: Math.floor(random() * 6), limit: 3 }
            : { page: 2, limit: 2 };
    out.push({ path, spec, paging });
  }
  return out;
}

/**
 * The note, checked on its own: present exactly when a member of the aggregate is on no node the path selects (and
 * there are nodes).
 */
function withoutNote(result: unknown): { result: unknown; note?: string } {
  if (result === null || typeof result !== "object" || !("note" in result)) return { result };
  const { note, ...rest } = result as { note: string };
  return { result: rest, note };
}

function expectSame(actual: unknown, expected: Record<string, unknown>, label: string): void {
  const { result, note } = withoutNote(actual);
  const difference = closeTo(result, expected);
  expect(difference, `${label}\n${JSON.stringify(actual).slice(0, 600)}`).toBeUndefined();
  // S18.2: a page past the last group says so, naming the page that has groups.
  const past = Array.isArray(expected.groups) && expected.groups.length === 0 && (expected.groupCount as number) > 0;
  if (past)
    expect(note, label).toMatch(
      new RegExp(`(^|; )offset \\d+ is past the ${expected.groupCount as number} groups: offset 0 gives the first$`),
    );
  else if (note !== undefined) expect(note, label).toMatch(/^no node .* selects has "|^no item of /);
}

describe("S24.4 aggregates against the oracle, the answer read whole", () => {
  it("seeded random answers, every path and spec", async () => {
    for (const seed of [1, 2, 3]) {
      const answer = randomAnswer(seed, 300);
      for (const { path, spec, paging } of cases(seed * 17, soakSized(60, 300))) {
        const args = parseQueryArguments({ handle: "h", path, aggregate: spec, ...paging });
        expectSame(
          await answerWhole(answer, args, config.sliceLimitBytes),
          oracleAggregate(answer, path, spec, paging),
          `seed ${seed} ${path} ${JSON.stringify(spec)} ${JSON.stringify(paging)}`,
        );
      }
    }
  });

  it("many groups, pages near the top (kept in order in one pass) and deep (sorted): the oracle's groups", async () => {
    const random = seeded(99);
    const keys = [null, true, false, 0, 1, "1", -2.5, "a", "b", "ä", "🐙", [1], { x: 1 }];
    const answer = {
      rows: Array.from({ length: 6000 }, (_, i) => ({
        k: random() < 0.2 ? keys[i % keys.length] : Math.floor(random() ** 3 * 1500),
        v: random() < 0.9 ? i % 17 : "x",
      })),
    };
    for (const paging of [
      {},
      { limit: 1 },
      { offset: 3, limit: 7 },
      { page: 5, limit: 50 },
      { offset: 900, limit: 200 },
      { offset: 1400, limit: 50 },
    ]) {
      for (const spec of [{ by: "k" }, { by: "k", sum: "v", max: "v" }, { distinct: "k" }] as Spec[]) {
        const args = parseQueryArguments({ handle: "h", path: "$.rows[*]", aggregate: spec, ...paging });
        expectSame(
          await answerWhole(answer, args, 1 << 20),
          oracleAggregate(answer, "$.rows[*]", spec, paging),
          `${JSON.stringify(spec)} ${JSON.stringify(paging)}`,
        );
      }
    }
  });

  it(
    "a member no node has gets S18.2's note naming it and the keys the nodes have; one some node has " + "never does",
    async () => {
      const answer = randomAnswer(4, 200);
      const missing = await answerWhole(
        answer,
        parseQueryArguments({ handle: "h", path: "$.rows[*]", aggregate: { by: "priorty" } }),
        config.sliceLimitBytes,
      );
      // nearest first
      expect(missing.note).toMatch(/^no node \$\.rows\[\*\] selects has "priorty"; they have priority, /);
      const present = await answerWhole(
        answer,
        parseQueryArguments({ handle: "h", path: "$.rows[*]", aggregate: { by: "owner", avg: "amount" } }),
        config.sliceLimitBytes,
      );
      expect(present.note).toBeUndefined();
      const nested = await answerWhole(
        answer,
        parseQueryArguments({ handle: "h", path: "$.rows[*]", aggregate: { sum: "@.customer.cuntry" } }),
        config.sliceLimitBytes,
      );
      expect(nested.note).toContain('has "@.customer.cuntry"');
      const none = await answerWhole(
        answer,
        parseQueryArguments({ handle: "h", path: "$.rows[?@.statuss == 'open']", aggregate: { by: "owner" } }),
        config.sliceLimitBytes,
      );
      expect(none).toMatchObject({ groups: [], total: 0, groupCount: 0 });
      // the path's own watch (S18.2)
      expect(none.note).toMatch(/^no item of \$\.rows has "statuss"; its items have status/);
    },
  );
});

describe("S24.3 aggregates over lists read batch by batch, on every store", () => {
  const stores = everyStore("aggregate-oracle");
  it.each(stores)(
    "%s: on the calling thread and on the batch workers, the oracle's answers",
    async (store, open) => {
      const storage = await open();
      const answer = randomAnswer(11, soakSized(1500, 4000));
      const plain = countedQueries(storage, { config, owner });
      const threaded = countedQueries(storage, { config, owner, workers });
      const count = vi.spyOn(workers, "count");
      try {
        const [onThread, onWorkers] = [await plain.fold(answer), await threaded.fold(answer)];
        for (const { path, spec, paging } of casesOn(store, cases(23, soakSized(45, 200)))) {
          const expected = oracleAggregate(answer, path, spec, paging);
          const label = `${store} ${path} ${JSON.stringify(spec)} ${JSON.stringify(paging)}`;
          const jobs = count.mock.calls.length;
          expectSame(
            await plain.tool.query({ handle: onThread, path, aggregate: spec, ...paging }, owner),
            expected,
            `${label} (calling thread)`,
          );
          expect(count.mock.calls.length).toBe(jobs);
          expectSame(
            await threaded.tool.query({ handle: onWorkers, path, aggregate: spec, ...paging }, owner),
            expected,
            `${label} (workers)`,
          );
        }
        expect(count.mock.calls.length).toBeGreaterThan(0); // the lists were counted on the workers
        expect(workers.usable).toBe(true);
      } finally {
        count.mockRestore();
        await plain.store.onShutdown();
        await threaded.store.onShutdown();
      }
    },
    120_000,
  );
});
