// S25.1 no silent empty from a value: a comparison that selects nothing where the member is there but never
// of the literal's type (`@.priority == '1'`, numbers) or only in another case (`@.status == 'Open'`) says
// so, naming the values seen (at most 10, most common first, counted by plain code here); a comparison
// that simply matches nothing, or one that selects something, gets no note. The same over a list read batch
// by batch (where batches without the literal are never parsed) and counted on batch workers.
import { afterAll, describe, expect, it } from "vitest";
import { MemoryStorage, ResultHandleStore, ResultQueryTool, type Owner } from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { nodeBatchWorkers } from "../../../src/runtimes/node/batch-workers.js";
import { queryServer } from "../../helpers/query-server.js";

const STATUSES = ["open", "closed", "pending"];
const tickets = (n: number) => ({
  rows: Array.from({ length: n }, (_, i) => ({
    id: `T-${i}`,
    status: STATUSES[i % 3 === 2 ? 0 : i % 2],
    priority: (i % 5) + 1,
    owner: i % 7 === 0 ? null : `u${i % 4}`,
  })),
});

/** The oracle: the member's values as JSON, most common first (ties by their JSON text), with counts. */
function valuesSeen(rows: Record<string, unknown>[], member: string): string {
  const counts = new Map<string, number>();
  for (const row of rows)
    if (Object.hasOwn(row, member))
      counts.set(JSON.stringify(row[member]), (counts.get(JSON.stringify(row[member])) ?? 0) + 1);
  const sorted = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return (
    sorted
      .slice(0, 10)
      .map(([json, n]) => `${json} (${n})`)
      .join(", ") + (sorted.length > 10 ? ` and ${sorted.length - 10} more` : "")
  );
}

describe("S25.1 on an answer read whole (a real SDK client and server)", async () => {
  const value = tickets(200);
  const { fold, query, plugin } = await queryServer({ tickets: () => value }, { thresholdBytes: 4096 });
  afterAll(() => plugin.onShutdown());
  const { handle } = await fold("tickets");

  it("a number compared with a string: the note says so, names the values, and the call that works", async () => {
    const { ok } = await query({ handle, path: "$.rows[?@.priority == '1']" });
    expect(ok).toMatchObject({ value: [], total: 0 });
    expect(ok.note).toBe(
      `@.priority == '1' compares with a string, but @.priority there is a number: @.priority in ` +
        `$.rows is ${valuesSeen(value.rows, "priority")}. Write @.priority == 1, without quotes`,
    );
    const works = await query({ handle, path: "$.rows[?@.priority == 1]", limit: 1 });
    expect(works.ok.total).toBe(value.rows.filter((row) => row.priority === 1).length);
  });

  it("a string in another case: the note names the value that differs only in case", async () => {
    const { ok } = await query({ handle, path: "$.rows[?@.status == 'Open']" });
    expect(ok.total).toBe(0);
    expect(ok.note).toBe(
      `@.status == 'Open' matched nothing, but 'open' differs only in case (comparisons are exact): @.status ` +
        `in $.rows is ${valuesSeen(value.rows, "status")}. Write @.status == 'open', or use search for any case`,
    );
  });

  it("a string compared with numbers the other way round, and an ordering", async () => {
    expect((await query({ handle, path: "$.rows[?'3' < @.priority]" })).ok.note).toMatch(
      /^@\.priority > '3' compares with a string, but @\.priority there is a number: .*Write @\.priority > 3, without quotes$/,
    );
    expect((await query({ handle, path: "$.rows[?@.id == 5]" })).ok.note).toMatch(
      /^@\.id == 5 compares with a number, but @\.id there is a string: @\.id in \$\.rows is "T-0" \(1\), "T-1" \(1\), .* and 190 more\. Write @\.id == '5', in quotes$/,
    );
  });

  it("no note when a value of the same type simply matches nothing, or when something is selected", async () => {
    expect((await query({ handle, path: "$.rows[?@.status == 'archived']" })).ok).not.toHaveProperty("note");
    expect((await query({ handle, path: "$.rows[?@.priority == 9]" })).ok).not.toHaveProperty("note");
    expect((await query({ handle, path: "$.rows[?@.status != 'Open']", limit: 1 })).ok).not.toHaveProperty("note");
    // Nulls among strings: a string literal has strings to compare with.
    expect((await query({ handle, path: "$.rows[?@.owner == 'nobody']" })).ok).not.toHaveProperty("note");
  });
});

describe("S25.1 long strings", async () => {
  const long = { rows: Array.from({ length: 50 }, (_, i) => ({ id: i, title: `${"x".repeat(5000)} ${i}` })) };
  const { fold, query, plugin } = await queryServer({ long: () => long }, { thresholdBytes: 4096 });
  afterAll(() => plugin.onShutdown());

  it("values are shown cut to 40 characters: the note stays short whatever the strings", async () => {
    const { handle } = await fold("long");
    const { ok } = await query({ handle, path: "$.rows[?@.title == 7]" });
    expect(ok.total).toBe(0);
    expect(ok.note).toContain(`"${"x".repeat(40)}…" (50)`); // the 50 titles share their first 40 characters
    expect(ok.note.length).toBeLessThan(400);
  });
});

describe("S25.1 over a list read batch by batch, and counted on batch workers", () => {
  const owner: Owner = { session: "s-values", caller: "reader" };
  const config = { sliceLimitBytes: 16_384, preview: { chars: 60 } } as ResultHandlesConfig;
  const value = tickets(20_000);
  const workers = nodeBatchWorkers({ minBytes: 0, threads: 2, idleMs: 60_000 })!;

  it.each([
    ["on the calling thread", undefined],
    ["counted on batch workers", workers],
  ] as const)(
    "%s: the same notes, the values counted over every item",
    async (_, pool) => {
      const store = new ResultHandleStore(new MemoryStorage("values", { maxBytes: 256 * 1024 * 1024 }), 60, {
        pieceBytes: 16 * 1024,
      });
      const tool = new ResultQueryTool(() => [{ config, store: async () => store, workers: pool }]);
      if (pool) expect(await pool.warm()).toBe(true);
      const handle = store.newHandle();
      await store.save(handle, value, owner);
      const answered = pool?.answered ?? 0;
      try {
        const priority = await tool.query({ handle, path: "$.rows[?@.priority == '1']" }, owner);
        expect(priority.total).toBe(0);
        expect(priority.note).toContain(`@.priority in $.rows is ${valuesSeen(value.rows, "priority")}`);
        const status = await tool.query({ handle, path: "$.rows[?@.status == 'Open']" }, owner);
        expect(status.note).toContain(
          `'open' differs only in case (comparisons are exact): @.status ` +
            `in $.rows is ${valuesSeen(value.rows, "status")}`,
        );
        expect((await tool.query({ handle, path: "$.rows[?@.status == 'archived']" }, owner)).note).toBeUndefined();
        if (pool) expect(pool.answered).toBeGreaterThan(answered); // the workers counted batches
      } finally {
        await store.onShutdown();
      }
    },
    60_000,
  );
});

describe("S25.1 values written with escapes, over a list kept in batches", () => {
  it("are named in the note as their JSON decodes them", async () => {
    const owner: Owner = { session: "s-escapes", caller: "reader" };
    const config = { sliceLimitBytes: 16_384, preview: { chars: 60 } } as ResultHandlesConfig;
    const labels = ['Say "hi"', "back\\slash", "tab\there", "plain"];
    const value = { rows: Array.from({ length: 5_000 }, (_, i) => ({ id: i, label: labels[i % 4] })) };
    const store = new ResultHandleStore(new MemoryStorage("escapes", { maxBytes: 64 * 1024 * 1024 }), 60, {
      pieceBytes: 16 * 1024,
    });
    const tool = new ResultQueryTool(() => [{ config, store: async () => store }]);
    const handle = store.newHandle();
    await store.save(handle, value, owner);
    try {
      const got = await tool.query({ handle, path: "$.rows[?@.label == 123456789]" }, owner);
      expect(got.total).toBe(0);
      const seen = valuesSeen(value.rows, "label");
      expect(got.note).toContain(`in $.rows is ${seen}`);
      expect(seen).toContain(JSON.stringify('Say "hi"')); // the oracle's own JSON of the decoded value
    } finally {
      await store.onShutdown();
    }
  });
});
