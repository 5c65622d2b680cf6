// S22: the plugin on a real FrontMCP 1.5.2 server, as its users install it: the packed tarball in a project
// of its own with the FrontMCP tarballs the repository carries and their pins, tools compiled with tsc
// (test/helpers/frontmcp-project.ts), the server in a process of its own over Streamable HTTP, and real
// clients (the MCP SDK 1.x client FrontMCP pins, and the SDK v2 client). The reference's Usage example runs
// as written, with only its import changed (test/fixtures/frontmcp-project/src/reports.ts).
import { execFile } from "node:child_process";
import { createSign, generateKeyPairSync, randomUUID, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from "@modelcontextprotocol/client";
import { jsonpath } from "json-p3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INPUT_JSON_SCHEMA } from "../../src/query/tool/listing.js";
import { frontMcpProject, startFrontMcpServer, type FrontMcpServer } from "../helpers/frontmcp-project.js";
import { cleanEnv, root } from "../helpers/packed-package.js";
import { docBlock } from "../helpers/doc-blocks.js";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.js";
import { ORDERS_GOLDEN } from "../fixtures/orders-golden.js";

const run = promisify(execFile);

type Result = {
  content?: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  isError?: boolean;
};
interface Caller {
  call(name: string, args?: Record<string, unknown>): Promise<Result>;
  list(): Promise<{ name: string; inputSchema: Record<string, unknown>; outputSchema?: unknown }[]>;
  close(): Promise<void>;
}

async function v1(url: string, token?: string, name = "frontmcp-test-v1"): Promise<Caller> {
  const client = new V1Client({ name, version: "1.0.0" });
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  await client.connect(new V1Transport(new URL(url), { requestInit: { headers } }));
  return {
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as Result,
    list: async () => (await client.listTools()).tools as never,
    close: () => client.close(),
  };
}

async function v2(url: string): Promise<Caller> {
  const client = new V2Client({ name: "frontmcp-test-v2", version: "1.0.0" });
  await client.connect(new V2Transport(new URL(url)));
  return {
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as Result,
    list: async () => (await client.listTools()).tools as never,
    close: () => client.close(),
  };
}

// The oracle: the reference's `report` answer, written here apart from the tool that returns it.
const tickets = Array.from({ length: 200 }, (_, i) => ({ id: `T-${i}`, title: `Ticket ${i}` }));
const reportAnswer = { rows: tickets };
const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i, name: `row ${i}`, even: i % 2 === 0 }));

const handleOf = (result: Result) => (result.structuredContent as { handle: string }).handle;
const errorOf = (result: Result) => (result.structuredContent as { error: { code: string; message: string } }).error;

let project: string;
let server: FrontMcpServer;
const clients: Caller[] = [];
const client = async (make: (url: string) => Promise<Caller> = v1) => {
  const made = await make(server.url);
  clients.push(made);
  return made;
};

beforeAll(async () => {
  project = await frontMcpProject();
  server = await startFrontMcpServer(project);
}, 240_000);

afterAll(async () => {
  await Promise.all(clients.map((made) => made.close().catch(() => {})));
  await server?.stop();
});

describe("S22.4 the reference's Usage example on FrontMCP 1.5.2, SDK 1.x client over Streamable HTTP", () => {
  it("S20.4 docs/frontmcp.md's example is the file this server runs: the reference's, its import changed", () => {
    const example = readFileSync(join(root, "test", "fixtures", "frontmcp-project", "src", "reports.ts"), "utf8");
    expect(docBlock("docs/frontmcp.md", "The reference's example")).toBe(example);
    expect(example).toContain(`from "mcp-result-handles/frontmcp";`);
  });

  it("S22.1 lists result_query once, with its JSON Schema, beside the apps' tools", async () => {
    const tools = await (await client()).list();
    expect(tools.filter((tool) => tool.name === "result_query")).toHaveLength(1);
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(["report", "orders", "dump", "plain_dump", "result_query"]),
    );
    const query = tools.find((tool) => tool.name === "result_query")!;
    expect(query.inputSchema).toEqual(INPUT_JSON_SCHEMA);
  });

  it("S5 folds report for a session: { preview, shape, handle }, the hint, and _meta bytes 6990", async () => {
    const alice = await client();
    const result = await alice.call("report");
    const bytes = Buffer.byteLength(JSON.stringify(reportAnswer));
    expect(bytes).toBe(6990);
    const { preview, shape, handle } = result.structuredContent as { preview: unknown; shape: unknown; handle: string };
    expect(Object.keys(result.structuredContent!).sort()).toEqual(["handle", "preview", "shape"]);
    expect(preview).toEqual({ rows: tickets.slice(0, 5) });
    expect(shape).toEqual({
      type: "object",
      keys: {
        rows: {
          type: "array",
          length: 200,
          items: { type: "object", keys: { id: { type: "string", length: 3 }, title: { type: "string", length: 8 } } },
        },
      },
    });
    expect(handle).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(JSON.parse(result.content![0]!.text!)).toEqual(result.structuredContent);
    expect(result.content![1]!.text).toContain("result_query");
    expect(result.content![1]!.text).toContain(handle);
    expect(result._meta?.["frontmcp/result-handle"]).toEqual({ handle, bytes: 6990, ttlSeconds: 600 });
  });

  it("S7 result_query reads paths, pages, fields, filters and search as the answer holds them", async () => {
    const alice = await client();
    const handle = handleOf(await alice.call("report"));
    const read = async (args: Record<string, unknown>) => {
      const result = await alice.call("result_query", { handle, ...args });
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      return result.structuredContent as {
        path: string;
        value: unknown;
        total?: number;
        offset?: number;
        nextOffset?: number;
        paths?: string[];
      };
    };
    for (const path of ["$.rows[2].title", "rows.2.title", "/rows/2/title"])
      expect((await read({ path })).value).toBe(tickets[2]!.title);
    expect(await read({ path: "rows", page: 3, limit: 10 })).toMatchObject({
      value: tickets.slice(20, 30),
      total: 200,
      offset: 20,
      nextOffset: 30,
    });
    expect((await read({ path: "rows", limit: 3, fields: ["id"] })).value).toEqual(
      tickets.slice(0, 3).map(({ id }) => ({ id })),
    );
    const filter = "$.rows[?@.title == 'Ticket 42' || @.id == 'T-7']";
    const expected = jsonpath.query(filter, reportAnswer as never);
    const filtered = await read({ path: filter });
    expect(filtered.value).toEqual(expected.values());
    // json-p3 writes normalized paths ($['rows'][7]); result_query the shorthand of S14.2 ($.rows[7]).
    expect(filtered.paths).toEqual(expected.nodes.map((node) => node.path.replace(/\['([A-Za-z_]\w*)'\]/g, ".$1")));
    const found = await read({ search: "ticket 19" });
    const hits = tickets.flatMap((ticket, i) =>
      ticket.title.toLowerCase().includes("ticket 19") ? [`$.rows[${i}].title`] : [],
    );
    expect(found.total).toBe(hits.length);
    expect((found.value as { path: string }[]).map((hit) => hit.path)).toEqual(
      hits.slice(0, (found.value as unknown[]).length),
    );
  });

  it(
    "S7.6 result_query checks its own arguments: FrontMCP's schema " +
      "refuses nothing, the plugin answers with a code",
    async () => {
      const alice = await client();
      const handle = handleOf(await alice.call("report"));
      const both = await alice.call("result_query", { handle, path: "rows", page: 2, offset: 3 });
      expect(both.isError).toBe(true);
      expect(errorOf(both).code).toBe("INVALID_INPUT");
      const none = await alice.call("result_query", {});
      expect(none.isError).toBe(true);
      expect(none.content![0]!.text).toMatch(/^INVALID_INPUT: /);
    },
  );

  it("S8 another session gets RESULT_HANDLE_NOT_FOUND with the text a never-issued handle gets", async () => {
    const alice = await client();
    const bob = await client();
    const handle = handleOf(await alice.call("report"));
    const foreign = await bob.call("result_query", { handle });
    const never = randomUUID();
    const unknown = await bob.call("result_query", { handle: never });
    expect(errorOf(foreign).code).toBe("RESULT_HANDLE_NOT_FOUND");
    expect(foreign.content![0]!.text).toBe(unknown.content![0]!.text!.replace(never, handle));
    expect((await alice.call("result_query", { handle, path: "rows", limit: 1 })).structuredContent).toMatchObject({
      value: [tickets[0]],
    });
  });

  it("S4.3 a small answer comes back whole", async () => {
    const result = await (await client()).call("small");
    expect(result.structuredContent).toEqual({ rows: rows(3) });
    expect(result._meta?.["frontmcp/result-handle"]).toBeUndefined();
  });
});

describe("S22.1 the entry as users load it", () => {
  const probe = `
    const entry = ENTRY;
    let refusal;
    try {
      entry.ResultHandlesPlugin.init({ thresholdBytes: 10, ttlSeconds: 0, bogus: true });
    } catch (error) {
      refusal = error;
    }
    const registered = entry.ResultHandlesPlugin.init({ thresholdBytes: 4096 });
    console.log(JSON.stringify({
      same: entry.default === entry.ResultHandlesPlugin,
      provide: registered.provide === entry.ResultHandlesPlugin,
      providers: registered.providers.length,
      tool: typeof entry.ResultQueryTool,
      fold: typeof entry.foldToolResult,
      code: refusal && refusal.code,
      paths: refusal && refusal.issues.map((issue) => issue.path).sort(),
    }));`;

  it(
    "S3.1 ESM and CommonJS: init refuses naming every problem, and registers the instance with its " + "providers",
    async () => {
      const runs = [
        ["--input-type=module", "-e", probe.replace("ENTRY", "await import('mcp-result-handles/frontmcp')")],
        [
          "--input-type=commonjs",
          "-e",
          `(async () => { ${probe.replace("ENTRY", "require('mcp-result-handles/frontmcp')")} })()`,
        ],
      ];
      for (const args of runs) {
        const { stdout } = await run(process.execPath, args, { cwd: project, env: cleanEnv });
        expect(JSON.parse(stdout.trim().split("\n").at(-1)!)).toEqual({
          same: true,
          provide: true,
          providers: 3,
          tool: "function",
          fold: "function",
          code: "RESULT_HANDLES_CONFIGURATION",
          paths: ["bogus", "thresholdBytes", "ttlSeconds"],
        });
      }
    },
  );
});

describe("S22.2 what folds on FrontMCP, and what stays whole", () => {
  it("S6.4 the orders golden example: the reference's preview and shape", async () => {
    const alice = await client();
    const result = await alice.call("orders");
    const { preview, shape, handle } = result.structuredContent as { preview: unknown; shape: unknown; handle: string };
    expect({ preview, shape }).toEqual(ORDERS_GOLDEN);
    expect((await alice.call("result_query", { handle, path: "$.orders[499]" })).structuredContent).toMatchObject({
      value: { id: 499, status: "shipped" },
    });
  });

  it("S4.2 an image, an error result, two texts and a tool with a UI pass unchanged", async () => {
    const alice = await client();
    const picture = await alice.call("picture");
    expect(picture.content).toEqual([{ type: "image", data: "A".repeat(20_000), mimeType: "image/png" }]);
    const fails = await alice.call("fails");
    expect(fails.isError).toBe(true);
    expect(JSON.parse(fails.content![0]!.text!)).toEqual({ rows: rows(300) });
    const two = await alice.call("two_texts");
    expect(two.content!.map((block) => JSON.parse(block.text!))).toEqual([{ rows: rows(300) }, { rows: rows(300) }]);
    const widget = await alice.call("ui_rows");
    expect(widget.structuredContent).toEqual({ rows: rows(300) });
    for (const result of [picture, fails, two, widget])
      expect(result._meta?.["frontmcp/result-handle"]).toBeUndefined();
  });

  it(
    "S4.6 an output schema without the folded form keeps the answer " +
      "whole, with one warning; a union with it folds",
    async () => {
      const alice = await client();
      const strict = await alice.call("strict_rows");
      expect(strict.structuredContent).toEqual({ rows: rows(300) });
      await alice.call("strict_rows");
      const warnings = server
        .output()
        .split("\n")
        .filter((line) => line.startsWith("result-handles:") && line.includes('"strict_rows"'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain("foldedAnswerSchema");
      const open = await alice.call("open_rows");
      expect(Object.keys(open.structuredContent!).sort()).toEqual(["handle", "preview", "shape"]);
    },
  );

  it("S10.1 each instance folds only its own app's tools: an app without the plugin answers whole", async () => {
    const alice = await client();
    const plain = await alice.call("plain_dump");
    expect(plain.structuredContent).toEqual({ rows: rows(300) });
    const dump = await alice.call("dump");
    expect(Object.keys(dump.structuredContent!).sort()).toEqual(["handle", "preview", "shape"]);
    // The extras instance (4096 bytes, five items) folded dump; the orders instance would keep two items.
    expect((dump.structuredContent as { preview: { rows: unknown[] } }).preview.rows).toHaveLength(5);
  });

  it("S4.1 a tool called by another tool gets the whole answer; 1.5.2's this.callTool() throws", async () => {
    const result = await (await client()).call("nested");
    expect(result.structuredContent).toMatchObject({ keys: ["rows"], rows: 300 });
    expect((result.structuredContent as { callTool: string }).callTool).toMatch(/^threw: /);
  });

  it("S22.1 a tool of the app reads the plugin's store and options through this.get", async () => {
    const result = await (await client()).call("store_probe");
    expect(result.structuredContent).toEqual({ thresholdBytes: 4096, sameOwner: { saved: true }, otherOwner: null });
  });
});

describe("S22.5 references on FrontMCP: resolved before FrontMCP validates the arguments", () => {
  it("S15.1 a reference passes a folded answer's rows to another tool, read for the caller", async () => {
    const alice = await client();
    const folded = await alice.call("dump");
    expect(folded.content![1]!.text).toContain('"$result"');
    const counted = await alice.call("count_rows", { rows: { $result: handleOf(folded), path: "$.rows" } });
    expect(counted.structuredContent).toEqual({ count: 300, last: 299 });
  });

  it(
    "S15.2 a reference another session cannot read ends the call " +
      "before the tool runs, with result_query's code and text",
    async () => {
      const alice = await client();
      const bob = await client();
      const handle = handleOf(await alice.call("dump"));
      const refused = await bob.call("count_rows", { rows: { $result: handle, path: "$.rows" } });
      expect(refused.isError).toBe(true);
      expect(refused.content![0]!.text).toMatch(/^RESULT_HANDLE_NOT_FOUND: /);
      const missing = await alice.call("count_rows", { rows: { $result: handle, path: "$.nothing" } });
      expect(missing.isError).toBe(true);
      expect(missing.content![0]!.text).toMatch(/^RESULT_PATH_NOT_FOUND: /);
    },
  );
});

describe("S22.5 resources are not served on FrontMCP", () => {
  it(
    "S15.4 reading result-handle://{handle} is refused by FrontMCP, naming the resource, and " + "changes nothing",
    async () => {
      const reader = new V1Client({ name: "frontmcp-test-resources", version: "1.0.0" });
      await reader.connect(new V1Transport(new URL(server.url)));
      try {
        const folded = (await reader.callTool({ name: "report", arguments: {} })) as Result;
        const handle = handleOf(folded);
        expect(folded.content!.some((block) => block.type === "resource_link")).toBe(false);
        const uri = `result-handle://${handle}`;
        await expect(reader.readResource({ uri })).rejects.toThrow(
          new RegExp(`not found.*${uri}|${uri}.*not found`, "i"),
        );
        expect(
          (await reader.callTool({ name: "result_query", arguments: { handle, path: "$.rows[1]" } })).structuredContent,
        ).toMatchObject({ value: tickets[1] });
      } finally {
        await reader.close();
      }
    },
  );
});

describe("S23 on FrontMCP: the calling host's cut, by the clientInfo.name FrontMCP recorded", () => {
  it("300 short lines fold for Codex (256 lines) and stay whole for another client", async () => {
    const codex = await client((url) => v1(url, undefined, "codex-mcp-client"));
    const other = await client();
    const folded = await codex.call("lines");
    expect(folded._meta?.["frontmcp/result-handle"]).toMatchObject({
      bytes: Buffer.byteLength(JSON.stringify("x\n".repeat(300))),
    });
    expect(folded.content![1]!.text).toContain("Codex");
    const whole = await other.call("lines");
    expect(whole.content).toEqual([{ type: "text", text: "x\n".repeat(300) }]);
  });
});

describe("S22.4 the SDK v2 client", () => {
  it("gets the folded report and reads it back", async () => {
    const alice = await client(v2);
    const result = await alice.call("report");
    expect(result._meta?.["frontmcp/result-handle"]).toMatchObject({ bytes: 6990 });
    const slice = await alice.call("result_query", { handle: handleOf(result), path: "$.rows[199]" });
    expect(slice.structuredContent).toMatchObject({ value: tickets[199] });
  });
});

describe("S22.4 transparent JWT auth over an offline JWKS", () => {
  const issuer = "https://issuer.result-handles.test";
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const stranger = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
  const jwks = { keys: [{ ...publicKey.export({ format: "jwk" }), kid: "test-key", alg: "RS256", use: "sig" }] };
  const base64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const token = (sub: string, key: KeyObject = privateKey) => {
    const now = Math.floor(Date.now() / 1000);
    const header = base64({ alg: "RS256", typ: "JWT", kid: "test-key" });
    const signed = `${header}.${base64({ iss: issuer, sub, iat: now, exp: now + 3600 })}`;
    return `${signed}.${createSign("RSA-SHA256").update(signed).sign(key).toString("base64url")}`;
  };
  let authed: FrontMcpServer;
  const signedIn: Caller[] = [];
  const as = async (sub: string) => {
    const made = await v1(authed.url, token(sub));
    signedIn.push(made);
    return made;
  };

  beforeAll(async () => {
    authed = await startFrontMcpServer(project, { AUTH_ISSUER: issuer, AUTH_JWKS: JSON.stringify(jwks) });
  }, 120_000);
  afterAll(async () => {
    await Promise.all(signedIn.map((made) => made.close().catch(() => {})));
    await authed?.stop();
  });

  it("S8 alice reads her handle; bob, signed in, gets the never-issued text", async () => {
    const alice = await as("alice");
    const bob = await as("bob");
    const result = await alice.call("report");
    const handle = handleOf(result);
    expect(result._meta?.["frontmcp/result-handle"]).toMatchObject({ bytes: 6990 });
    expect((await alice.call("result_query", { handle, path: "$.rows[7]" })).structuredContent).toMatchObject({
      value: tickets[7],
    });
    const foreign = await bob.call("result_query", { handle });
    const never = randomUUID();
    const unknown = await bob.call("result_query", { handle: never });
    expect(errorOf(foreign).code).toBe("RESULT_HANDLE_NOT_FOUND");
    expect(foreign.content![0]!.text).toBe(unknown.content![0]!.text!.replace(never, handle));
  });

  it("a token signed by another key is refused before any tool runs", async () => {
    await expect(v1(authed.url, token("mallory", stranger))).rejects.toThrow(/401|Unauthorized|invalid/i);
  });
});

describe("S22.4 FrontMCP's in-process create()", () => {
  it("folds and reads back in the same session; another session gets RESULT_HANDLE_NOT_FOUND", async () => {
    const { stdout } = await run(process.execPath, [join(project, "out", "direct.js")], {
      cwd: project,
      env: cleanEnv,
      maxBuffer: 16 << 20,
    });
    const outcome = JSON.parse(stdout.trim().split("\n").at(-1)!) as {
      tools: string[];
      folded: Result;
      same: Result;
      other: Result;
    };
    expect(outcome.tools).toEqual(["dump", "result_query"]);
    expect(Object.keys(outcome.folded.structuredContent!).sort()).toEqual(["handle", "preview", "shape"]);
    expect(outcome.folded._meta?.["frontmcp/result-handle"]).toMatchObject({
      bytes: Buffer.byteLength(
        JSON.stringify({ rows: Array.from({ length: 300 }, (_, i) => ({ id: i, name: `row ${i}` })) }),
      ),
    });
    expect(outcome.same.structuredContent).toMatchObject({ value: { id: 299, name: "row 299" } });
    expect(errorOf(outcome.other).code).toBe("RESULT_HANDLE_NOT_FOUND");
  });
});

/**
 * One `tools/call` as raw JSON-RPC over HTTP in an existing session, as a load balancer would send it to another
 * process.
 */
async function callInSession(
  url: string,
  sessionId: string,
  name: string,
  args: Record<string, unknown>,
): Promise<Result> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-06-18",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  const text = await response.text();
  const json = (response.headers.get("content-type") ?? "").includes("text/event-stream")
    ? /^data: (.*)$/m.exec(text)?.[1]
    : text;
  const message = JSON.parse(json ?? "null") as { result?: Result; error?: unknown } | null;
  if (!message?.result) throw new Error(`HTTP ${response.status}: ${text}`);
  return message.result;
}

describe("S22.4 two server processes on one Redis", () => {
  let redis: RedisServer;
  let first: FrontMcpServer;
  let second: FrontMcpServer;
  const opened: V1Client[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    [first, second] = await Promise.all([
      startFrontMcpServer(project, { REDIS_URL: redis.url }),
      startFrontMcpServer(project, { REDIS_URL: redis.url }),
    ]);
  }, 180_000);
  afterAll(async () => {
    await Promise.all(opened.map((made) => made.close().catch(() => {})));
    await Promise.all([first?.stop(), second?.stop()]);
    await redis?.dispose();
  });

  it(
    "S9 the second process reads what the first folded for the same " +
      "session; another session gets RESULT_HANDLE_NOT_FOUND",
    async () => {
      const client = new V1Client({ name: "frontmcp-test-redis", version: "1.0.0" });
      const transport = new V1Transport(new URL(first.url));
      await client.connect(transport);
      opened.push(client);
      const result = (await client.callTool({ name: "shared_dump", arguments: {} })) as Result;
      const handle = handleOf(result);
      const sessionId = transport.sessionId!;
      const elsewhere = await callInSession(second.url, sessionId, "result_query", { handle, path: "$.rows[250]" });
      expect(elsewhere.structuredContent).toMatchObject({ value: { id: 250, name: "row 250" } });
      const other = await v1(second.url);
      clients.push(other);
      expect(errorOf(await other.call("result_query", { handle })).code).toBe("RESULT_HANDLE_NOT_FOUND");
    },
  );
});

describe("S22.3 new ResultHandleStore(storage, ttlSeconds) over @frontmcp/utils createStorage()", () => {
  let redis: RedisServer | undefined;
  afterAll(() => redis?.dispose());

  const storeOver = async (env: Record<string, string>) => {
    const { stdout } = await run(process.execPath, [join(project, "out", "storage.js")], {
      cwd: project,
      env: { ...cleanEnv, ...env },
      maxBuffer: 16 << 20,
    });
    return JSON.parse(stdout.trim().split("\n").at(-1)!) as {
      same: boolean;
      otherCaller: unknown;
      otherSession: unknown;
      keys: string[];
      namespaced: boolean;
      revealing: boolean;
      ttls: (number | null)[];
    };
  };

  it(
    "S8.3 memory and Redis: the owner reads the answer back, nobody " +
      "else; keys and values reveal nothing; records expire",
    async () => {
      redis = await startRedisServer();
      for (const env of [{}, { REDIS_URL: redis.url }] as Record<string, string>[]) {
        const outcome = await storeOver(env);
        expect(outcome).toMatchObject({
          same: true,
          otherCaller: null,
          otherSession: null,
          namespaced: true,
          revealing: false,
        });
        expect(outcome.keys.length).toBeGreaterThan(0);
        // S16.5: each record outlives its handle by 1 to 59 s in the storage; the expiry sealed inside ends reads at 60
        // s.
        for (const ttl of outcome.ttls) (expect(ttl).toBeGreaterThan(0), expect(ttl).toBeLessThanOrEqual(60 + 60));
      }
    },
  );
});
