// S17.1, S17.3, S17.4 Cloudflare Workers: the Runtimes page's Worker (extracted from docs/runtimes.md), bundled from
// the
// installed tarball with Wrangler's conditions (so the edge build), runs in workerd through Miniflare with
// no Node compatibility flag. A token's caller folds an answer and reads it back in later requests, with
// KV through the Runtimes page's custom storage adapter (S17.3), and with Upstash through the loopback bridge to a real
// redis-server (the page's Upstash line in place of the storage line).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Miniflare, Response as MiniflareResponse, type Request as MiniflareRequest } from "miniflare";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratchProject, type ScratchProject } from "../helpers/packed-package.js";
import { docBlock } from "../helpers/doc-blocks.js";
import { useRedisWithUpstashBridge } from "../helpers/redis-with-upstash-bridge.js";
import { bundleWorker } from "../helpers/worker-bundle.js";

const PAGE = "docs/runtimes.md";
const HEADING = "On Cloudflare Workers and other edge runtimes";
type Result = { structuredContent?: Record<string, unknown>; _meta?: Record<string, unknown>; isError?: boolean };

let project: ScratchProject | undefined;
let kvWorker = "";
let upstashWorker = "";
const servers = useRedisWithUpstashBridge();

beforeAll(async () => {
  project = await scratchProject(
    { "@modelcontextprotocol/server": "2.4.0", zod: "4.6.7", "@upstash/redis": "1.39.0" },
    {},
    "workers",
  );
  const worker = docBlock(PAGE, HEADING, 0);
  const storageLine = /^ *storage: \{ type: "custom", storage: kvStorage\(env\.KV\) \},\n/m;
  expect(worker).toMatch(storageLine);
  kvWorker = await bundleWorker(project.dir, "kv-worker.ts", worker);
  upstashWorker = await bundleWorker(
    project.dir,
    "upstash-worker.ts",
    worker.replace(storageLine, docBlock(PAGE, HEADING, 1)),
  );
}, 120_000);
afterAll(() => project?.dispose());

/** A Worker in its own workerd, as Wrangler would deploy it: no compatibility flags unless given. */
function startWorker(
  script: string,
  bindings: Record<string, string> = {},
  compatibilityFlags: string[] = [],
): Miniflare {
  return new Miniflare({
    modules: true,
    script,
    kvNamespaces: ["KV"],
    compatibilityDate: "2026-01-01",
    compatibilityFlags,
    bindings,
    // workerd reaches the loopback bridge through this process (its own network reaches only public hosts).
    outboundService: async (request: MiniflareRequest) => {
      const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
      const headers = [...request.headers].filter(
        ([name]) => !["host", "content-length", "cf-connecting-ip"].includes(name),
      );
      const response = await fetch(request.url, { method: request.method, headers, body });
      return new MiniflareResponse(await response.arrayBuffer(), {
        status: response.status,
        headers: [...response.headers],
      });
    },
  });
}

/** A 2026-07-28 MCP client whose HTTP requests go to the Worker; each call is its own request. */
async function connect(mf: Miniflare, token?: string): Promise<Client> {
  const client = new Client(
    { name: "workers-test", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  const viaWorker = (async (url: string | URL, init?: RequestInit) =>
    (await mf.dispatchFetch(String(url), init as never)) as unknown as Response) as typeof fetch;
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://worker.test/mcp"), {
      requestInit: { headers },
      fetch: viaWorker,
    }),
  );
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as Result;

type WorkerSetup = { script: string; bindings?: Record<string, string>; compatibilityFlags?: string[] };
function foldsAndReadsBack(
  name: string,
  worker: () => WorkerSetup,
  afterFold?: (handle: string, mf: Miniflare) => Promise<void>,
) {
  describe(`S17.1 the Runtimes page's Worker with ${name}`, () => {
    let mf: Miniflare;
    beforeAll(async () => {
      const { script, bindings, compatibilityFlags } = worker();
      mf = startWorker(script, bindings, compatibilityFlags);
      await mf.ready;
    }, 60_000);
    afterAll(async () => {
      await mf?.dispose();
    });

    it("folds for alice, reads back in later requests for alice only; no token: whole", async () => {
      const alice = await connect(mf, "token-alice");
      const answer = await call(alice, "tickets");
      expect(Object.keys(answer.structuredContent ?? {}).sort()).toEqual(["handle", "preview", "shape"]);
      expect(answer._meta?.["frontmcp/result-handle"]).toMatchObject({ bytes: 6990 });
      const handle = answer.structuredContent!.handle as string;
      await alice.close();
      await afterFold?.(handle, mf);

      const later = await connect(mf, "token-alice");
      const slice = await call(later, "result_query", { handle, path: "$.rows[-1]" });
      expect(slice.structuredContent).toEqual({
        path: "$.rows[199]",
        value: { id: "T-199", title: "Ticket 199" },
        total: 2,
        offset: 0,
      });
      const page = await call(later, "result_query", { handle, path: "$.rows", page: 2, limit: 100, fields: ["id"] });
      expect(page.structuredContent).toMatchObject({ total: 200, offset: 100 });
      await later.close();

      const bob = await connect(mf, "token-bob");
      expect((await call(bob, "result_query", { handle })).structuredContent).toMatchObject({
        error: { code: "RESULT_HANDLE_NOT_FOUND" },
      });
      await bob.close();

      const anonymous = await connect(mf);
      expect(((await call(anonymous, "tickets")).structuredContent as { rows: unknown[] }).rows).toHaveLength(200);
      await anonymous.close();
    }, 60_000);

    it("an unknown token gets HTTP 401", async () => {
      const response = await mf.dispatchFetch("http://worker.test/mcp", {
        method: "POST",
        headers: { authorization: "Bearer nope" },
        body: "{}",
      });
      expect(response.status).toBe(401);
      await response.arrayBuffer();
    });
  });
}

describe("S17.1 the Worker bundle", () => {
  it("takes the edge build by Wrangler's conditions, and no Node module", () => {
    for (const script of [kvWorker, upstashWorker]) {
      expect(script).toContain("node_modules/mcp-result-handles/dist/edge/index.js");
      expect(script).not.toContain("node_modules/mcp-result-handles/dist/node/");
      expect(script).not.toContain("node_modules/mcp-result-handles/dist/browser/");
      expect(script).not.toMatch(/\bfrom\s*["']node:|\bimport\(\s*["']node:|require\(\s*["']node:/);
    }
  });
});

foldsAndReadsBack(
  "Workers KV through the Runtimes page's custom storage adapter",
  () => ({ script: kvWorker }),
  async (handle, mf) => {
    // S17.3 the namespace is put in front of the adapter's keys; KV holds sealed records only, with an expiry.
    type Kv = {
      list(): Promise<{ keys: { name: string; expiration?: number }[] }>;
      get(key: string, type: "arrayBuffer"): Promise<ArrayBuffer>;
    };
    const kv = (await mf.getKVNamespace("KV")) as unknown as Kv;
    const { keys } = await kv.list();
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(key.name).toMatch(/^result-handles:[0-9a-f]{64}$/);
      expect(key.expiration).toBeGreaterThan(Date.now() / 1000 + 590);
      const value = new TextDecoder("latin1").decode(await kv.get(key.name, "arrayBuffer"));
      for (const secret of [handle, "Ticket 199", "alice"]) expect(value).not.toContain(secret);
    }
  },
);

foldsAndReadsBack(
  "Upstash over fetch (loopback bridge to a real redis-server)",
  () => ({
    script: upstashWorker,
    bindings: { UPSTASH_REDIS_REST_URL: servers.bridge.url, UPSTASH_REDIS_REST_TOKEN: servers.bridge.token },
  }),
  async () => {
    // The records went through the bridge into Redis, under the namespace, with native expiry.
    const redis = new Redis(servers.redis.url);
    const keys = await redis.keys("*");
    const ttl = await redis.pttl(keys[0]!);
    await redis.quit();
    expect(servers.bridge.requests["/pipeline"] ?? 0).toBeGreaterThan(0);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(key).toMatch(/^result-handles:[0-9a-f]{64}$/);
    expect(ttl).toBeGreaterThan(590_000);
  },
);

// Many Workers turn on Node compatibility for other libraries: the edge build works there the same way.
foldsAndReadsBack("Workers KV, in a Worker with the nodejs_compat flag", () => ({
  script: kvWorker,
  compatibilityFlags: ["nodejs_compat"],
}));
