// S14.2 nodelist answers through result_query on a real server, and S14.6 filters over answers stored
// in pieces (S8.5) on the memory store, SQLite and Redis.
import { McpServer } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  MemoryStorage,
  ResultHandlesPlugin,
  ResultHandleStore,
  ResultQueryTool,
  type NamespacedStorage,
  type Owner,
} from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { evaluateYielding } from "../../../src/query/paths/evaluate.js";
import { CostMeter } from "../../../src/query/cost.js";
import { resolveReferenceValue } from "../../helpers/query-shortcuts.js";
import { planPath } from "../../../src/query/paths/plan.js";
import { linkInMemory } from "../../helpers/in-memory.js";
import { everyStore } from "../../helpers/store-queries.js";

const rows = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    id: i,
    status: i % 3 === 0 ? "open" : "closed",
    owner: `user${i % 10}`,
    amount: i * 7,
    title: `Ticket ${i} ${"x".repeat(i % 9)}`,
  }));

type Result = { structuredContent?: Record<string, unknown>; isError?: boolean };

describe("S14.2 nodelists through result_query", () => {
  const answer = { rows: rows(300), meta: { title: "report", count: 300 } };
  let call: (args: Record<string, unknown>, client?: "mine" | "other") => Promise<Result>;
  let handle: string;
  let plugin: ResultHandlesPlugin;

  beforeAll(async () => {
    plugin = ResultHandlesPlugin.init({ thresholdBytes: 4096, storage: { type: "memory" } });
    const server = new McpServer({ name: "t", version: "1" });
    plugin.install(server, { logger: { warn: () => {} } });
    server.registerTool("report", { description: "report" }, async () => ({
      content: [{ type: "text" as const, text: JSON.stringify(answer) }],
      structuredContent: answer,
    }));
    const otherServer = new McpServer({ name: "t2", version: "1" });
    plugin.install(otherServer, { logger: { warn: () => {} } });
    const clients = {
      mine: await linkInMemory(server, "session-mine"),
      other: await linkInMemory(otherServer, "session-other"),
    };
    call = async (args, client = "mine") =>
      (await clients[client].callTool({ name: "result_query", arguments: args })) as Result;
    const folded = (await clients.mine.callTool({ name: "report", arguments: {} })) as Result;
    handle = (folded.structuredContent as { handle: string }).handle;
  });
  afterAll(() => plugin.onShutdown());

  it("a filter answers its nodes in order with their canonical paths, paged 20 at a time", async () => {
    const open = answer.rows.filter((row) => row.status === "open");
    const first = (await call({ handle, path: "$.rows[?@.status == 'open']", fields: ["id"] })).structuredContent!;
    expect(first).toEqual({
      path: "$.rows[?@.status == 'open']",
      value: open.slice(0, 20).map(({ id }) => ({ id })),
      paths: open.slice(0, 20).map(({ id }) => `$.rows[${id}]`),
      total: open.length,
      offset: 0,
      nextOffset: 20,
      // S25.3
      note: `total is the count of all ${open.length} nodes: a call with limit 1 answers it without reading them`,
    });
    const page = (
      await call({ handle, path: "$.rows[?@.status == 'open']", fields: ["id", "owner"], page: 5, limit: 20 })
    ).structuredContent!;
    expect(page).toMatchObject({ total: 100, offset: 80 });
    expect(page.nextOffset).toBeUndefined();
    expect(page.value).toEqual(open.slice(80, 100).map(({ id, owner }) => ({ id, owner })));
  });

  it("wildcards, slices, unions and descendants answer nodelists; singular JSONPath answers as S7.5", async () => {
    expect((await call({ handle, path: "$.rows[*].id", limit: 3 })).structuredContent).toMatchObject({
      value: [0, 1, 2],
      total: 300,
      nextOffset: 3,
    });
    expect((await call({ handle, path: "$.rows[::-100].id" })).structuredContent).toMatchObject({
      value: [299, 199, 99],
      paths: ["$.rows[299].id", "$.rows[199].id", "$.rows[99].id"],
    });
    expect((await call({ handle, path: "$['meta','rows'][0]" })).structuredContent).toMatchObject({
      value: [answer.rows[0]],
      total: 1,
    });
    expect((await call({ handle, path: "$..count" })).structuredContent).toMatchObject({
      value: [300],
      paths: ["$.meta.count"],
    });
    expect((await call({ handle, path: "$.rows[-1].id" })).structuredContent).toEqual({
      path: "$.rows[299].id",
      value: 299,
    });
    expect((await call({ handle, path: '$["meta"]["title"]' })).structuredContent).toEqual({
      path: "$.meta.title",
      value: "report",
      total: 6,
      offset: 0,
    });
  });

  it("a query that selects nothing is an empty result, not an error", async () => {
    const result = await call({ handle, path: "$.rows[?@.amount > 1000000]" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      path: "$.rows[?@.amount > 1000000]",
      value: [],
      paths: [],
      total: 0,
      offset: 0,
    });
  });

  it("S14.5 fields naming no key of any node say so, as for a list, instead of answering empty objects", async () => {
    const result = await call({ handle, path: "$.rows[*]", fields: ["owne"], limit: 3 });
    expect(result.isError).toBe(true);
    expect((result.structuredContent as { error: { code: string; message: string } }).error.code).toBe(
      "RESULT_PATH_NOT_FOUND",
    );
    expect((result.structuredContent as { error: { message: string } }).error.message).toMatch(
      /name no key .*did you mean "owner"/,
    );
  });

  it("a page over the threshold is refused saying how many nodes fit, and that many fit", async () => {
    const refused = await call({ handle, path: "$.rows[*]", limit: 200 });
    expect(refused.isError).toBe(true);
    const { code, message } = (refused.structuredContent as { error: { code: string; message: string } }).error;
    expect(code).toBe("RESULT_SLICE_TOO_LARGE");
    const fit = Number(/At most (\d+) nodes from offset 0 fit/.exec(message)![1]);
    expect(fit).toBeGreaterThan(0);
    expect((await call({ handle, path: "$.rows[*]", limit: fit })).structuredContent).toMatchObject({
      total: 300,
      nextOffset: fit,
    });
  });

  it(
    "an invalid query is RESULT_PATH_NOT_FOUND; a foreign handle " + "with a nodelist query is RESULT_HANDLE_NOT_FOUND",
    async () => {
      const invalid = await call({ handle, path: "$.rows[?@.status = 'open']" });
      expect((invalid.structuredContent as { error: { code: string } }).error.code).toBe("RESULT_PATH_NOT_FOUND");
      for (const path of ["$.rows[?@.status == 'open']", "$..id", "$.rows[*]"]) {
        const foreign = await call({ handle, path }, "other");
        expect(foreign.isError).toBe(true);
        expect((foreign.structuredContent as { error: { code: string } }).error.code).toBe("RESULT_HANDLE_NOT_FOUND");
      }
    },
  );
});

describe(
  "evaluateYielding and resolveReferenceValue: " +
    "what a query selects, nothing cut or paged (for search, S14.4, and references, S15)",
  () => {
    const answer = { rows: rows(50), meta: { count: 50 } };

    it("a nodelist query gives every node with its canonical path; a singular one its value and steps", async () => {
      const nodes = await evaluateYielding(answer, planPath("$.rows[?@.status == 'open'].title"), new CostMeter());
      const open = answer.rows.filter((row) => row.status === "open");
      expect(nodes).toMatchObject({ singular: false });
      if (nodes.singular) throw new Error("expected a nodelist");
      expect(nodes.nodes.map((node) => node.value)).toEqual(open.map((row) => row.title));
      expect(nodes.nodes.map((node) => node.path)).toEqual(open.map((row) => `$.rows[${row.id}].title`));
      expect(await evaluateYielding(answer, planPath("rows.49.id"), new CostMeter())).toEqual({
        singular: true,
        value: 49,
        steps: ["rows", 49, "id"],
      });
    });

    it("resolveReferenceValue: the whole value at a singular path, the node values of any other query", async () => {
      expect(await resolveReferenceValue(answer, "$.rows")).toEqual(answer.rows); // 50 rows, not a page of 20
      expect(await resolveReferenceValue(answer, "$.rows[*].id")).toEqual(answer.rows.map((row) => row.id));
      expect(await resolveReferenceValue(answer, "$.rows[?@.id > 100]")).toEqual([]);
      await expect(resolveReferenceValue(answer, "$.nope")).rejects.toThrow(
        expect.objectContaining({ code: "RESULT_PATH_NOT_FOUND" }),
      );
      await expect(resolveReferenceValue(answer, "$.rows[?")).rejects.toThrow(
        expect.objectContaining({ code: "RESULT_PATH_NOT_FOUND" }),
      );
    });
  },
);

describe("S14.6 filters over an answer stored in pieces", () => {
  const owner: Owner = { session: "s-pieces", caller: "alice" };
  const value = { rows: rows(3000), total: 3000 };
  const stores = everyStore("nodelist");

  it.each(stores)("%s: a filter reads every piece and answers as over the whole value", async (_, open) => {
    const storage = await open();
    const store = new ResultHandleStore(storage, 60, { pieceBytes: 16 * 1024 });
    const handle = store.newHandle();
    await store.save(handle, value, owner);
    const tool = new ResultQueryTool(() => [
      { config: { sliceLimitBytes: 100_000 } as ResultHandlesConfig, store: async () => store },
    ]);
    const expected = value.rows.filter((row) => row.owner === "user5" && row.amount > 14000);
    expect(expected.length).toBeGreaterThan(20);
    const first = await tool.query(
      { handle, path: '$.rows[?@.owner == "user5" && @.amount > 14000]', fields: ["id", "amount"] },
      owner,
    );
    expect(first).toEqual({
      path: '$.rows[?@.owner == "user5" && @.amount > 14000]',
      value: expected.slice(0, 20).map(({ id, amount }) => ({ id, amount })),
      paths: expected.slice(0, 20).map(({ id }) => `$.rows[${id}]`),
      total: expected.length,
      offset: 0,
      nextOffset: 20,
      // S25.3
      note: `total is the count of all ${expected.length} nodes: a call with limit 1 answers it without reading them`,
    });
    // A singular query still reads only its piece, then the nodelist reads the rest; both agree.
    expect(await tool.query({ handle, path: "$.rows[2999].title" }, owner)).toMatchObject({
      value: value.rows[2999]!.title,
    });
    expect(await tool.query({ handle, path: "$..title", offset: 2990 }, owner)).toMatchObject({
      value: value.rows.slice(2990).map((r) => r.title),
      total: 3000,
    });
    await expect(tool.query({ handle, path: "$..title" }, { session: "another" })).rejects.toMatchObject({
      code: "RESULT_HANDLE_NOT_FOUND",
    });
    await store.onShutdown();
  });
});
