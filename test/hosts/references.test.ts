// S15.1-S15.3 from the outside: a real McpServer and a real v2 client, over Streamable HTTP (users by
// bearer token) and in memory. A folded answer passed on as { "$result": handle, "path"?: … }.
import { McpServer } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RESULT_HANDLE_META_KEY, ResultHandlesPlugin, type McpHostOptions } from "mcp-result-handles";
import { connect } from "../helpers/mcp-client.js";
import { linkInMemory } from "../helpers/in-memory.js";
import { startHttpMcpServer, userToken, type HttpMcpServer } from "../helpers/http-mcp-server.js";
import { noRuns, registerReferenceTools, rows } from "../helpers/reference-tools.js";
import { brokenStorage, pluginOver, rejects } from "../helpers/storage-double.js";
import { expectFoldMeta, jsonBytes } from "../helpers/fold-meta.js";

type Result = {
  structuredContent?: Record<string, unknown>;
  content?: { type: string; text?: string }[];
  _meta?: Record<string, unknown>;
  isError?: boolean;
};
type Caller = (name: string, args?: Record<string, unknown>) => Promise<Result>;
const handleOf = (result: Result) => (result.structuredContent as { handle: string }).handle;
const textOf = (result: Result) => result.content?.[0]?.text;

const runs = noRuns();
const plugin = ResultHandlesPlugin.init({ thresholdBytes: 1024, storage: { type: "memory" } });
const quiet = { warn: () => {} };
let http: HttpMcpServer;
let alice: Caller;
let bob: Caller;
const closers: (() => Promise<void>)[] = [];

async function as(token: string): Promise<Caller> {
  const client = await connect(http.url, { era: "2026-07-28", token });
  closers.push(() => client.close());
  return async (name, args = {}) => (await client.callTool({ name, arguments: args })) as Result;
}

beforeAll(async () => {
  const tokens = new Map([
    ["alice", userToken("app", "alice")],
    ["bob", userToken("app", "bob")],
  ]);
  http = await startHttpMcpServer(() => {
    const server = new McpServer({ name: "references", version: "1" });
    plugin.install(server, { logger: quiet });
    registerReferenceTools(server, runs);
    return server;
  }, tokens);
  alice = await as("alice");
  bob = await as("bob");
});
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await http.close();
  await plugin.onShutdown();
});

describe("S15.1 a reference is replaced by the value it names, before the input schema and the tool", () => {
  it("a path naming a list: the tool gets the whole list, not a page of it", async () => {
    const handle = handleOf(await alice("report"));
    const result = await alice("count_items", { items: { $result: handle, path: "$.rows" }, label: "all" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ count: 300, idSum: (299 * 300) / 2, label: "all" });
  });

  it("no path: the whole answer; a singular path: its value; every path form of S7.2", async () => {
    const handle = handleOf(await alice("report"));
    expect((await alice("echo_shape", { data: { $result: handle } })).structuredContent).toEqual({
      got: { keys: ["rows"], rows: { list: 300, first: { keys: ["id", "title"], id: 0, title: "Row number 0" } } },
    });
    for (const path of [
      "$.rows[7].title",
      "$['rows'][7]['title']",
      "rows.7.title",
      "/rows/7/title",
      "$.rows[-293].title",
    ]) {
      expect((await alice("title_of", { title: { $result: handle, path } })).structuredContent, path).toEqual({
        title: "ROW NUMBER 7",
      });
    }
  });

  it("nested, and several in one call, from two answers", async () => {
    const first = handleOf(await alice("report"));
    const second = handleOf(await alice("report"));
    const data = {
      groups: [
        { items: { $result: first, path: "$.rows" } },
        { items: { $result: second, path: "/rows" }, again: { $result: first, path: "$.rows[1]" } },
      ],
      note: { deep: { deeper: [{ $result: second, path: "rows.299.id" }] } },
    };
    const got = (await alice("echo_shape", { data })).structuredContent as {
      got: { keys: string[]; groups: unknown; note: unknown };
    };
    expect(got.got.groups).toEqual({
      list: 2,
      first: { keys: ["items"], items: { list: 300, first: { keys: ["id", "title"], id: 0, title: "Row number 0" } } },
    });
    expect(got.got.note).toEqual({ keys: ["deep"], deep: { keys: ["deeper"], deeper: { list: 1, first: 299 } } });
  });

  it("an object with $result and another key is data, passed as it is", async () => {
    const handle = handleOf(await alice("report"));
    expect((await alice("echo_shape", { data: { $result: handle, limit: 3 } })).structuredContent).toEqual({
      got: { keys: ["$result", "limit"], $result: handle, limit: 3 },
    });
  });

  it("the tool's own answer folds like any other (S4)", async () => {
    const handle = handleOf(await alice("report"));
    const echoed = await alice("echo_shape", { data: { deep: { $result: handle, path: "$.rows" } } });
    expect(echoed._meta?.[RESULT_HANDLE_META_KEY]).toBeUndefined(); // a small answer
    const folded = await alice("report");
    expectFoldMeta(folded, { bytes: jsonBytes(rows()) });
  });
});

describe(
  "S15.2 a reference that does not resolve ends the call with " + "result_query's code and text; the tool does not run",
  () => {
    it("another user's handle: RESULT_HANDLE_NOT_FOUND, exactly as result_query says it, and nothing ran", async () => {
      const handle = handleOf(await alice("report"));
      const before = { ...runs };
      const refused = await bob("count_items", { items: { $result: handle, path: "$.rows" } });
      const queried = await bob("result_query", { handle, path: "$.rows" });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/^RESULT_HANDLE_NOT_FOUND: /);
      expect(textOf(refused)).toBe(textOf(queried));
      expect(refused.structuredContent).toEqual(queried.structuredContent);
      expect(runs).toEqual(before);
    });

    it.each([
      ["an unknown handle", { $result: "00000000-0000-4000-8000-000000000000" }, "RESULT_HANDLE_NOT_FOUND"],
      ["a path naming nothing", { path: "$.rows[300]" }, "RESULT_PATH_NOT_FOUND"],
      ["a misspelt key", { path: "$.rowz" }, "RESULT_PATH_NOT_FOUND"],
      ["a path of no form", { path: "$$" }, "RESULT_PATH_NOT_FOUND"],
      ["a number for $result", { $result: 42 }, "INVALID_INPUT"],
      ["null for $result", { $result: null }, "INVALID_INPUT"],
      ["a path that is not a string", { path: 3 }, "INVALID_INPUT"],
      [
        "a reference inside a reference's path",
        { path: { $result: "00000000-0000-4000-8000-000000000000" } },
        "INVALID_INPUT",
      ],
    ])("%s: %s", async (_, change, code) => {
      const handle = handleOf(await alice("report"));
      const reference = { $result: handle, ...change };
      const before = { ...runs };
      const refused = await alice("count_items", { items: reference });
      const queried = await alice("result_query", {
        handle: reference.$result,
        ...("path" in reference ? { path: reference.path } : {}),
      });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(new RegExp(`^${code}: `));
      expect(textOf(refused)).toBe(textOf(queried));
      expect(runs).toEqual(before);
    });

    it("the first reference that fails decides, in the order of the arguments", async () => {
      const handle = handleOf(await alice("report"));
      const refused = await alice("echo_shape", {
        data: [{ $result: handle, path: "$.nope" }, { $result: "00000000-0000-4000-8000-000000000000" }],
      });
      expect(textOf(refused)).toMatch(/^RESULT_PATH_NOT_FOUND: /);
    });

    it(
      "a resolved value the input schema refuses: the SDK's own " +
        "validation error, as if the client had sent the value",
      async () => {
        const handle = handleOf(await alice("report"));
        const before = runs.count;
        const byReference = await alice("count_items", { items: { $result: handle, path: "$.rows[0].title" } });
        const sentDirectly = await alice("count_items", { items: "Row number 0" });
        expect(byReference.isError).toBe(true);
        expect(textOf(byReference)).toMatch(/Input validation error/);
        expect(textOf(byReference)).toBe(textOf(sentDirectly));
        expect(runs.count).toBe(before);
      },
    );

    it("the store down while resolving: RESULT_STORE_UNAVAILABLE, and the tool does not run", async () => {
      const broken = pluginOver(brokenStorage({ get: rejects("connection reset") }), { thresholdBytes: 1024 });
      const server = new McpServer({ name: "t", version: "1" });
      broken.plugin.install(server, { logger: broken.logger });
      const mine = noRuns();
      registerReferenceTools(server, mine);
      const client = await linkInMemory(server, "s");
      const handle = handleOf((await client.callTool({ name: "report", arguments: {} })) as Result);
      const refused = (await client.callTool({
        name: "count_items",
        arguments: { items: { $result: handle, path: "$.rows" } },
      })) as Result;
      expect(textOf(refused)).toMatch(/^RESULT_STORE_UNAVAILABLE: /);
      expect(mine.count).toBe(0);
    });
  },
);

describe("S15.1 arguments of any depth, and hostile ones", () => {
  async function local(options: McpHostOptions = {}) {
    const server = new McpServer({ name: "t", version: "1" });
    const mine = noRuns();
    ResultHandlesPlugin.init({ thresholdBytes: 1024, storage: { type: "memory" } }).install(server, {
      logger: quiet,
      ...options,
    });
    registerReferenceTools(server, mine);
    const client = await linkInMemory(server, "s");
    const call = async (name: string, args: Record<string, unknown> = {}) =>
      (await client.callTool({ name, arguments: args })) as Result;
    return { call, runs: mine };
  }

  it("a reference 100,000 lists deep resolves, without overflowing the stack", async () => {
    const { call } = await local();
    const handle = handleOf(await call("report"));
    let data: unknown = { $result: handle, path: "$.rows" };
    for (let i = 0; i < 100_000; i++) data = [data];
    const result = await call("depth_of", { data });
    expect(result.structuredContent).toMatchObject({ depth: 100_000, bottom: { list: 300 } });
  });

  it("more than 64 different references in one call: INVALID_INPUT, nothing read, nothing run", async () => {
    const { call, runs: mine } = await local();
    const handle = handleOf(await call("report"));
    const many = Array.from({ length: 65 }, (_, i) => ({ $result: handle, path: `$.rows[${i}]` }));
    const refused = await call("count_items", { items: many });
    expect(textOf(refused)).toMatch(/^INVALID_INPUT: A call may carry at most 64/);
    const same = Array.from({ length: 1000 }, () => ({ $result: handle, path: "$.rows[5]" })); // one distinct reference
    expect((await call("count_items", { items: same })).structuredContent).toMatchObject({ count: 1000, idSum: 5000 });
    expect(mine.count).toBe(1);
  });

  it("a large resolved value failing the schema everywhere: the SDK's error, cut to a few KB (S7.10)", async () => {
    const server = new McpServer({ name: "t", version: "1" });
    ResultHandlesPlugin.init({ thresholdBytes: 1024, storage: { type: "memory" } }).install(server, { logger: quiet });
    const mine = noRuns();
    registerReferenceTools(server, mine, () => rows(20_000));
    const client = await linkInMemory(server, "s");
    const handle = handleOf((await client.callTool({ name: "report", arguments: {} })) as Result);
    const titles = { $result: handle, path: "$.rows" }; // items are { id, title }; title_of wants one string
    const refused = (await client.callTool({ name: "title_of", arguments: { title: titles } })) as Result;
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^Input validation error: Invalid arguments for tool title_of/);
    const everywhere = (await client.callTool({
      name: "count_items",
      arguments: {
        items: Array.from({ length: 20_000 }, (_, i) => ({ $result: handle, path: `$.rows[${i % 60}].title` })),
      },
    })) as Result;
    expect(textOf(everywhere)).toMatch(/^Input validation error/);
    expect(textOf(everywhere)!.length).toBeLessThan(3000);
    expect(textOf(everywhere)).toMatch(/characters in all/);
    expect(mine.count + mine.title).toBe(0);
  });

  it("the tool may change what it got: later reads see the answer as it was", async () => {
    const server = new McpServer({ name: "t", version: "1" });
    ResultHandlesPlugin.init({ thresholdBytes: 1024, storage: { type: "memory" } }).install(server, { logger: quiet });
    registerReferenceTools(server, noRuns());
    server.registerTool(
      "scribble",
      {
        description: "changes its input",
        inputSchema: (await import("zod")).z.object({ data: (await import("zod")).z.any() }),
      },
      async ({ data }) => {
        (data as { rows: { title: string }[] }).rows[0]!.title = "scribbled";
        return { content: [{ type: "text", text: "done" }] };
      },
    );
    const client = await linkInMemory(server, "s");
    const handle = handleOf((await client.callTool({ name: "report", arguments: {} })) as Result);
    await client.callTool({ name: "result_query", arguments: { handle, path: "$.rows[0].title" } }); // warm any cache
    await client.callTool({ name: "scribble", arguments: { data: { $result: handle } } });
    const read = (await client.callTool({
      name: "result_query",
      arguments: { handle, path: "$.rows[0].title" },
    })) as Result;
    expect(read.structuredContent).toMatchObject({ value: "Row number 0" });
  });
});

describe("S26.2 references whose first ones' cost, projected over all, passes the call's limit", () => {
  it("are refused naming how many such references fit, and a call of that many answers", async () => {
    const server = new McpServer({ name: "t", version: "1" });
    // A cost limit a few count($.b[*]) over 6,000 items fill (each about a twentieth of it), as 64 over 60,000
    // items fill the default limit.
    ResultHandlesPlugin.init({ thresholdBytes: 1024, storage: { type: "memory" }, costLimit: 40_000_000 }).install(
      server,
      { logger: quiet },
    );
    const mine = noRuns();
    registerReferenceTools(server, mine, () => ({ a: [1], b: Array.from({ length: 6000 }, (_, i) => i) }));
    const client = await linkInMemory(server, "s");
    const call = async (name: string, args: Record<string, unknown> = {}) =>
      (await client.callTool({ name, arguments: args })) as Result;
    const handle = handleOf(await call("report"));
    const refs = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ $result: handle, path: `$.a[?count($.b[*]) > ${i}]` }));
    const refused = await call("echo_shape", { data: refs(64) });
    const said = new RegExp(
      String.raw`^INVALID_INPUT: The 64 distinct .* would cost about (\d+)% of its cost limit \(costLimit\): ` +
        String.raw`the first (\d+) cost (\d+)% of it \(S26\.2\)\. Pass at most (\d+) such references in one call`,
    ).exec(textOf(refused) ?? "");
    expect(said, textOf(refused)).not.toBeNull();
    const [projected, read, spent, fit] = said!.slice(1).map(Number) as [number, number, number, number];
    console.log(`S26.2 64 references: refused after ${read} (${spent}%, ${projected}% projected); ${fit} fit`);
    expect(mine.echo).toBe(0);
    // One fewer than the limit holds at the first ones' average (their share is rounded in the text: within one).
    expect(Math.abs(fit - ((100 * read) / spent - 1))).toBeLessThanOrEqual(1.5);
    expect(fit).toBeGreaterThanOrEqual(1);
    expect(fit).toBeLessThan(64);
    // The call it names works: the tool runs with every reference resolved.
    const answered = await call("echo_shape", { data: refs(fit) });
    expect(answered.isError, textOf(answered)).toBeFalsy();
    expect(answered.structuredContent).toMatchObject({ got: { list: fit, first: { list: 1, first: 1 } } });
    expect(mine.echo).toBe(1);
  });
});

describe("S15.3 the hint, and references: false", () => {
  it("the folded hint holds the reference JSON with the real handle", async () => {
    const folded = await alice("report");
    const handle = handleOf(folded);
    expect(folded.content?.[1]?.text).toContain(JSON.stringify({ $result: handle, path: "$.rows" }));
  });

  it("references: false on any install: no resolution (the tool sees the object) and no hint", async () => {
    const server = new McpServer({ name: "t", version: "1" });
    const first = ResultHandlesPlugin.init({ thresholdBytes: 1024, storage: { type: "memory" }, namespace: "a" });
    const second = ResultHandlesPlugin.init({ thresholdBytes: 1024, storage: { type: "memory" }, namespace: "b" });
    first.install(server, { logger: quiet, tools: ["report"] });
    second.install(server, { logger: quiet, references: false });
    registerReferenceTools(server, noRuns());
    const client = await linkInMemory(server, "s");
    const folded = (await client.callTool({ name: "report", arguments: {} })) as Result;
    expect(folded.content?.[1]?.text).not.toContain("$result");
    const handle = handleOf(folded);
    const echoed = (await client.callTool({ name: "echo_shape", arguments: { data: { $result: handle } } })) as Result;
    expect(echoed.structuredContent).toEqual({ got: { keys: ["$result"], $result: handle } });
  });
});

it("S10.1 a handle of any instance on the server resolves", async () => {
  const server = new McpServer({ name: "t", version: "1" });
  const small = ResultHandlesPlugin.init({ thresholdBytes: 1024, storage: { type: "memory" }, namespace: "small" });
  const other = ResultHandlesPlugin.init({ thresholdBytes: 2048, storage: { type: "memory" }, namespace: "other" });
  small.install(server, { logger: quiet, tools: ["report"] });
  other.install(server, { logger: quiet });
  registerReferenceTools(server, noRuns());
  const client = await linkInMemory(server, "s");
  const handle = handleOf((await client.callTool({ name: "report", arguments: {} })) as Result);
  const counted = (await client.callTool({
    name: "count_items",
    arguments: { items: { $result: handle, path: "$.rows" } },
  })) as Result;
  expect(counted.structuredContent).toMatchObject({ count: 300 });
  expect(rows().rows).toHaveLength(300);
});
