// S16.2 from the outside: one OAuth client, many users. A real HTTP server whose token verifier gives
// `extra.sub` 1001, 1002, "" (and null, true) for one `clientId`; real SDK clients of both eras.
import { McpServer } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResultHandlesPlugin, defaultOwner } from "mcp-result-handles";
import { connect, type Era } from "../helpers/mcp-client.js";
import { startHttpMcpServer, userToken, type HttpMcpServer } from "../helpers/http-mcp-server.js";
import { expectFoldMeta, jsonBytes } from "../helpers/fold-meta.js";

type Result = { structuredContent?: Record<string, unknown>; _meta?: Record<string, unknown>; isError?: boolean };
const rows = () => ({ rows: Array.from({ length: 300 }, (_, i) => ({ id: i, title: `Row number ${i}` })) });
const CLIENT = "shared-oauth-client";

const warnings: string[] = [];
const plugin = ResultHandlesPlugin.init({ thresholdBytes: 1024, storage: { type: "memory" } });
let http: HttpMcpServer;

beforeAll(async () => {
  const tokens = new Map([
    ["u1001", userToken(CLIENT, 1001)],
    ["u1002", userToken(CLIENT, 1002)],
    ["s1001", userToken(CLIENT, "1001")],
    ["empty", userToken(CLIENT, "")],
    ["bool", userToken(CLIENT, true)],
    ["nan", userToken(CLIENT, Number.NaN)],
    ["null", userToken(CLIENT, null)],
  ]);
  http = await startHttpMcpServer(() => {
    const server = new McpServer({ name: "owners", version: "1" });
    plugin.install(server, { logger: { warn: (message) => warnings.push(message) } });
    server.registerTool("report", { description: "300 rows" }, async () => {
      const value = rows();
      return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
    });
    return server;
  }, tokens);
});
afterAll(async () => {
  await http.close();
  await plugin.onShutdown();
});

async function as(token: string, era: Era = "2026-07-28") {
  const client = await connect(http.url, { era, token });
  return {
    call: async (name: string, args: Record<string, unknown> = {}) =>
      (await client.callTool({ name, arguments: args })) as Result,
    close: () => client.close(),
  };
}
const handleOf = (result: Result) => (result.structuredContent as { handle: string }).handle;

describe("S16.2 users of one OAuth client never share an owner", () => {
  it.each(["2026-07-28", "2025"] as const)("user 1002 cannot read user 1001's handle (%s client)", async (era) => {
    const alice = await as("u1001", era);
    const bob = await as("u1002", era);
    const folded = await alice.call("report");
    expectFoldMeta(folded, { bytes: jsonBytes(rows()), overBytes: 1024 });
    const args = { handle: handleOf(folded), path: "$.rows[7].id" };
    expect((await alice.call("result_query", args)).structuredContent).toEqual({ path: "$.rows[7].id", value: 7 });
    expect((await bob.call("result_query", args)).structuredContent).toMatchObject({
      error: { code: "RESULT_HANDLE_NOT_FOUND" },
    });
    await Promise.all([alice.close(), bob.close()]);
  });

  it("a numeric sub is its decimal text: the same user as the string sub", async () => {
    const numeric = await as("u1001");
    const text = await as("s1001");
    const handle = handleOf(await numeric.call("report"));
    expect((await text.call("result_query", { handle, path: "$.rows[0].id" })).structuredContent).toMatchObject({
      value: 0,
    });
    await Promise.all([numeric.close(), text.close()]);
  });

  it.each([
    ["empty", "an empty string"],
    ["bool", "a value of type boolean"],
    ["nan", "the number NaN"],
  ])(
    "a sub that is present but unusable (%s) makes the call anonymous: the whole answer, one warning",
    async (token, named) => {
      const user = await as(token);
      const before = warnings.length;
      for (let i = 0; i < 2; i++) expect((await user.call("report")).structuredContent).toEqual(rows());
      const mine = warnings.slice(before).filter((message) => message.includes("extra.sub"));
      expect(mine).toHaveLength(1);
      expect(mine[0]).toContain(named);
      await user.close();
    },
  );

  it("sub: null counts as absent: the client id is the caller", async () => {
    const user = await as("null");
    const folded = await user.call("report");
    expectFoldMeta(folded, { bytes: jsonBytes(rows()), overBytes: 1024 });
    expect(defaultOwner({ http: { authInfo: { clientId: CLIENT, extra: { sub: null } } } })).toEqual({
      caller: CLIENT,
    });
    await user.close();
  });

  it("defaultOwner: the rule as a function", () => {
    const ctx = (sub: unknown, sessionId?: string) => ({
      sessionId,
      http: { authInfo: { clientId: CLIENT, extra: { sub } } },
    });
    expect(defaultOwner(ctx(1001, "s"))).toEqual({ session: "s", caller: "1001" });
    expect(defaultOwner(ctx(-2.5))).toEqual({ caller: "-2.5" });
    expect(defaultOwner(ctx(undefined))).toEqual({ caller: CLIENT });
    for (const sub of ["", 0n, {}, [], Infinity, false]) expect(defaultOwner(ctx(sub, "s"))).toEqual({});
  });
});
