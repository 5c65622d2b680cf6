// S14.1 S14.2: the public RFC 9535 compliance test suite, through the query function and through
// `result_query` on a real MCP server and client. The suite is a fixture of this repository:
// test/fixtures/jsonpath-cts/cts.json (cts.json of jsonpath-compliance-test-suite at commit 7be7c1f, BSD-2,
// its licence and source in that folder).
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { McpServer } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResultHandlesPlugin, ResultQueryError, type Owner } from "mcp-result-handles";
import type { QueryResult } from "../../../src/query/query.js";
import { answerWhole } from "../../helpers/query-shortcuts.js";
import { linkInMemory } from "../../helpers/in-memory.js";

interface CtsCase {
  name: string;
  selector: string;
  document?: unknown;
  result?: unknown[];
  results?: unknown[][];
  invalid_selector?: boolean;
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const CTS_PATH = resolve(root, "test/fixtures/jsonpath-cts/cts.json");
/** The suite's commit gives it this many cases; another count means another suite than the one named above. */
const CTS_CASES = 703;
const cases = (JSON.parse(readFileSync(CTS_PATH, "utf8")) as { tests: CtsCase[] }).tests;

const REFUSED_INVALID = new Set(["RESULT_PATH_NOT_FOUND", "INVALID_INPUT"]);

/**
 * The nodelist a result stands for: a nodelist's values; a singular query's one value (read whole with
 * limit 100000); a singular query that names nothing (RESULT_PATH_NOT_FOUND) is the empty nodelist.
 */
function nodesOf(result: QueryResult | { error: { code: string } }): unknown[] | string {
  if ("error" in result) return result.error.code === "RESULT_PATH_NOT_FOUND" ? [] : result.error.code;
  return result.paths ? (result.value as unknown[]) : [result.value];
}

/** Checks one case's outcome; returns a description of the failure, or undefined when it passes. */
function judge(test: CtsCase, outcome: QueryResult | { error: { code: string } }): string | undefined {
  if (test.invalid_selector) {
    return "error" in outcome && REFUSED_INVALID.has(outcome.error.code)
      ? undefined
      : `accepted invalid ${test.selector}`;
  }
  const nodes = nodesOf(outcome);
  const expected = test.results ?? [test.result!];
  if (!expected.some((one) => isDeepStrictEqual(one, nodes)))
    return `${test.selector}: got ${JSON.stringify(nodes).slice(0, 200)}`;
  // S14.2: a nodelist's `total` counts every selected node, null and false ones too: the suite's count
  // (every alternative of a case selects as many nodes).
  if (!("error" in outcome) && outcome.paths && outcome.total !== expected[0]!.length) {
    return `${test.selector}: total ${outcome.total}, the suite selects ${expected[0]!.length}`;
  }
  return undefined;
}

/** The case evaluated as a tool call evaluates an answer held whole, without the MCP round trip. */
async function direct(test: CtsCase): Promise<QueryResult | { error: { code: string } }> {
  try {
    return await answerWhole(test.document ?? null, { handle: "h", path: test.selector, limit: 100_000 }, 100_000_000);
  } catch (error) {
    if (error instanceof ResultQueryError) return { error: { code: error.code } };
    throw error;
  }
}

describe("S14.1 RFC 9535 compliance suite", () => {
  it(`is the suite of commit 7be7c1f: ${CTS_CASES} cases`, () => {
    expect(cases.length).toBe(CTS_CASES);
  });

  it("every case over the whole answer: valid selectors give the RFC's nodes, invalid ones are refused", async () => {
    const failures: [string, string][] = [];
    for (const test of cases) {
      const failure = judge(test, await direct(test));
      if (failure) failures.push([test.name, failure]);
    }
    const valid = cases.filter((test) => !test.invalid_selector).length;
    console.log(
      `jsonpath-cts whole answer: ${cases.length - failures.length} of ` +
        `${cases.length} pass (${valid} valid, ${cases.length - valid} invalid)`,
    );
    expect(failures).toEqual([]);
  });

  describe("through result_query on a real McpServer and Client", () => {
    const owner: Owner = { session: "cts-session" };
    let plugin: ResultHandlesPlugin;
    let call: (args: Record<string, unknown>) => Promise<{ structuredContent?: unknown; isError?: boolean }>;

    beforeAll(async () => {
      // Documents are saved straight into the plugin's store under the session's owner: most are far
      // below the smallest fold threshold, and the fold is not what this suite measures.
      plugin = ResultHandlesPlugin.init({ thresholdBytes: 1_000_000, storage: { type: "memory" } });
      const server = new McpServer({ name: "cts", version: "1" });
      plugin.install(server, { logger: { warn: () => {} } });
      const client = await linkInMemory(server, owner.session);
      call = async (args) => (await client.callTool({ name: "result_query", arguments: args })) as never;
    });
    afterAll(() => plugin.onShutdown?.());

    it("every case: the same outcomes, checked by the client against the listed outputSchema", async () => {
      const store = await plugin.store();
      const failures: string[] = [];
      let paged = 0;
      for (const test of cases) {
        const handle = store.newHandle();
        await store.save(handle, test.document ?? null, owner);
        const result = await call({ handle, path: test.selector, limit: 100_000 });
        const outcome = result.structuredContent as QueryResult | { error: { code: string } };
        if (Boolean(result.isError) !== "error" in outcome)
          failures.push(`${test.name}: isError disagrees with the content`);
        const failure = judge(test, outcome);
        if (failure) failures.push(`${test.name}: ${failure}`);
        // S14.2, S25.3: a page of one node still counts them all; its one node is the first of the suite's.
        const expected = test.results ?? [test.result];
        if (!test.invalid_selector && "paths" in outcome && outcome.paths && expected[0]!.length > 1) {
          const one = (await call({ handle, path: test.selector, limit: 1 })).structuredContent as QueryResult;
          const firsts = expected.map((nodes) => nodes![0]);
          if (one.total !== expected[0]!.length || !firsts.some((first) => isDeepStrictEqual([first], one.value))) {
            failures.push(
              `${test.name}: limit 1 gave total ${one.total} and ` +
                `${JSON.stringify(one.value).slice(0, 100)}, the suite selects ${expected[0]!.length}`,
            );
          }
          paged++;
        }
      }
      expect(paged).toBeGreaterThan(100); // cases of more than one node were paged (the suite has 200-odd)
      console.log(`jsonpath-cts result_query: ${cases.length - failures.length} of ${cases.length} pass`);
      expect(failures).toEqual([]);
    });
  });
});
