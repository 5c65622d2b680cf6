// What a call asks of its store, counted by a storage that only observes (it stores for real and records each key it
// is asked for), behind a real McpServer and a real client over HTTP:
// - S21.2 S26.2 S15.2 every reference is sized from its answer before the first is read, and the answer it opened to
//   size it is the one it reads: each answer's main record is fetched once a reference, not once to size and again
//   to read;
// - S4.7 a fold whose first write fails hands the store none of its other records: it goes out whole.
import { McpServer } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../helpers/mcp-client.js";
import { startHttpMcpServer, userToken, type HttpMcpServer } from "../helpers/http-mcp-server.js";
import { noRuns, registerReferenceTools } from "../helpers/reference-tools.js";
import { pluginOver, StorageDouble } from "../helpers/storage-double.js";

type Result = { structuredContent?: Record<string, unknown>; content?: { text?: string }[]; isError?: boolean };

/** Off: each write is refused, after holding the thread 25 ms (as a client copying a record's bytes does). */
let writes = true;
let writesTried = 0;
const storage: StorageDouble = new StorageDouble({
  async set(key, value) {
    writesTried++;
    if (writes) return void storage.data.set(key, value.slice());
    for (const until = performance.now() + 25; performance.now() < until;);
    throw new Error("the store refuses writes");
  },
});
/** About 2 MB: kept in several records. */
const big = { rows: Array.from({ length: 2000 }, (_, i) => ({ id: i, title: `Row ${i} `.padEnd(1000, "x") })) };
const { plugin } = pluginOver(storage, { thresholdBytes: 1024 });
const runs = noRuns();
let http: HttpMcpServer;
let call: (name: string, args?: Record<string, unknown>) => Promise<Result>;
let close: () => Promise<void>;

beforeAll(async () => {
  http = await startHttpMcpServer(
    () => {
      const server = new McpServer({ name: "reference-reads", version: "1" });
      plugin.install(server, { logger: { warn: () => {} } });
      registerReferenceTools(server, runs);
      server.registerTool("big", { description: "About 2 MB" }, async () => ({
        content: [{ type: "text" as const, text: JSON.stringify(big) }],
        structuredContent: big,
      }));
      return server;
    },
    new Map([["alice", userToken("app", "alice")]]),
  );
  const client = await connect(http.url, { era: "2026-07-28", token: "alice" });
  call = async (name, args = {}) => (await client.callTool({ name, arguments: args })) as Result;
  close = () => client.close();
});
afterAll(async () => {
  await close?.();
  await http?.close();
  await plugin.onShutdown();
});

/** Folds `report` (300 rows) and returns its handle and the keys of the records it was kept in. */
async function fold(): Promise<{ handle: string; keys: string[] }> {
  const before = new Set(storage.data.keys());
  const handle = (await call("report")).structuredContent!.handle as string;
  expect(handle).toBeTypeOf("string");
  return { handle, keys: [...storage.data.keys()].filter((key) => !before.has(key)) };
}

/** How many times the store asked for each key while `work` ran. */
async function fetches(work: () => Promise<unknown>): Promise<Map<string, number>> {
  const from = storage.gets.length;
  await work();
  const counts = new Map<string, number>();
  for (const key of storage.gets.slice(from)) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

describe("S21.2 S26.2 each reference's answer is fetched once, though every reference is sized first", () => {
  it("64 references into one answer: its record fetched 64 times, not 128", async () => {
    const { handle, keys } = await fold();
    expect(keys).toHaveLength(1); // 300 rows are kept whole, in one record
    const items = Array.from({ length: 64 }, (_, i) => ({ $result: handle, path: `$.rows[${i}]` }));
    let result: Result | undefined;
    const counts = await fetches(async () => (result = await call("count_items", { items })));
    expect(result!.structuredContent).toEqual({ count: 64, idSum: (63 * 64) / 2, label: null }); // 0 + 1 + … + 63
    expect(counts.get(keys[0]!)).toBe(64);
  });

  it("references before one that does not resolve: each read once; the call refused as result_query says", async () => {
    const first = await fold();
    const second = await fold();
    const unknown = "00000000-0000-4000-8000-000000000000";
    const items = [
      { $result: first.handle, path: "$.rows[1]" }, // singular paths: their reads may refuse, so they are read
      { $result: second.handle, path: "$.rows[2]" },
      { $result: unknown },
    ];
    let result: Result | undefined;
    const counts = await fetches(async () => (result = await call("count_items", { items })));
    expect(result!.isError).toBe(true);
    expect(result!.content?.[0]?.text).toMatch(/^RESULT_HANDLE_NOT_FOUND: /);
    expect(counts.get(first.keys[0]!)).toBe(1);
    expect(counts.get(second.keys[0]!)).toBe(1);
  });
});

describe("S4.7 a fold whose store refuses its first write", () => {
  it("hands over none of its other records, and the answer goes out whole and complete", async () => {
    const before = storage.data.size;
    const kept = await call("big");
    const records = storage.data.size - before; // what a fold of it writes when the store takes it
    expect(kept.structuredContent!.handle).toBeTypeOf("string");
    expect(records).toBeGreaterThan(2);
    writes = false;
    writesTried = 0;
    try {
      const whole = await call("big");
      expect(whole.structuredContent).toEqual(big);
      expect(writesTried).toBe(1); // the first refused: the other records were not handed over
    } finally {
      writes = true;
    }
  });
});
