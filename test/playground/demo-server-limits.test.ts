// The demo server of `npm start` under load and in use: the 2025 session cap (S16.3), and a folded
// report passed to count_tickets by reference (S15.1), over real HTTP with real clients.
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoServer, type DemoServer } from "../../playground/server/demo-server.js";
import { connect, type Era } from "../helpers/mcp-client.js";
import { postInitialize } from "../helpers/raw-initialize.js";
import { reportRows } from "../../playground/demo-tools.js";
import { RESULT_HANDLE_META_KEY } from "mcp-result-handles";
import { expectFoldMeta, jsonBytes } from "../helpers/fold-meta.js";

const initialize = (url: string) => postInitialize(url, "cap");

const close = (url: string, sessionId: string) =>
  fetch(url, { method: "DELETE", headers: { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" } }).then(
    (r) => r.body?.cancel(),
  );

describe("S16.3 the demo caps open 2025 sessions", () => {
  it(
    "past maxSessions a new session gets HTTP 503 and the log one line; a closed session frees " + "its place",
    async () => {
      const warnings: string[] = [];
      const demo = await startDemoServer({ port: 0, maxSessions: 3, logger: { warn: (line) => warnings.push(line) } });
      try {
        const opened: string[] = [];
        for (let i = 0; i < 3; i++) {
          const response = await initialize(demo.url);
          await response.body?.cancel();
          expect(response.status).toBe(200);
          opened.push(response.headers.get("mcp-session-id")!);
        }
        const burst = await Promise.all(Array.from({ length: 5 }, () => initialize(demo.url)));
        for (const response of burst) {
          expect(response.status).toBe(503);
          expect(await response.json()).toMatchObject({
            error: { message: expect.stringMatching(/Too many open sessions \(3\)/) },
          });
        }
        expect(warnings.filter((line) => /maxSessions 3/.test(line))).toHaveLength(1); // one line, not one per refusal
        // A 2026-07-28 client has no session: the cap does not touch it.
        const modern = await connect(demo.url, { era: "2026-07-28" });
        expect((await modern.listTools()).tools.length).toBeGreaterThan(0);
        await modern.close();
        await close(demo.url, opened[0]!);
        const again = await initialize(demo.url);
        await again.body?.cancel();
        expect(again.status).toBe(200);
      } finally {
        await demo.close();
      }
    },
  );

  it("a burst of initializations together never opens more than the cap", async () => {
    const demo = await startDemoServer({ port: 0, maxSessions: 4, logger: { warn: () => {} } });
    try {
      const burst = await Promise.all(Array.from({ length: 20 }, () => initialize(demo.url)));
      await Promise.all(burst.map((response) => response.body?.cancel()));
      expect(burst.filter((response) => response.status === 200)).toHaveLength(4);
      expect(burst.filter((response) => response.status === 503)).toHaveLength(16);
    } finally {
      await demo.close();
    }
  });
});

describe("S15.1 count_tickets takes the folded report by reference", () => {
  let demo: DemoServer;
  const clients: Client[] = [];
  beforeAll(async () => {
    demo = await startDemoServer({ port: 0, logger: { warn: () => {}, info: () => {} } });
  });
  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await demo.close();
  });

  it.each<[Era, string | undefined]>([
    ["2026-07-28", "demo-alice"],
    ["2025", "demo-bob"],
    ["2025", undefined],
  ])("%s client, token %s", async (era, token) => {
    const client = await connect(demo.url, { era, token });
    clients.push(client);
    const report = await client.callTool({ name: "report", arguments: {} });
    expectFoldMeta(report, { bytes: jsonBytes(reportRows()), overBytes: 4096 });
    const handle = (report.structuredContent as { handle: string }).handle;
    const hint = (report.content as { text: string }[])[1]!.text;
    expect(hint).toContain(JSON.stringify({ $result: handle, path: "$.rows" }));
    const counted = await client.callTool({
      name: "count_tickets",
      arguments: { tickets: { $result: handle, path: "$.rows" } },
    });
    expect(counted.structuredContent).toEqual({ count: 200, first: "T-0", last: "T-199" });
    const some = await client.callTool({
      name: "count_tickets",
      arguments: {
        tickets: [
          { $result: handle, path: "$.rows[5]" },
          { id: "T-new", title: "New" },
        ],
      },
    });
    expect(some.structuredContent).toEqual({ count: 2, first: "T-5", last: "T-new" });
  });

  it("lists count_tickets with a description that shows the reference form", async () => {
    const client = await connect(demo.url, { era: "2026-07-28" });
    clients.push(client);
    const tool = (await client.listTools()).tools.find((t) => t.name === "count_tickets");
    expect(tool?.description).toContain('"$result"');
  });
});

describe("S26.5 the demo caps what one session or caller folds", () => {
  it("past maxSessionFoldBytes a caller's large answers go out whole; another caller still folds", async () => {
    const bytes = new TextEncoder().encode(JSON.stringify(reportRows())).byteLength;
    const demo = await startDemoServer({ port: 0, maxSessionFoldBytes: 2 * bytes + 100, logger: { warn: () => {} } });
    const alice = await connect(demo.url, { era: "2026-07-28", token: "demo-alice" });
    const bob = await connect(demo.url, { era: "2026-07-28", token: "demo-bob" });
    try {
      const folded = async (client: Client) => {
        const result = await client.callTool({ name: "report", arguments: {} });
        return result._meta?.[RESULT_HANDLE_META_KEY] !== undefined;
      };
      // An oracle of its own: two answers of `bytes` fit under the cap, the third does not.
      expect([await folded(alice), await folded(alice), await folded(alice), await folded(alice)]).toEqual([
        true,
        true,
        false,
        false,
      ]);
      expect(await folded(bob)).toBe(true);
      const whole = await alice.callTool({ name: "report", arguments: {} });
      expect(whole.structuredContent).toEqual(reportRows()); // sent whole, complete
    } finally {
      await alice.close();
      await bob.close();
      await demo.close();
    }
  });
});
