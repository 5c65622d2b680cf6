// S24.4 S24.3 S21.5 aggregates over a list of 1,000,000 items through a real McpServer over real HTTP, on
// memory and on a real redis-server: alice asks which owner has the most open priority-1 tickets and the
// mean priority per status, while bob (a second owner) sends a small result_query 300 ms after each starts.
// Each aggregate answers within 2 s and bob within 1 s (asserted with room for a loaded 2-core machine, as
// the other attacks are), the answers equal a plain loop's over the same items, and their evidence paths
// read back. The same filter's time is printed beside each, for the report.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAttackBenchOn, type AttackBench, type Result } from "../../helpers/attack-bench.js";
import { bobsSmallQuery, foldAs, line, withSecondCaller } from "../../helpers/second-caller.js";

const SLACK = Number(process.env.COST_SLACK ?? 2);
const ATTACK_MS = 2000 * SLACK;
const WAIT_MS = 1000 * SLACK;
const TIMEOUT = Number(process.env.COST_TIMEOUT_MS ?? 240_000);
const ITEMS = 1_000_000;
const OWNERS = ["ana", "bo", "chen", "dara", "eli", "fay", "gus", "hana", "ivo", "jun", "kai", "lea"];
const STATUSES = ["open", "closed", "pending"];

/** Tickets whose figures a plain loop knows: the owner, status and priority of item i by arithmetic. */
function tickets() {
  return {
    rows: Array.from({ length: ITEMS }, (_, i) => ({
      id: i,
      owner: OWNERS[(i * 7 + (i >> 5)) % OWNERS.length]!,
      status: STATUSES[(i >> 2) % 3]!,
      priority: 1 + ((i * 31) % 5),
    })),
  };
}

type Group = { key: unknown; count: number; avg?: number; examples: string[] };

for (const store of ["memory", "redis"] as const) {
  describe(`S24 aggregates over 1,000,000 items on ${store}`, () => {
    let bench: AttackBench;
    let bobSmall: () => Promise<Result>;
    let handle: string;
    let rows: ReturnType<typeof tickets>["rows"];

    beforeAll(async () => {
      // A store deadline long enough for a 1,000,000-item read on a loaded machine (S26.3's 3 s default may
      // end the filter compared with first): the aggregate's own time is what is held to S21.5's bound.
      bench = await startAttackBenchOn(store, { deadlineMs: 30_000 });
      bobSmall = await bobsSmallQuery(bench);
      const answer = tickets();
      rows = answer.rows;
      handle = await foldAs(bench, bench.alice, answer);
      // The batch workers load once, on the first large query (as in the other attacks).
      await bench.alice("result_query", { handle, path: "$.rows[?@.id == 1]", limit: 1 });
    }, TIMEOUT);
    afterAll(() => bench?.close());

    it(
      "which owner has the most open priority-1 tickets: one call, the oracle's counts, evidence that reads back",
      async () => {
        const path = "$.rows[?@.status == 'open' && @.priority == 1]";
        const filter = await withSecondCaller(() => bench.alice("result_query", { handle, path, limit: 1 }), bobSmall);
        const m = await withSecondCaller(
          () => bench.alice("result_query", { handle, path, aggregate: { by: "owner" }, limit: 3 }),
          bobSmall,
        );
        console.log(line(`${store}: aggregate by owner over 1,000,000 items`, m));
        console.log(line(`${store}: the same filter (limit 1)`, filter));
        const counts = new Map<string, number>();
        for (const row of rows)
          if (row.status === "open" && row.priority === 1) counts.set(row.owner, (counts.get(row.owner) ?? 0) + 1);
        const expected = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 3);
        const answer = m.result.structuredContent as {
          groups: Group[];
          total: number;
          groupCount: number;
          nextOffset?: number;
        };
        expect(answer.groups.map((group) => [group.key, group.count])).toEqual(expected);
        expect(answer).toMatchObject({
          total: [...counts.values()].reduce((a, b) => a + b, 0),
          groupCount: counts.size,
          nextOffset: 3,
        });
        expect(answer.total).toBe((filter.result.structuredContent as { total: number }).total);
        for (const example of answer.groups[0]!.examples) {
          const read = await bench.alice("result_query", { handle, path: example });
          expect(read.structuredContent).toMatchObject({
            value: { owner: answer.groups[0]!.key, status: "open", priority: 1 },
          });
        }
        expect(m.second.structuredContent).toMatchObject({ value: ["Row number 7"] });
        expect(m.ms).toBeLessThan(ATTACK_MS);
        expect(m.waitMs).toBeLessThan(WAIT_MS);
      },
      TIMEOUT,
    );

    it(
      "mean priority per status over every item, and the count alone",
      async () => {
        const m = await withSecondCaller(
          () =>
            bench.alice("result_query", { handle, path: "$.rows[*]", aggregate: { by: "status", avg: "priority" } }),
          bobSmall,
        );
        const filter = await withSecondCaller(
          () => bench.alice("result_query", { handle, path: "$.rows[*]", limit: 1 }),
          bobSmall,
        );
        console.log(line(`${store}: aggregate by status, avg priority over 1,000,000 items`, m));
        console.log(line(`${store}: the same wildcard (limit 1)`, filter));
        const sums = new Map<string, [number, number]>();
        for (const row of rows) {
          const [n, sum] = sums.get(row.status) ?? [0, 0];
          sums.set(row.status, [n + 1, sum + row.priority]);
        }
        const groups = (m.result.structuredContent as { groups: Group[] }).groups;
        expect(groups).toHaveLength(3);
        for (const group of groups) {
          const [n, sum] = sums.get(group.key as string)!;
          expect(group.count).toBe(n);
          expect(group.avg).toBeCloseTo(sum / n, 9);
        }
        expect(groups.map((group) => group.count)).toEqual(
          [...groups.map((group) => group.count)].sort((a, b) => b - a),
        );
        expect(m.second.structuredContent).toMatchObject({ value: ["Row number 7"] });
        expect(m.ms).toBeLessThan(ATTACK_MS);
        expect(m.waitMs).toBeLessThan(WAIT_MS);
        const count = await bench.alice("result_query", {
          handle,
          path: "$.rows[?@.priority > 3]",
          aggregate: { count: true, sum: "priority" },
        });
        const over = rows.filter((row) => row.priority > 3);
        expect(count.structuredContent).toMatchObject({
          value: { count: over.length, sum: over.reduce((a, row) => a + row.priority, 0), skipped: { priority: 0 } },
          total: over.length,
        });
      },
      TIMEOUT,
    );

    it(
      "by a member of 400,000 and of 1,000,000 distinct values: refused within 2 s, memory and holds bounded",
      async () => {
        // S24.3 S21.5 (issue 40): the states of the batch workers' jobs are seen as they come, and past
        // AGGREGATE_LIMITS.groups distinct values among them the call is refused then, no other job sent; a job
        // that meets the limit alone hands its refusal back (it was counted again on the calling thread). Before:
        // refused after 4-14 s (5.9-8.6 s here for a million values), +70-385 MB. Now, under a load of 12 on 2
        // cores: 1.3-1.7 s for 400,000 values, 1.1-1.3 s for a million, +5-29 MB.
        for (const path of ["$.rows[?@.priority < 3]", "$.rows[*]"]) {
          // the same nodes selected, for the machine's pace now: the refusal takes about one pass over them
          const filter = await withSecondCaller(
            () => bench.alice("result_query", { handle, path, limit: 1 }),
            bobSmall,
          );
          const heap = process.memoryUsage().heapUsed;
          const m = await withSecondCaller(
            () => bench.alice("result_query", { handle, path, aggregate: { by: "id" } }),
            bobSmall,
          );
          const grown = Math.round((process.memoryUsage().heapUsed - heap) / 1e6);
          console.log(`${line(`${store}: aggregate by id over ${path}`, m)}, heap +${grown} MB`);
          console.log(line(`${store}: the same nodes selected (limit 1)`, filter));
          // the job's own limit, or its share of the call's cost when one job holds more nodes than it may
          expect(m.result.structuredContent).toMatchObject({ error: { code: "INVALID_INPUT" } });
          expect(JSON.stringify(m.result.structuredContent)).toMatch(
            /aggregate by \\"id\\" over .* meets more than 100000 distinct values|A batch worker counting one piece of the list/,
          );
          expect(m.second.structuredContent).toMatchObject({ value: ["Row number 7"] });
          // about one pass of the same filter at most (twice it when the machine is slower than the 2 s allow)
          expect(m.ms).toBeLessThan(Math.max(ATTACK_MS, 2 * filter.ms));
          expect(m.waitMs).toBeLessThan(WAIT_MS);
          // S21.4: each job's state comes back in columns and is merged as it comes, yielding; nothing is kept
          // of it (issue 40: before, every state was kept and each seen in one piece, held 74-95 ms on a quiet
          // machine, 212-456 ms loaded, +24-39 MB). Now under a load of 7-8.5 on 2 cores: held 32-191 ms (most of
          // it the collector and the thread waiting for a core), +13-21 MB. The bar is twice the worst seen loaded.
          expect(m.stallMs).toBeLessThan(400);
          expect(grown).toBeLessThan(150);
        }
      },
      TIMEOUT,
    );
  });
}
