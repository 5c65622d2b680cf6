// S18.2 no silent empties: a nodelist with total 0 whose query names a member no visited node has says so
// (which name, where, the keys there, nearest first), in structuredContent and the text; a name some visited
// node has never gets the note; a search with no hit says what it read. The same over a list read batch by
// batch, and with its batches counted on batch workers, where the calling thread parses no batch at all:
// the note comes from what the evaluation visited, never from reading the answer again.
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1HttpClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, describe, expect, it, vi } from "vitest";
import { MemoryStorage, ResultHandleStore, ResultQueryTool, type Owner } from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { nodeBatchWorkers } from "../../../src/runtimes/node/batch-workers.js";
import { parseQueryArguments } from "../../../src/query/query.js";
import { answerWhole } from "../../helpers/query-shortcuts.js";
import { startDemoServer } from "../../../playground/server/demo-server.js";
import { queryServer } from "../../helpers/query-server.js";

const OWNERS = ["ana", "ben", "chen"];
/** Tickets without priority: what a model filtering on `@.priority > 3` meets. */
const tickets = (n: number, extra?: (i: number) => Record<string, unknown>) => ({
  rows: Array.from({ length: n }, (_, i) => ({
    id: `T-${i}`,
    title: `Ticket ${i}`,
    status: i % 2 ? "open" : "closed",
    owner: OWNERS[i % 3],
    ...extra?.(i),
  })),
});

describe("S18.2 on an answer read whole (a real SDK client and server)", async () => {
  const { fold, query, plugin } = await queryServer(
    {
      tickets: () => tickets(200),
      one: () => tickets(200, (i) => (i === 7 ? { priority: 1 } : {})),
    },
    { thresholdBytes: 4096 },
  );
  afterAll(() => plugin.onShutdown());
  const { handle } = await fold("tickets");

  it("a filter on a key no item has: which name, where, and the items' keys", async () => {
    const { ok, result } = await query({ handle, path: "$.rows[?@.priority > 3]" });
    expect(ok).toEqual({
      path: "$.rows[?@.priority > 3]",
      value: [],
      paths: [],
      total: 0,
      offset: 0,
      note: 'no item of $.rows has "priority"; its items have id, title, status, owner',
    });
    expect(JSON.parse(result.content![0]!.text!)).toEqual(ok); // and in the text
  });

  it("a misspelt member after a wildcard, and descendants: the nearest key comes first", async () => {
    expect((await query({ handle, path: "$.rows[*].titel" })).ok.note).toBe(
      'no value $.rows[*] selects has "titel"; they have title, id, status, owner',
    );
    expect((await query({ handle, path: "$..titel" })).ok.note).toBe(
      'no object under $ has "titel"; the keys there are title, id, owner, rows, status',
    );
    expect((await query({ handle, path: "$.rowz[*]" })).ok.note).toBe('$ has no "rowz"; its keys are rows');
    // owner is there (a string): nothing to tell
    expect((await query({ handle, path: "$.rows[?@.owner.name == 'ana']" })).ok.note).toBeUndefined();
  });

  it("a key some visited node has never gets the note, though nothing is selected", async () => {
    const other = await fold("one");
    const { ok } = await query({ handle: other.handle, path: "$.rows[?@.priority > 3]" });
    expect(ok).toMatchObject({ total: 0 });
    expect(ok).not.toHaveProperty("note");
    expect((await query({ handle, path: "$.rows[?@.owner == 'nobody']" })).ok).not.toHaveProperty("note");
    // total 100
    expect((await query({ handle, path: "$.rows[?@.status == 'open']", limit: 1 })).ok).not.toHaveProperty("note");
  });

  it("a search with no hit says where it looked and how much it read", async () => {
    expect((await query({ handle, search: "zzzz" })).ok).toEqual({
      path: "$",
      value: [],
      total: 0,
      offset: 0,
      note:
        'no string, number, boolean or key under $ contains "zzzz" (in any ' +
        "case); the search read all of $: an object of 1 key",
    });
    expect((await query({ handle, path: "$.rows", search: "zzzz" })).ok.note).toMatch(
      /read all of \$\.rows: a list of 200 items$/,
    );
  });
});

describe("S18.2 over a list read batch by batch, and counted on batch workers", () => {
  const owner: Owner = { session: "s-notes", caller: "reader" };
  const config = { sliceLimitBytes: 16_384, preview: { chars: 60 } } as ResultHandlesConfig;
  const value = tickets(20_000);
  const workers = nodeBatchWorkers({ minBytes: 0, threads: 2, idleMs: 60_000 })!;
  const whole = (path: string) =>
    answerWhole(value, parseQueryArguments({ handle: "h", path }), config.sliceLimitBytes);

  it.each([
    ["on the calling thread", undefined],
    ["counted on batch workers", workers],
  ] as const)(
    "%s: the note of a read of the whole answer",
    async (_, pool) => {
      const store = new ResultHandleStore(new MemoryStorage("notes", { maxBytes: 256 * 1024 * 1024 }), 60, {
        pieceBytes: 16 * 1024,
      });
      const tool = new ResultQueryTool(() => [{ config, store: async () => store, workers: pool }]);
      if (pool) expect(await pool.warm()).toBe(true);
      const handle = store.newHandle();
      await store.save(handle, value, owner);
      const parse = vi.spyOn(JSON, "parse");
      try {
        for (const path of ["$.rows[?@.priority > 3]", "$.rows[*].titel"]) {
          parse.mockClear();
          const streamed = await tool.query({ handle, path }, owner);
          expect(streamed.note, path).toBe((await whole(path)).note);
          expect(streamed.note, path).toMatch(/"(priority|titel)"/);
          const batches = parse.mock.calls.filter(
            ([text]) => typeof text === "string" && text.startsWith('[{"id":'),
          ).length;
          // On the workers the calling thread parses no batch (no node is on the page): the note came from the workers'
          // watches.
          if (pool) expect(batches, path).toBe(0);
          else expect(batches, path).toBeGreaterThan(10);
        }
        // A filter whose text no batch holds parses none anywhere; a name written in them still counts as found.
        const skipped = await tool.query({ handle, path: "$.rows[?@.owner == 'nobody']" }, owner);
        expect(skipped).toMatchObject({ total: 0 });
        expect(skipped.note).toBeUndefined();
        expect((await tool.query({ handle, path: "$..titel" }, owner)).note).toBe((await whole("$..titel")).note);
      } finally {
        parse.mockRestore();
        await store.onShutdown();
      }
    },
    60_000,
  );
});

describe("S18.2 S7.9 through an SDK v1 client over HTTP: the output schema admits the note", () => {
  it("the demo's tickets have no severity: the note names their keys", async () => {
    const demo = await startDemoServer({ port: 0, logger: { warn: () => {}, info: () => {} } });
    const client = new V1Client({ name: "notes-v1", version: "1.0.0" });
    try {
      await client.connect(
        new V1HttpClientTransport(new URL(demo.url), {
          requestInit: { headers: { Authorization: "Bearer demo-alice" } },
        }),
      );
      await client.listTools(); // the v1 client checks structuredContent against the listed output schema
      const folded = (await client.callTool({ name: "report", arguments: {} })) as unknown as {
        structuredContent: { handle: string };
      };
      const read = (await client.callTool({
        name: "result_query",
        arguments: { handle: folded.structuredContent.handle, path: "$.rows[?@.severity > 3]" },
      })) as unknown as {
        isError?: boolean;
        structuredContent: { note?: string };
      };
      expect(read.isError ?? false).toBe(false);
      expect(read.structuredContent.note).toBe(
        'no item of $.rows has "severity"; its items have id, title, status, priority, owner',
      );
    } finally {
      await client.close();
      await demo.close();
    }
  });
});
