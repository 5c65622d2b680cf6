// S26.5 from the outside: a real MCP server over HTTP on a memory store, many users (each an owner) folding
// 1.4 MB answers one after another while alice reads her earlier answer between their folds. Before
// S26.5 the oldest answer went first, whoever held the room: 1,200 sessions folding 1.4 MB pushed out
// alice's answer (121 of her reads RESULT_HANDLE_NOT_FOUND). Here the room is 16 MiB (about eleven such
// answers) and 40 users fold: the same pressure, scaled to the room.
import { McpServer } from "@modelcontextprotocol/server";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResultHandlesPlugin } from "mcp-result-handles";
import { connect } from "../helpers/mcp-client.js";
import { startHttpMcpServer, userToken, type HttpMcpServer } from "../helpers/http-mcp-server.js";
import type { Result } from "../helpers/attack-bench.js";
import { metaHandleOf } from "../helpers/fold-meta.js";

const USERS = 40;
const MAX_BYTES = 16 * 1024 * 1024;
const answer = { rows: Array.from({ length: 1400 }, (_, i) => ({ id: i, title: `Row ${i} `.padEnd(1000, "x") })) };
const plugin = ResultHandlesPlugin.init({
  thresholdBytes: 16_384,
  storage: { type: "memory", memory: { maxBytes: MAX_BYTES } },
});
const warnings: string[] = [];
let http: HttpMcpServer;
const clients: Client[] = [];

beforeAll(async () => {
  const tokens = new Map([
    ["alice", userToken("app", "alice")],
    ...Array.from({ length: USERS }, (_, i) => [`u${i}`, userToken("app", `user-${i}`)] as const),
  ]);
  http = await startHttpMcpServer(() => {
    const server = new McpServer({ name: "fair", version: "1" });
    plugin.install(server, { logger: { warn: (message) => void warnings.push(message) } });
    server.registerTool("report", { description: "About 1.4 MB of rows" }, async () => ({
      content: [{ type: "text" as const, text: JSON.stringify(answer) }],
      structuredContent: answer,
    }));
    return server;
  }, tokens);
}, 30_000);
afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  await http?.close();
  await plugin.onShutdown();
});

const as = async (token: string) => {
  const client = await connect(http.url, { era: "2026-07-28", token });
  clients.push(client);
  return async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as Result;
};
const codeOf = (result: Result) => (result.structuredContent as { error?: { code: string } } | undefined)?.error?.code;

describe("S26.5 no owner evicts another's answers", () => {
  it(
    `${USERS} users folding 1.4 MB each into ` +
      `${MAX_BYTES / 1024 / 1024} MiB: every one of alice's reads finds her answer`,
    async () => {
      const alice = await as("alice");
      const hers = metaHandleOf(await alice("report"))!;
      expect(hers).toBeTypeOf("string");
      const started = performance.now();
      let folded = 0;
      let whole = 0;
      let notFound = 0;
      let reads = 0;
      let slowestRead = 0;
      for (let i = 0; i < USERS; i++) {
        const user = await as(`u${i}`);
        const fold = await user("report");
        if (metaHandleOf(fold)) folded++;
        else {
          whole++;
          expect(fold.structuredContent).toEqual(answer); // not kept: sent whole, complete
        }
        for (let r = 0; r < 3; r++) {
          const readStarted = performance.now();
          const read = await alice("result_query", { handle: hers, path: `$.rows[${(i * 3 + r) % 1400}].id` });
          slowestRead = Math.max(slowestRead, performance.now() - readStarted);
          reads++;
          if (codeOf(read) === "RESULT_HANDLE_NOT_FOUND") notFound++;
          else expect(read.structuredContent).toMatchObject({ value: (i * 3 + r) % 1400 });
        }
      }
      const ms = performance.now() - started;
      console.log(
        `S26.5 ${USERS} users folding 1.4 MB into ${MAX_BYTES / 1024 / 1024} MiB: ` +
          `${folded} folded, ${whole} sent whole; alice's ${reads} reads: ` +
          `${notFound} RESULT_HANDLE_NOT_FOUND (before S26.5: 90 here; 121 of her reads at 1,200 ` +
          `sessions), the slowest ${Math.round(slowestRead)} ms; ${Math.round(ms)} ms in all; ` +
          `heap ${Math.round(process.memoryUsage().heapUsed / 1024 / 1024)} MiB`,
      );
      expect(notFound).toBe(0);
      expect(folded).toBeGreaterThan(0); // the room was used…
      expect(whole).toBeGreaterThan(USERS / 2); // …and once full, newcomers' answers went out whole
      expect(slowestRead).toBeLessThan(1000);
    },
    60_000,
  );
});
