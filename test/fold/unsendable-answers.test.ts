// S16.7 from the outside: an answer JSON cannot write used to be logged as "sent it whole", then the
// transport's serialiser threw and the client waited 120 s for a reply. Real HTTP server, real clients.
import { McpServer } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ResultHandlesPlugin } from "mcp-result-handles";
import { bareDeepList } from "../helpers/hostile-answers.js";
import { connect, type Era } from "../helpers/mcp-client.js";
import { startHttpMcpServer, userToken, type HttpMcpServer } from "../helpers/http-mcp-server.js";

type Result = { content?: { type: string; text: string }[]; structuredContent?: unknown; isError?: boolean };
const pad = "x".repeat(20_000); // over the threshold: the fold meets it too

function cycle(): Record<string, unknown> {
  const node: Record<string, unknown> = { name: "loop", pad };
  node.self = node;
  return node;
}
function throwingGetter(): Record<string, unknown> {
  return Object.defineProperty({ pad }, "secret", {
    enumerable: true,
    get: () => {
      throw new Error("vault is locked");
    },
  });
}

/** Each tool's structuredContent, and the words its error must name. */
const answers: Record<string, [() => unknown, RegExp]> = {
  small_bigint: [() => ({ count: 10n }), /BigInt/],
  large_bigint: [() => ({ count: 10n, pad }), /BigInt/],
  cycle: [cycle, /circular/i],
  getter: [throwingGetter, /vault is locked/],
  too_deep: [() => ({ rows: bareDeepList(100_000) }), /call stack/i],
};

const warnings: string[] = [];
let runs = 0;
let http: HttpMcpServer;
const plugin = ResultHandlesPlugin.init({ thresholdBytes: 1024, storage: { type: "memory" } });

beforeAll(async () => {
  http = await startHttpMcpServer(
    () => {
      const server = new McpServer({ name: "unsendable", version: "1" });
      plugin.install(server, { logger: { warn: (message) => warnings.push(message) } });
      for (const [name, [answer]] of Object.entries(answers)) {
        server.registerTool(name, { description: name }, async () => {
          runs++;
          return { content: [], structuredContent: answer() as Record<string, unknown> };
        });
      }
      server.registerTool(
        "typed_bigint",
        { description: "a count, typed", outputSchema: z.object({ count: z.number() }) },
        async () => {
          return { content: [], structuredContent: { count: 10n } as unknown as { count: number } };
        },
      );
      server.registerTool("meta_getter", { description: "a throwing getter beside a fine text" }, async () => ({
        content: [{ type: "text" as const, text: "fine" }],
        _meta: throwingGetter(),
      }));
      return server;
    },
    new Map([["alice", userToken("client", "alice")]]),
  );
});
afterAll(async () => {
  await http.close();
  await plugin.onShutdown();
});

describe("S16.7 an answer JSON cannot write ends the call with an isError result, at once", () => {
  for (const [era, token] of [
    ["2026-07-28", "alice"],
    ["2025", "alice"],
    ["2026-07-28", undefined],
  ] as [Era, string | undefined][]) {
    it(`${era} client, ${token ? "signed in" : "anonymous"}: every kind, small and large`, async () => {
      const client = await connect(http.url, { era, token });
      for (const [name, [, names]] of [
        ...Object.entries(answers),
        ["meta_getter", [null, /vault is locked/]] as const,
      ]) {
        const before = warnings.length;
        const started = performance.now();
        const result = (await client.callTool({ name, arguments: {} }, { timeout: 10_000 })) as Result;
        const elapsed = performance.now() - started;
        expect(result.isError, name).toBe(true);
        expect(result.content?.[0]?.text).toMatch(new RegExp(`^ANSWER_NOT_SERIALIZABLE: the tool "${name}"`));
        expect(result.content?.[0]?.text).toMatch(names);
        // S26.7: the code also in structuredContent.error, as every refusal of S7.6 has it, its message the text's
        // rest.
        const text = result.content![0]!.text;
        expect(result.structuredContent, name).toEqual({
          error: { code: "ANSWER_NOT_SERIALIZABLE", message: text.slice(text.indexOf(": ") + 2) },
        });
        expect(elapsed, name).toBeLessThan(3000);
        const mine = warnings.slice(before);
        expect(mine, name).toHaveLength(1);
        expect(mine[0]).toMatch(new RegExp(`tool "${name}" returned an answer that cannot be sent as JSON`));
        expect(mine[0]).not.toMatch(/sent it whole/);
      }
      await client.close();
    });
  }

  it("the tools ran, once per call", () => {
    expect(runs).toBe(3 * Object.keys(answers).length);
  });

  it(
    "S26.7 S7.9: a tool with its own output schema gets the code in " +
      "the text only (its schema would not admit { error })",
    async () => {
      const client = await connect(http.url, { era: "2026-07-28", token: "alice" });
      const result = (await client.callTool({ name: "typed_bigint", arguments: {} }, { timeout: 10_000 })) as Result;
      expect(result.isError).toBe(true);
      expect(result.content?.[0]?.text).toMatch(/^ANSWER_NOT_SERIALIZABLE: the tool "typed_bigint" .*BigInt/);
      expect(result.structuredContent).toBeUndefined();
      await client.close();
    },
  );
});
