// S16.2 attacked from the outside: users of one OAuth client whose tokens carry odd `sub` values, over real
// HTTP with the 2026-07-28 client. A user reads only their own handles; subs that name nobody are anonymous.
import { McpServer } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RESULT_HANDLE_META_KEY, ResultHandlesPlugin, defaultOwner } from "mcp-result-handles";
import { connect } from "../helpers/mcp-client.js";
import { startHttpMcpServer, userToken, type HttpMcpServer } from "../helpers/http-mcp-server.js";
import { expectFoldMeta, jsonBytes } from "../helpers/fold-meta.js";

type Result = { structuredContent?: Record<string, unknown>; _meta?: Record<string, unknown> };
const CLIENT = "shared-oauth-client";
const rows = () => ({ rows: Array.from({ length: 300 }, (_, i) => ({ id: i, title: `Row number ${i}` })) });
// Node's HKDF (node:crypto and its WebCrypto alike) refuses an info over 1024 bytes, and the owner is in
// the info: a sub over about 990 characters could not fold (its answers went out whole). An info that long
// is bound by its SHA-256 now (records/crypto/keys.ts), so 5,000-character subs fold and stay apart.
const long = "u".repeat(5000);
const subs: Record<string, unknown> = {
  zero: 0,
  minusZero: -0,
  zeroText: "0",
  n1001: 1001,
  s1001: "1001",
  spaces: "  ",
  space: " ",
  long,
  longOther: `${long}v`,
  medium: "m".repeat(990),
  mediumOther: "m".repeat(1000),
  big: 2 ** 53, // a token's 9007199254740993 arrives as this number too
  e21: 1e21,
  e21Text: "1e+21",
};
const warnings: string[] = [];
const plugin = ResultHandlesPlugin.init({ thresholdBytes: 1024, storage: { type: "memory" } });
let http: HttpMcpServer;
beforeAll(async () => {
  http = await startHttpMcpServer(
    () => {
      const server = new McpServer({ name: "owners", version: "1" });
      plugin.install(server, { logger: { warn: (message) => warnings.push(message) } });
      server.registerTool("report", { description: "300 rows" }, async () => ({
        content: [{ type: "text", text: JSON.stringify(rows()) }],
        structuredContent: rows(),
      }));
      return server;
    },
    new Map(Object.entries(subs).map(([token, sub]) => [token, userToken(CLIENT, sub)])),
  );
});
afterAll(async () => {
  await http.close();
  await plugin.onShutdown();
});

async function as(token: string) {
  const client = await connect(http.url, { era: "2026-07-28", token });
  return {
    call: async (name: string, args: Record<string, unknown> = {}) =>
      (await client.callTool({ name, arguments: args })) as Result,
    close: () => client.close(),
  };
}
/** Whether `reader` can read a handle folded for `folder`. */
async function reads(folder: string, reader: string): Promise<boolean> {
  const [a, b] = [await as(folder), await as(reader)];
  const folded = await a.call("report");
  // folded at all: the warning says why not
  expect(folded._meta?.[RESULT_HANDLE_META_KEY], `${folder}: ${warnings.at(-1)?.slice(0, 300)}`).toBeDefined();
  expectFoldMeta(folded, { bytes: jsonBytes(rows()) });
  const handle = (folded.structuredContent as { handle: string }).handle;
  const read = await b.call("result_query", { handle, path: "$.rows[1].id" });
  await Promise.all([a.close(), b.close()]);
  return (read.structuredContent as { value?: unknown }).value === 1;
}

describe("S16.2 odd subs from the outside", () => {
  it("a number's decimal text: 0, -0 and '0' are one caller; 1001 and '1001' are one caller", async () => {
    expect(await reads("zero", "minusZero")).toBe(true);
    expect(await reads("minusZero", "zeroText")).toBe(true);
    expect(await reads("n1001", "s1001")).toBe(true);
    expect(await reads("zero", "n1001")).toBe(false);
  });

  it(
    "whitespace subs are subjects of their own, and a 5,000-character " +
      "sub is one too (never cut: a prefix would be shared)",
    async () => {
      expect(await reads("spaces", "space")).toBe(false);
      expect(await reads("spaces", "spaces")).toBe(true);
      const start = performance.now();
      expect(await reads("long", "longOther")).toBe(false); // they differ in their last character only
      expect(await reads("long", "long")).toBe(true);
      console.log(`5,000-character subs: two fold-and-read rounds in ${Math.round(performance.now() - start)} ms`);
      expect(await reads("medium", "mediumOther")).toBe(false); // 990–1000 characters: the info just past 1024 bytes
      expect(await reads("mediumOther", "mediumOther")).toBe(true);
    },
  );

  it("a number past 2^53 names nobody (many subjects round to it): anonymous, whole answers, one warning", async () => {
    const before = warnings.length;
    for (const token of ["big", "e21"]) {
      const user = await as(token);
      expect((await user.call("report")).structuredContent, token).toEqual(rows());
      await user.close();
    }
    expect(warnings.slice(before).filter((message) => message.includes("past 2^53"))).toHaveLength(1);
    expect(await reads("e21Text", "e21Text")).toBe(true); // the string "1e+21" is a subject like any string
    expect(defaultOwner({ http: { authInfo: { clientId: CLIENT, extra: { sub: Number.MAX_SAFE_INTEGER } } } })).toEqual(
      { caller: "9007199254740991" },
    );
    expect(defaultOwner({ http: { authInfo: { clientId: CLIENT, extra: { sub: -(2 ** 53) } } } })).toEqual({});
  });
});
