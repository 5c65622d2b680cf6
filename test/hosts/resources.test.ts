// S15.4 from the outside: install(server, { resources: true }) with a real McpServer and real clients
// (v2 over Streamable HTTP in both eras, users by bearer token; the SDK v1 client over HTTP), on the
// memory store and on a real redis-server.
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1HttpClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RESULT_HANDLE_META_KEY, ResultHandlesPlugin, type ResultHandlesOptions } from "mcp-result-handles";
import { connect, type Era } from "../helpers/mcp-client.js";
import { startHttpMcpServer, userToken, type HttpMcpServer } from "../helpers/http-mcp-server.js";
import { noRuns, registerReferenceTools, rows } from "../helpers/reference-tools.js";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.js";

type Result = {
  structuredContent?: Record<string, unknown>;
  content?: Record<string, unknown>[];
  _meta?: Record<string, unknown>;
};
type Read = { contents: { uri: string; mimeType?: string; text?: string }[]; ttlMs?: number; cacheScope?: string };
const quiet = { warn: () => {} };
const tokens = new Map([
  ["alice", userToken("app", "alice")],
  ["bob", userToken("app", "bob")],
]);

async function serve(storage: ResultHandlesOptions["storage"], resources: boolean) {
  const plugin = ResultHandlesPlugin.init({ thresholdBytes: 1024, ttlSeconds: 300, storage });
  const http = await startHttpMcpServer(() => {
    const server = new McpServer({ name: "resources", version: "1" });
    plugin.install(server, { logger: quiet, resources });
    registerReferenceTools(server, noRuns());
    return server;
  }, tokens);
  return { plugin, http };
}

async function client(url: string, token: string, era: Era = "2026-07-28") {
  const c = await connect(url, { era, token });
  return {
    call: async (name: string) => (await c.callTool({ name, arguments: {} })) as Result,
    read: async (uri: string) => (await c.readResource({ uri })) as unknown as Read,
    templates: () => c.listResourceTemplates(),
    refusal: (uri: string) =>
      c.readResource({ uri }).then(
        () => undefined,
        (error: { code?: number; message: string; data?: unknown }) => error,
      ),
    close: () => c.close(),
  };
}

function suite(name: string, storage: () => ResultHandlesOptions["storage"]) {
  describe(`S15.4 resources on ${name}`, () => {
    let on: Awaited<ReturnType<typeof serve>>;
    let off: Awaited<ReturnType<typeof serve>>;
    beforeAll(async () => {
      on = await serve(storage(), true);
      off = await serve(storage(), false);
    });
    afterAll(async () => {
      for (const { http, plugin } of [on, off]) {
        await http.close();
        await plugin.onShutdown();
      }
    });

    it("the folded content ends with a resource_link only when on; the template is listed only when on", async () => {
      const alice = await client(on.http.url, "alice");
      const folded = await alice.call("report");
      const handle = (folded.structuredContent as { handle: string }).handle;
      const bytes = (folded._meta?.[RESULT_HANDLE_META_KEY] as { bytes: number }).bytes;
      expect(folded.content).toHaveLength(3);
      expect(folded.content?.[2]).toMatchObject({
        type: "resource_link",
        uri: `result-handle://${handle}`,
        mimeType: "application/json",
        size: bytes,
      });
      expect(typeof folded.content?.[2]?.name).toBe("string");
      expect((await alice.templates()).resourceTemplates).toEqual([
        expect.objectContaining({
          name: "result-handle",
          uriTemplate: "result-handle://{handle}",
          mimeType: "application/json",
        }),
      ]);
      const plain = await client(off.http.url, "alice");
      expect((await plain.call("report")).content).toHaveLength(2);
      expect((await plain.templates()).resourceTemplates).toEqual([]); // the server has no resources capability
      await Promise.all([alice.close(), plain.close()]);
    });

    it.each(["2026-07-28", "2025"] as const)(
      "reads the whole answer, and a slice with a query string (%s client)",
      async (era) => {
        const alice = await client(on.http.url, "alice", era);
        const folded = await alice.call("report");
        const uri = (folded.content?.[2] as { uri: string }).uri;
        const whole = await alice.read(uri);
        expect(whole.contents).toHaveLength(1);
        expect(whole.contents[0]).toMatchObject({ uri, mimeType: "application/json" });
        expect(JSON.parse(whole.contents[0]!.text!)).toEqual(rows());
        if (era === "2026-07-28") {
          expect(whole.cacheScope).toBe("private");
          expect(whole.ttlMs).toBeGreaterThan(290_000);
          expect(whole.ttlMs).toBeLessThanOrEqual(300_000);
        } else {
          expect(whole).not.toHaveProperty("ttlMs"); // the 2025 revisions have no cache hints
          expect(whole).not.toHaveProperty("cacheScope");
        }
        const sliced = await alice.read(`${uri}?path=${encodeURIComponent("$.rows")}&offset=10&limit=3&fields=id`);
        expect(JSON.parse(sliced.contents[0]!.text!)).toEqual({
          path: "$.rows",
          value: [{ id: 10 }, { id: 11 }, { id: 12 }],
          total: 300,
          offset: 10,
          nextOffset: 13,
        });
        const paged = await alice.read(`${uri}?path=%2Frows&page=3&limit=2&fields=id,title`);
        expect(JSON.parse(paged.contents[0]!.text!)).toMatchObject({
          value: [
            { id: 4, title: "Row number 4" },
            { id: 5, title: "Row number 5" },
          ],
          offset: 4,
        });
        const one = await alice.read(`${uri}?path=${encodeURIComponent("$.rows[7].title")}`);
        expect(JSON.parse(one.contents[0]!.text!)).toEqual({
          path: "$.rows[7].title",
          value: "Row number 7",
          total: 12,
          offset: 0,
        });
        await alice.close();
      },
    );

    it(
      "foreign, unknown and malformed handles: the SDK's resource-not-found error, the same but " + "for the URI",
      async () => {
        const alice = await client(on.http.url, "alice");
        const bob = await client(on.http.url, "bob");
        const uri = ((await alice.call("report")).content?.[2] as { uri: string }).uri;
        const unknown = "result-handle://00000000-0000-4000-8000-000000000000";
        const refusals = [
          await bob.refusal(uri),
          await alice.refusal(unknown),
          await alice.refusal("result-handle://not-a-handle"),
          await bob.refusal(`${uri}?path=%24.rows`),
        ];
        const uris = [uri, unknown, "result-handle://not-a-handle", `${uri}?path=%24.rows`];
        for (let i = 0; i < refusals.length; i++) {
          const refusal = refusals[i]!;
          expect(refusal, uris[i]).toBeDefined();
          expect(refusal!.code).toBe(-32602);
          expect(refusal!.message.replace(uris[i]!, "<uri>")).toBe(refusals[0]!.message.replace(uris[0]!, "<uri>"));
          expect(refusal!.message).toMatch(/Resource not found/);
        }
        await Promise.all([alice.close(), bob.close()]);
      },
    );

    it("other refusals of S7.6: invalid params whose message starts with the code", async () => {
      const alice = await client(on.http.url, "alice");
      const uri = ((await alice.call("report")).content?.[2] as { uri: string }).uri;
      for (const [query, code] of [
        ["?path=%24.nope", "RESULT_PATH_NOT_FOUND"],
        ["?limit=abc", "INVALID_INPUT"],
        ["?offset=-1", "INVALID_INPUT"],
        ["?path=%24.rows&limit=200", "RESULT_SLICE_TOO_LARGE"],
      ] as const) {
        const refusal = await alice.refusal(`${uri}${query}`);
        expect(refusal?.code, query).toBe(-32602);
        expect(refusal?.message, query).toMatch(new RegExp(`${code}: `));
      }
      await alice.close();
    });
  });
}

suite("memory", () => ({ type: "memory" }));

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.dispose();
});
suite("Redis", () => ({ type: "redis", redis: { url: redis.url } }));

describe("S15.4 through the SDK v1 client (the MCP Inspector's)", () => {
  it("lists the template, reads whole and sliced, and gets not-found for a foreign handle", async () => {
    const { http, plugin } = await serve({ type: "memory" }, true);
    const v1 = async (token: string) => {
      const c = new V1Client({ name: "v1", version: "1" });
      await c.connect(
        new V1HttpClientTransport(new URL(http.url), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      return c;
    };
    const alice = await v1("alice");
    const bob = await v1("bob");
    await alice.listTools();
    const folded = (await alice.callTool({ name: "report", arguments: {} })) as Result;
    const uri = (folded.content?.[2] as { uri: string }).uri;
    expect((await alice.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      "result-handle://{handle}",
    ]);
    expect(JSON.parse(((await alice.readResource({ uri })).contents[0] as { text: string }).text)).toEqual(rows());
    const sliced = await alice.readResource({ uri: `${uri}?path=rows.5.id` });
    expect(JSON.parse((sliced.contents[0] as { text: string }).text)).toEqual({ path: "$.rows[5].id", value: 5 });
    await expect(bob.readResource({ uri })).rejects.toThrow(/Resource not found/);
    await Promise.all([alice.close(), bob.close()]);
    await http.close();
    await plugin.onShutdown();
  });
});
