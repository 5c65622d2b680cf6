// S14.1 S14.3 JSONPath in both runtimes (Node, and again inside Chromium): json-p3 and re2js as the page
// build loads them, over an answer stored in pieces (S8.5).
import { describe, expect, it } from "vitest";
import { MemoryStorage, ResultHandleStore, ResultQueryTool, type Owner } from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { parseQueryArguments } from "../../../src/query/query.js";
import { answerWhole } from "../../helpers/query-shortcuts.js";
import { planPath } from "../../../src/query/paths/plan.js";
import { searchQueryYielding } from "../../../src/query/search/search-query.js";
import { CostMeter } from "../../../src/query/cost.js";

const owner: Owner = { session: "shared-jsonpath" };

describe("S14.1 S14.3 JSONPath in this runtime", () => {
  it("a filter over an answer in pieces answers its nodes, as over the whole value", async () => {
    const rows = Array.from({ length: 2000 }, (_, i) => ({
      id: i,
      status: ["open", "closed"][i % 2],
      text: `row ${i} ${"é".repeat(i % 5)}`,
    }));
    const store = new ResultHandleStore(new MemoryStorage("jsonpath"), 60, { pieceBytes: 16 * 1024 });
    const handle = store.newHandle();
    await store.save(handle, { rows }, owner);
    const tool = new ResultQueryTool(() => [
      {
        config: { sliceLimitBytes: 100_000, preview: { chars: 500 } } as ResultHandlesConfig,
        store: async () => store,
      },
    ]);
    const result = await tool.query(
      { handle, path: "$.rows[?@.status == 'open' && search(@.text, 'é{4}')].id", limit: 3 },
      owner,
    );
    const expected = rows.filter((row) => row.status === "open" && row.id % 5 === 4).map((row) => row.id);
    expect(result).toEqual({
      path: result.path,
      value: expected.slice(0, 3),
      paths: expected.slice(0, 3).map((id) => `$.rows[${id}].id`),
      total: expected.length,
      offset: 0,
      nextOffset: 3,
    });
    // S14.6 read batch by batch in this runtime too (WebCrypto in a page): the same answers as over the whole value.
    for (const args of [
      { path: "$.rows[*].text", offset: 1990 },
      { path: "$.rows[?@.id > 1500 && @.status == 'closed'].id", page: 3 },
      { path: "$", search: "ROW 19", offset: 100, limit: 4 },
      { path: "$.rows", search: "éé", limit: 2 },
    ]) {
      const parsed = parseQueryArguments({ handle, ...args });
      const whole =
        parsed.search === undefined
          ? await answerWhole({ rows }, parsed, 100_000)
          : await searchQueryYielding(
              { rows },
              planPath(parsed.path),
              { ...parsed, search: parsed.search },
              { sliceLimitBytes: 100_000, preview: { chars: 500 } },
              new CostMeter(),
            );
      expect(await tool.query({ handle, ...args }, owner), JSON.stringify(args)).toEqual(whole);
    }
    await store.onShutdown();
  });

  it("(a+)+b runs in linear time and $..x walks 3000 levels", async () => {
    const rows = Array.from({ length: 400 }, () => "a".repeat(40));
    const started = performance.now();
    expect((await answerWhole({ rows }, { handle: "h", path: "$.rows[?match(@, '(a+)+b')]" }, 1e6)).total).toBe(0);
    expect(performance.now() - started).toBeLessThan(2000); // a backtracking engine takes minutes here
    let deep: unknown = { x: 1 };
    for (let i = 0; i < 3000; i++) deep = { a: deep };
    expect((await answerWhole(deep, { handle: "h", path: "$..x" }, 1e6)).value).toEqual([1]);
  });
});
