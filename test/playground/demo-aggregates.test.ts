// S24.4 S18.7 the demo answers the docs' aggregate examples (docs/finding.md, "Counting without reading"),
// through the real demo server over HTTP and a real client, as a new user would: which owner has the most
// open priority-1 tickets in one call, with evidence paths that read back; open tickets per owner; the mean
// priority per status. Expected values come from the demo's rows counted here in plain code; the owners
// the docs' prose names are the ones counted.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoServer, type DemoServer } from "../../playground/server/demo-server.js";
import { reportRows } from "../../playground/demo-tools.js";
import { connect } from "../helpers/mcp-client.js";
import { root } from "../helpers/packed-package.js";

type Group = { key: string; count: number; avg?: number; examples: string[] };
type Answer = {
  structuredContent?: { groups?: Group[]; total?: number; groupCount?: number; value?: Record<string, unknown> };
  isError?: boolean;
};

let demo: DemoServer;
let client: Client;
let handle: string;
const call = async (args: Record<string, unknown>) =>
  (await client.callTool({ name: "result_query", arguments: { handle, ...args } })) as Answer;

beforeAll(async () => {
  demo = await startDemoServer({ port: 0, logger: { warn: () => {}, info: () => {} } });
  client = await connect(demo.url, { era: "2025", token: "demo-alice" });
  const folded = (await client.callTool({ name: "report", arguments: {} })) as {
    structuredContent?: { handle?: string };
  };
  handle = folded.structuredContent!.handle!;
});
afterAll(async () => {
  await client?.close();
  await demo?.close();
});

/** Groups of `rows` by `key`, largest first then by name, counted here. */
function countsBy<T>(rows: readonly T[], key: (row: T) => string): [string, number][] {
  const counts = new Map<string, number>();
  for (const row of rows) counts.set(key(row), (counts.get(key(row)) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

describe("S24.4 the demo's report answers the docs' aggregates", () => {
  it(
    "which owner has the most open priority-1 tickets: one call, the " +
      "counts, evidence that reads back, as the docs say",
    async () => {
      const { rows } = reportRows();
      const expected = countsBy(
        rows.filter((row) => row.status === "open" && row.priority === 1),
        (row) => row.owner,
      );
      const answer = await call({ path: "$.rows[?@.status == 'open' && @.priority == 1]", aggregate: { by: "owner" } });
      expect(answer.isError ?? false).toBe(false);
      const groups = answer.structuredContent!.groups!;
      expect(groups.map((group) => [group.key, group.count])).toEqual(expected);
      for (const group of groups) {
        for (const path of group.examples) {
          const read = await call({ path });
          expect(read.structuredContent!.value, path).toMatchObject({ owner: group.key, status: "open", priority: 1 });
        }
      }
      const most = expected.filter(([, count]) => count === expected[0]![1]).map(([owner]) => owner);
      const docs = readFileSync(join(root, "docs", "finding.md"), "utf8");
      expect(docs).toContain(`${most.join(" and ")} have the most open priority-1 tickets, ${expected[0]![1]} each`);
    },
  );

  it("open tickets per owner, and the mean priority per status", async () => {
    const { rows } = reportRows();
    const open = await call({ path: "$.rows[?@.status == 'open']", aggregate: { by: "owner" } });
    expect(open.structuredContent!.groups!.map((group) => [group.key, group.count])).toEqual(
      countsBy(
        rows.filter((row) => row.status === "open"),
        (row) => row.owner,
      ),
    );
    const mean = await call({ path: "$.rows[*]", aggregate: { by: "status", avg: "priority" } });
    for (const group of mean.structuredContent!.groups!) {
      const of = rows.filter((row) => row.status === group.key);
      expect(group.count).toBe(of.length);
      expect(group.avg).toBeCloseTo(of.reduce((sum, row) => sum + row.priority, 0) / of.length, 12);
    }
    expect(mean.structuredContent).toMatchObject({ total: rows.length, groupCount: 3 });
  });
});
