// S18.1 the folded hint is built from this answer: its example calls, filter and search, copied from the hint
// as a model would, succeed and find something (so every key, value and word they name is in the answer).
// The demo's three folding tools over real HTTP with the SDK v2 and v1 clients; then a few hundred seeded
// random answers (lists at any depth, keys with quotes and non-ASCII, numbers, strings, empty lists)
// through a real SDK client and server.
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1HttpClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoServer, type DemoServer } from "../../playground/server/demo-server.js";
import { connect } from "../helpers/mcp-client.js";
import { queryServer, type Result } from "../helpers/query-server.js";

interface AnyClient {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

/** Every `result_query {…}` call of a hint, parsed as the JSON it shows. */
export function hintCalls(hint: string): Record<string, unknown>[] {
  const calls: Record<string, unknown>[] = [];
  for (let at = hint.indexOf("result_query {"); at >= 0; at = hint.indexOf("result_query {", at + 1)) {
    const start = at + "result_query ".length;
    let depth = 0;
    let inString = false;
    for (let i = start; i < hint.length; i++) {
      const char = hint[i];
      if (inString) {
        if (char === "\\") i++;
        else if (char === '"') inString = false;
      } else if (char === '"') inString = true;
      else if (char === "{") depth++;
      else if (char === "}" && --depth === 0) {
        calls.push(JSON.parse(hint.slice(start, i + 1)) as Record<string, unknown>);
        break;
      }
    }
  }
  return calls;
}

const hintOf = (result: Result) => result.content![1]!.text!;

/**
 * The hint's calls, each made: every one answers (no refusal), and a filter or search finds at least one node or hit.
 */
async function checkHint(
  call: (args: Record<string, unknown>) => Promise<Result>,
  hint: string,
  handle: string,
): Promise<{ filter?: string; search?: string }> {
  const calls = hintCalls(hint);
  expect(calls.length, hint).toBeGreaterThanOrEqual(1);
  const seen: { filter?: string; search?: string } = {};
  for (const args of calls) {
    expect(args.handle, hint).toBe(handle);
    const result = await call(args);
    expect(result.isError ?? false, `${JSON.stringify(args)} → ${result.content?.[0]?.text}`).toBe(false);
    const answer = result.structuredContent as { total?: number; value: unknown };
    if (typeof args.search === "string") {
      seen.search = args.search;
      expect(answer.total, `search ${args.search} finds it`).toBeGreaterThan(0);
    } else if (typeof args.path === "string" && args.path.includes("[?")) {
      seen.filter = args.path;
      expect(answer.total, `filter ${args.path} selects its example item`).toBeGreaterThan(0);
    }
  }
  return seen;
}

describe("S18.1 the demo's hints, over HTTP (SDK v2 and v1 clients)", () => {
  let demo: DemoServer;
  const clients: AnyClient[] = [];
  beforeAll(async () => {
    demo = await startDemoServer({ port: 0, logger: { warn: () => {}, info: () => {} } });
  });
  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await demo.close();
  });

  const v2 = async () => {
    const client = await connect(demo.url, { era: "2025", token: "demo-alice" });
    clients.push(client);
    return client as AnyClient;
  };
  const v1 = async () => {
    const client = new V1Client({ name: "hint-v1", version: "1.0.0" });
    await client.connect(
      new V1HttpClientTransport(new URL(demo.url), {
        requestInit: { headers: { Authorization: "Bearer demo-alice" } },
      }),
    );
    await client.listTools(); // the v1 client checks structuredContent against what it listed
    clients.push(client);
    return client as AnyClient;
  };

  describe.each([
    ["SDK v2", v2],
    ["SDK v1", v1],
  ] as const)("%s", (_, open) => {
    let client: AnyClient;
    beforeAll(async () => {
      client = await open();
    });
    const call = async (args: Record<string, unknown>) =>
      (await client.callTool({ name: "result_query", arguments: args })) as Result;
    const fold = async (tool: string, args: Record<string, unknown> = {}) => {
      const result = (await client.callTool({ name: tool, arguments: args })) as Result;
      return { hint: hintOf(result), handle: (result.structuredContent as { handle: string }).handle, result };
    };

    it("report: a filter on status with a status its tickets have, a word of a title, the rows to read", async () => {
      const { hint, handle } = await fold("report");
      expect(hint).toContain(`"path":"$.rows[?@.status == 'open']"`);
      expect(hint).toContain(`"search":"Printer"`);
      expect(await checkHint(call, hint, handle)).toEqual({ filter: "$.rows[?@.status == 'open']", search: "Printer" });
      expect(hint).not.toContain("timeout"); // the old fixed example, true of no answer in particular
    });

    it("orders: the filter names $.orders (not $.rows); the search a status other than the filter's", async () => {
      const { hint, handle } = await fold("orders");
      expect(await checkHint(call, hint, handle)).toEqual({
        filter: "$.orders[?@.status == 'open']",
        search: "shipped",
      });
    });

    it("server_log: a string, so no filter; a word of its text; offset and limit count characters", async () => {
      const { hint, handle } = await fold("server_log");
      expect(hint).toContain("offset and limit count characters");
      expect(hint).not.toContain("[?");
      const seen = await checkHint(call, hint, handle);
      expect(seen.filter).toBeUndefined();
      expect(seen.search).toMatch(/^\p{L}{3,}$/u);
    });
  });
});

// ---- seeded random answers ----

/** Keys with quotes, backslashes, dots, spaces and non-ASCII letters, or plain ones. */
const key = fc.oneof(
  fc.constantFrom(
    "id",
    "status",
    "name",
    "owner",
    "a.b",
    "x'y",
    'q"r',
    "back\\slash",
    "ünï",
    "名前",
    "with space",
    "$dollar",
    "__proto__",
    "0",
  ),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 8 }),
);
const word = fc.constantFrom("printer", "Timeout", "délai", "ошибка", "打印机", "ok", "x", "42", "naïve café");
const text = fc.array(word, { minLength: 1, maxLength: 4 }).map((words) => words.join(" "));
const scalar = fc.oneof(
  text,
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const leaf = fc.oneof(scalar, fc.constant([]), fc.array(scalar, { maxLength: 3 }));
/** A list of objects sharing some keys, so a value appears in two items now and then. */
const items = fc
  .tuple(
    fc.uniqueArray(key, { minLength: 1, maxLength: 5 }),
    fc.integer({ min: 25, max: 60 }),
    fc.array(leaf, { minLength: 4, maxLength: 12 }),
  )
  .map(([keys, n, values]) =>
    Array.from({ length: n }, (_, i) =>
      Object.fromEntries(keys.map((k, j) => [k, values[(i * (j + 1) + j) % values.length]])),
    ),
  );
/** The list at any depth: under a few levels of objects (each with other members), at the root, or none. */
const answer = fc.oneof(
  fc
    .tuple(fc.array(key, { minLength: 0, maxLength: 3 }), items, fc.dictionary(key, leaf, { maxKeys: 3 }))
    .map(([path, list, beside]) => path.reduceRight<unknown>((inner, name) => ({ ...beside, [name]: inner }), list)),
  items,
  fc.array(fc.integer(), { minLength: 300, maxLength: 400 }), // no list of objects: no filter
  fc.array(text, { minLength: 60, maxLength: 90 }).map((lines) => lines.join("\n")), // a string answer
  fc.tuple(items, fc.constant([])).map(([list, empty]) => ({ empty, rows: list })), // an empty list first
);

describe(
  "S18.1 seeded random answers: every example call answers, every filter and search finds " + "what it names",
  async () => {
    let next: unknown;
    const server = await queryServer(
      { random: () => next },
      { thresholdBytes: 1024, preview: { items: 5, chars: 100 } },
    );
    afterAll(() => server.plugin.onShutdown());
    const call = async (args: Record<string, unknown>) => (await server.query(args)).result;

    it("300 answers (seed 1801)", async () => {
      let folded = 0;
      let filters = 0;
      let searches = 0;
      await fc.assert(
        fc.asyncProperty(answer, async (value) => {
          next = value;
          const result = (await server.client.callTool({ name: "random", arguments: {} })) as Result;
          if (!result.structuredContent || !("handle" in result.structuredContent)) return; // too small to fold
          folded++;
          const handle = result.structuredContent.handle as string;
          const seen = await checkHint(call, hintOf(result), handle);
          if (seen.filter) filters++;
          if (seen.search) searches++;
          if (typeof value === "string") expect(hintOf(result)).toContain("offset and limit count characters");
          const hasObjects = (function find(v: unknown, depth: number): boolean {
            if (Array.isArray(v))
              return v.some((item) => item !== null && typeof item === "object" && !Array.isArray(item));
            return (
              depth < 8 &&
              v !== null &&
              typeof v === "object" &&
              Object.values(v).some((member) => find(member, depth + 1))
            );
          })(value, 0);
          if (!hasObjects) expect(seen.filter, "no list of objects, no filter").toBeUndefined();
        }),
        { numRuns: 300, seed: 1801 },
      );
      // The property was not vacuous: most answers folded, and filters and searches were tried.
      expect(folded).toBeGreaterThan(200);
      expect(filters).toBeGreaterThan(60);
      expect(searches).toBeGreaterThan(50);
    }, 120_000);
  },
);
