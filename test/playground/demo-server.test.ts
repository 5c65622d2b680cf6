// The demo server of `npm start` (S11), driven by the real MCP client over real HTTP in both protocol eras.
import { request } from "node:http";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RESULT_HANDLE_META_KEY } from "mcp-result-handles";
import { startDemoServer, type DemoServer } from "../../playground/server/demo-server.js";
import { reportRows } from "../../playground/demo-tools.js";
import { connect, type Era } from "../helpers/mcp-client.js";
import { initializeBody, postInitialize } from "../helpers/raw-initialize.js";
import { ORDERS_GOLDEN } from "../fixtures/orders-golden.js";

type Result = Awaited<ReturnType<Client["callTool"]>>;
type Folded = { preview: unknown; shape: Record<string, unknown>; handle: string };

let demo: DemoServer;
const warnings: string[] = [];
const calls: string[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  demo = await startDemoServer({
    port: 0,
    logger: { warn: (message) => warnings.push(message), info: (line) => calls.push(line) },
  });
});
afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  await demo.close();
});

async function client(era: Era, token?: string): Promise<Client> {
  const c = await connect(demo.url, { era, token });
  clients.push(c);
  return c;
}

const folded = (result: Result) => result.structuredContent as Folded;
const query = async (c: Client, args: Record<string, unknown>) =>
  (await c.callTool({ name: "result_query", arguments: args })) as Result;

describe("S4.4 S11.1 who gets a folded answer", () => {
  it("a 2026-07-28 client without a token is anonymous and gets the full report", async () => {
    const anonymous = await client("2026-07-28");
    const result = await anonymous.callTool({ name: "report", arguments: {} });
    expect(result.structuredContent).toEqual(reportRows());
    expect(result._meta?.[RESULT_HANDLE_META_KEY]).toBeUndefined();
  });

  it("a 2025 client without a token has a session, so its report folds, bound to that session", async () => {
    const first = await client("2025");
    const result = await first.callTool({ name: "report", arguments: {} });
    const { handle } = folded(result);
    expect(result._meta?.[RESULT_HANDLE_META_KEY]).toMatchObject({ handle, ttlSeconds: 600 });
    expect((await query(first, { handle, path: "$.rows[0]" })).structuredContent).toEqual({
      path: "$.rows[0]",
      value: reportRows().rows[0],
      total: 5,
      offset: 0,
    });
    const second = await client("2025");
    expect((await query(second, { handle })).structuredContent).toMatchObject({
      error: { code: "RESULT_HANDLE_NOT_FOUND" },
    });
  });
});

describe.each<Era>(["2025", "2026-07-28"])("S5 S7 S8 alice and bob, %s era", (era) => {
  let alice: Client;
  let result: Result;

  beforeAll(async () => {
    alice = await client(era, "demo-alice");
    await alice.listTools(); // the client validates structuredContent against the schemas it listed
    result = (await alice.callTool({ name: "report", arguments: {} })) as Result;
  });

  it("S5.1 S5.2 S5.3 alice gets the folded form, its _meta and a text naming result_query and the handle", () => {
    const { handle, preview, shape } = folded(result);
    expect(Object.keys(result.structuredContent!)).toEqual(["preview", "shape", "handle"]);
    expect(preview).toEqual({ rows: reportRows().rows.slice(0, 5) });
    expect(shape).toMatchObject({ type: "object", keys: { rows: { type: "array", length: 200 } } });
    const bytes = new TextEncoder().encode(JSON.stringify(reportRows())).byteLength;
    expect(result._meta?.[RESULT_HANDLE_META_KEY]).toEqual({ handle, bytes, ttlSeconds: 600 });
    const texts = (result.content as { type: string; text: string }[]).map((c) => c.text);
    expect(JSON.parse(texts[0]!)).toEqual(result.structuredContent);
    expect(texts[1]).toContain("result_query");
    expect(texts[1]).toContain(handle);
  });

  it("S7.2 S7.3 alice pages through the rows with every path form", async () => {
    const { handle } = folded(result);
    const seen: string[] = [];
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const page = (await query(alice, { handle, path: "$.rows", offset, limit: 25 })).structuredContent as {
        // 25 tickets fit the 4096-byte limit
        value: { id: string }[];
        total: number;
        nextOffset?: number;
      };
      expect(page.total).toBe(200);
      seen.push(...page.value.map((row) => row.id));
      offset = page.nextOffset;
    }
    expect(seen).toEqual(reportRows().rows.map((row) => row.id));
    for (const path of [
      "$.rows[150].title",
      "$['rows'][150]['title']",
      "rows.150.title",
      "/rows/150/title",
      "$.rows[-50].title",
    ]) {
      const title = reportRows().rows[150]!.title;
      expect((await query(alice, { handle, path })).structuredContent).toEqual({
        path: "$.rows[150].title",
        value: title,
        total: title.length,
        offset: 0,
      });
    }
    const page = await query(alice, { handle, path: "rows", page: 4, limit: 10, fields: ["id"] });
    expect((page.structuredContent as { value: unknown }).value).toEqual(
      Array.from({ length: 10 }, (_, i) => ({ id: `T-${30 + i}` })),
    );
  });

  it("S8.2 bob gets RESULT_HANDLE_NOT_FOUND, with the same text as for a random UUID", async () => {
    const { handle } = folded(result);
    const bob = await client(era, "demo-bob");
    const stolen = await query(bob, { handle });
    const random = await query(alice, { handle: crypto.randomUUID() });
    expect(stolen.isError).toBe(true);
    expect(stolen.structuredContent).toMatchObject({ error: { code: "RESULT_HANDLE_NOT_FOUND" } });
    const text = (r: Result) => (r.content as { text: string }[])[0]!.text;
    expect(text(stolen).startsWith("RESULT_HANDLE_NOT_FOUND")).toBe(true);
    expect(text(stolen).replace(handle, "<h>")).toBe(text(random).replace(/"[0-9a-f-]{36}"/, '"<h>"'));
  });

  it("S7.6 every refused argument answers INVALID_INPUT in the tool-result form", async () => {
    const { handle } = folded(result);
    for (const args of [
      {},
      { handle: 42 },
      { handle, page: 1, offset: 1 },
      { handle, limit: 0 },
      { handle, offset: -1 },
      { handle, fields: 7 },
      { handle, limit: "five" },
    ]) {
      // "5" and "id" are read (S18.4)
      const refused = await query(alice, args);
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({ error: { code: "INVALID_INPUT" } });
      expect((refused.content as { text: string }[])[0]!.text.startsWith("INVALID_INPUT: ")).toBe(true);
    }
  });

  it("S7.6 a path that names nothing answers RESULT_PATH_NOT_FOUND", async () => {
    const refused = await query(alice, { handle: folded(result).handle, path: "$.rows[200]" });
    expect(refused.structuredContent).toMatchObject({ error: { code: "RESULT_PATH_NOT_FOUND" } });
  });
});

describe("S8.2 2025 sessions", () => {
  it("a second alice session gets RESULT_HANDLE_NOT_FOUND for the first session's handle", async () => {
    const first = await client("2025", "demo-alice");
    const second = await client("2025", "demo-alice");
    const { handle } = folded((await first.callTool({ name: "report", arguments: {} })) as Result);
    expect((await query(first, { handle, path: "$.rows", limit: 1 })).isError).toBeFalsy();
    expect((await query(second, { handle })).structuredContent).toMatchObject({
      error: { code: "RESULT_HANDLE_NOT_FOUND" },
    });
  });

  it("2026-07-28 handles are bound to the caller alone: another alice connection reads them", async () => {
    const one = await client("2026-07-28", "demo-alice");
    const other = await client("2026-07-28", "demo-alice");
    const { handle } = folded((await one.callTool({ name: "report", arguments: {} })) as Result);
    expect((await query(other, { handle, path: "/rows/199/id" })).structuredContent).toMatchObject({ value: "T-199" });
  });
});

describe("S10.1 S11.2 the demo's tools", () => {
  it("lists result_query once, and every tool with a description", async () => {
    const alice = await client("2025", "demo-alice");
    const { tools } = await alice.listTools();
    expect(tools.filter((tool) => tool.name === "result_query")).toHaveLength(1);
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      "chart",
      "count_tickets",
      "orders",
      "report",
      "result_query",
      "server_log",
    ]);
    for (const tool of tools) expect(tool.description?.length).toBeGreaterThan(5);
  });

  it("S6.4 orders: the golden preview and shape over the wire", async () => {
    const alice = await client("2026-07-28", "demo-alice");
    const { preview, shape, handle } = folded((await alice.callTool({ name: "orders", arguments: {} })) as Result);
    expect({ preview, shape }).toEqual(ORDERS_GOLDEN);
    expect((await query(alice, { handle, path: "$.orders[499]" })).structuredContent).toMatchObject({
      value: { id: 499 },
    });
  });

  it("S7.6 a slice over the folding instance's threshold is refused with how many items fit", async () => {
    const alice = await client("2026-07-28", "demo-alice");
    const { handle } = folded((await alice.callTool({ name: "orders", arguments: { n: 5000 } })) as Result);
    const refused = await query(alice, { handle, path: "$.orders", limit: 1000 });
    expect(refused.structuredContent).toMatchObject({ error: { code: "RESULT_SLICE_TOO_LARGE" } });
    const fit = Number(
      /At most (\d+) items/.exec((refused.structuredContent as { error: { message: string } }).error.message)?.[1],
    );
    // The orders instance has an 8192-byte threshold; the reports instance 4096.
    expect(fit * JSON.stringify({ id: 1000, status: "shipped" }).length).toBeGreaterThan(4096);
    expect((await query(alice, { handle, path: "$.orders", limit: fit })).isError).toBeFalsy();
  });

  it("chart never folds", async () => {
    const alice = await client("2025", "demo-alice");
    const result = await alice.callTool({ name: "chart", arguments: {} });
    const [image] = result.content as { type: string; data: string; mimeType: string }[];
    expect(image!.type).toBe("image");
    expect(image!.data.length).toBeGreaterThan(4096);
    expect(Buffer.from(image!.data, "base64").subarray(1, 4).toString()).toBe("PNG");
    expect(result._meta?.[RESULT_HANDLE_META_KEY]).toBeUndefined();
  });

  it("server_log folds as a string and reads back by character ranges", async () => {
    const alice = await client("2025", "demo-alice");
    const result = (await alice.callTool({ name: "server_log", arguments: {} })) as Result;
    const { shape, preview, handle } = folded(result);
    expect(shape.type).toBe("string");
    expect(typeof preview).toBe("string");
    const total = shape.length as number;
    let text = "";
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const slice = (await query(alice, { handle, offset, limit: 2000 })).structuredContent as {
        value: string;
        nextOffset?: number;
      };
      text += slice.value;
      offset = slice.nextOffset;
    }
    expect(text.length).toBe(total);
    expect(text.split("\n")).toHaveLength(2000);
    for (const line of text.split("\n")) expect(line.length).toBeGreaterThanOrEqual(40);
  });
});

describe("S11.1 HTTP", () => {
  // node:http rather than fetch: fetch will not send a forged Host or Origin header.
  const post = (headers: Record<string, string>) =>
    new Promise<{ status: number }>((resolve, reject) => {
      const body = initializeBody("x");
      const req = request(
        demo.url,
        {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        },
        (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0 });
        },
      );
      req.on("error", reject);
      req.end(body);
    });

  it("refuses any other bearer token with HTTP 401", async () => {
    expect((await post({ authorization: "Bearer demo-mallory" })).status).toBe(401);
  });

  it("matches tokens as exact own entries: names of inherited members are unknown tokens (401)", async () => {
    for (const token of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "__defineGetter__"]) {
      expect((await post({ authorization: `Bearer ${token}` })).status, token).toBe(401);
    }
    expect((await post({ authorization: "Bearer demo-alice" })).status).toBe(200);
  });

  it("refuses a Host or Origin that is not localhost with an HTTP 4xx (DNS rebinding)", async () => {
    const port = new URL(demo.url).port;
    for (const headers of [{ host: `evil.example:${port}` }, { origin: "http://evil.example" }] as Record<
      string,
      string
    >[]) {
      const status = (await post(headers)).status;
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(500);
    }
    for (const origin of [`http://localhost:${port}`, "http://127.0.0.1:5173", "http://[::1]:8080"]) {
      expect((await post({ origin })).status).toBe(200);
    }
  });
});

describe("S25.4 CORS for loopback web origins only", () => {
  // A preflight as a browser sends it, with an Origin header fetch would not let a test forge.
  const preflight = (origin: string) =>
    new Promise<{ status: number; allowOrigin: string | undefined }>((resolve, reject) => {
      const headers = {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
      };
      const req = request(demo.url, { method: "OPTIONS", headers }, (res) => {
        res.resume();
        const allow = res.headers["access-control-allow-origin"];
        resolve({ status: res.statusCode ?? 0, allowOrigin: Array.isArray(allow) ? allow.join(",") : allow });
      });
      req.on("error", reject);
      req.end();
    });

  it("answers a loopback page's preflight with its own origin, any port, http or https", async () => {
    for (const origin of ["http://localhost:5174", "http://127.0.0.1", "https://localhost:8443", "http://[::1]:9"]) {
      expect(await preflight(origin), origin).toEqual({ status: 204, allowOrigin: origin });
    }
  });

  it("gives no CORS header to another scheme on localhost or to a text that is no origin a browser sends", async () => {
    // Each passes the rebinding check (it compares the URL's host name only); none is a loopback web page.
    const origins = [
      "tauri://localhost",
      "capacitor://localhost",
      "app://localhost",
      "chrome-extension://localhost",
      "ftp://localhost",
      "http://evil.example@localhost",
      "http://localhost\\@evil.example",
      "http://localhost#@evil.example",
      "http://localhost/path",
      "http://LOCALHOST:5174",
      "http://127.1",
      "http://0x7f000001",
      "http://localhost:80",
    ];
    for (const origin of origins) {
      const { allowOrigin } = await preflight(origin);
      expect(allowOrigin, origin).toBeUndefined();
    }
    // And the hosts the rebinding check refuses stay refused.
    for (const origin of [
      "http://localhost.evil.example",
      "http://127.0.0.1.nip.io",
      "null",
      "file://",
      "http://[::1]@evil.example",
    ]) {
      expect(await preflight(origin), origin).toEqual({ status: 403, allowOrigin: undefined });
    }
  });
});

describe("S11.1 one log line per tools/call", () => {
  it("names the tool, the caller or anonymous, the bytes, and whether it folded", async () => {
    const alice = await client("2025", "demo-alice");
    const anonymous = await client("2026-07-28");
    const sessionOnly = await client("2025");
    calls.length = 0;
    await alice.callTool({ name: "report", arguments: {} });
    await anonymous.callTool({ name: "report", arguments: {} });
    await alice.callTool({ name: "result_query", arguments: { handle: "nope" } });
    await sessionOnly.callTool({ name: "report", arguments: {} });
    const bytes = new TextEncoder().encode(JSON.stringify(reportRows())).byteLength;
    expect(calls[0]).toBe(`tools/call report caller=alice bytes=${bytes} folded`);
    expect(calls[1]).toMatch(/^tools\/call report caller=anonymous bytes=\d+ not folded$/);
    // the full answer as sent: text and structuredContent
    expect(Number(/bytes=(\d+)/.exec(calls[1]!)![1])).toBeGreaterThan(bytes);
    expect(calls[2]).toMatch(/^tools\/call result_query caller=alice bytes=\d+ error, not folded$/);
    // No token, but a 2025 session: not anonymous (S8.1), and its answer folds for that session.
    expect(calls[3]).toBe(`tools/call report caller=none (session) bytes=${bytes} folded`);
    expect(calls).toHaveLength(4);
  });
});

describe("S11.1 idle 2025 sessions", () => {
  it("are closed after SESSION_IDLE_SECONDS, and their id then gets HTTP 404", async () => {
    const short = await startDemoServer({ port: 0, sessionIdleSeconds: 1, logger: { warn: () => {} } });
    try {
      const initialize = await postInitialize(short.url, "idle");
      await initialize.body?.cancel();
      const sessionId = initialize.headers.get("mcp-session-id")!;
      expect(sessionId).toBeTruthy();
      const ping = () =>
        fetch(short.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-session-id": sessionId,
            "mcp-protocol-version": "2025-06-18",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
        }).then(async (response) => (await response.body?.cancel(), response.status));
      // Requests every 0.5 s keep it alive past 1 s; then 2.5 s of silence closes it.
      for (let i = 0; i < 3; i++) {
        await new Promise((r) => setTimeout(r, 500));
        expect(await ping()).toBe(200);
      }
      await new Promise((r) => setTimeout(r, 2500));
      expect(await ping()).toBe(404);
    } finally {
      await short.close();
    }
  });
});
