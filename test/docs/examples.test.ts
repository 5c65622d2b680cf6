// The two complete servers of the README and Getting started (examples/), run as a user runs them, with a real SDK
// client:
// the HTTP one over real HTTP (createMcpHandler), the stdio one as a child process over stdio.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RESULT_HANDLE_META_KEY } from "mcp-result-handles";
import { connect, type Era } from "../helpers/mcp-client.js";
import { docBlock } from "../helpers/doc-blocks.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** How the examples run: node with tsx's loader (one process; the `tsx` command starts two). */
const withTsx = (file: string) => ["--import", "tsx", file];
type Result = { structuredContent?: Record<string, unknown>; _meta?: Record<string, unknown>; isError?: boolean };

describe("the README and Getting started show the examples that these tests run", () => {
  const shown = [
    ["README.md", "A stdio server", "stdio-server.ts"],
    ["docs/getting-started.md", "A stdio server", "stdio-server.ts"],
    ["docs/getting-started.md", "An HTTP server", "http-server.ts"],
  ] as const;
  for (const [page, heading, file] of shown) {
    it(`${page} "${heading}" is examples/${file} without its header comment`, () => {
      const source = readFileSync(join(root, "examples", file), "utf8").replace(/^\/\*\*[\s\S]*?\*\/\n/, "");
      expect(docBlock(page, heading)).toBe(source);
    });
  }
});

async function foldAndRead(client: Client) {
  const answer = (await client.callTool({ name: "tickets", arguments: {} })) as Result;
  const handle = answer.structuredContent?.handle;
  const slice = handle
    ? ((await client.callTool({ name: "result_query", arguments: { handle, path: "$.rows[-1]" } })) as Result)
    : undefined;
  return { answer, slice };
}

describe("examples/http-server.ts (the README's HTTP server)", () => {
  let child: ChildProcess;
  let url = "";

  beforeAll(async () => {
    child = spawn(process.execPath, withTsx("examples/http-server.ts"), {
      cwd: root,
      env: { ...process.env, PORT: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    url = await new Promise<string>((resolveUrl, reject) => {
      let seen = "";
      child.stdout!.on("data", (chunk: Buffer) => {
        seen += chunk.toString();
        const match = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(seen);
        if (match) resolveUrl(match[0]);
      });
      child.once("exit", (code) => reject(new Error(`http example exited with ${code}: ${seen}`)));
    });
  }, 30_000);

  afterAll(async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((done) => child.once("exit", done));
    child.kill("SIGTERM");
    await exited;
  });

  for (const era of ["2026-07-28", "2025"] as Era[]) {
    it(`S4.4 a ${era} caller with a token gets the folded answer and reads a slice back`, async () => {
      const client = await connect(url, { era, token: "token-alice" });
      const { answer, slice } = await foldAndRead(client);
      await client.close();
      expect(Object.keys(answer.structuredContent ?? {}).sort()).toEqual(["handle", "preview", "shape"]);
      expect((answer._meta?.[RESULT_HANDLE_META_KEY] as { bytes: number }).bytes).toBe(6990);
      expect(slice?.structuredContent).toEqual({
        path: "$.rows[199]",
        value: { id: "T-199", title: "Ticket 199" },
        total: 2,
        offset: 0,
      });
    });
  }

  it("S4.4 a 2026-07-28 request without a token is anonymous: the answer comes whole", async () => {
    const client = await connect(url, { era: "2026-07-28" });
    const { answer } = await foldAndRead(client);
    await client.close();
    expect((answer.structuredContent as { rows: unknown[] }).rows).toHaveLength(200);
    expect(answer._meta?.[RESULT_HANDLE_META_KEY]).toBeUndefined();
  });

  it("S8.2 another caller cannot read alice's handle", async () => {
    const alice = await connect(url, { era: "2026-07-28", token: "token-alice" });
    const { answer } = await foldAndRead(alice);
    await alice.close();
    const bob = await connect(url, { era: "2026-07-28", token: "token-bob" });
    const refused = (await bob.callTool({
      name: "result_query",
      arguments: { handle: answer.structuredContent?.handle },
    })) as Result;
    await bob.close();
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ error: { code: "RESULT_HANDLE_NOT_FOUND" } });
  });

  it("an unknown token gets HTTP 401", async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: { authorization: "Bearer nope", "content-type": "application/json" },
      body: "{}",
    });
    expect(response.status).toBe(401);
  });
});

describe("examples/http-server.ts on a busy port", () => {
  it("says so in one line naming the port and exits with code 1, without a stack trace", async () => {
    const busy = createNetServer();
    await new Promise<void>((done) => busy.listen(0, "127.0.0.1", done));
    const port = (busy.address() as AddressInfo).port;
    try {
      const child = spawn(process.execPath, withTsx("examples/http-server.ts"), {
        cwd: root,
        env: { ...process.env, PORT: String(port) },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((done) => child.once("exit", done));
      expect(code).toBe(1);
      expect(stderr.trim().split("\n")).toEqual([
        `Port ${port} is already in use: start on another with PORT=${port + 1}`,
      ]);
    } finally {
      busy.close();
    }
  }, 30_000);
});

describe("examples/stdio-server.ts (the README's stdio server)", () => {
  let client: Client;

  beforeAll(async () => {
    client = new Client({ name: "examples-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: withTsx("examples/stdio-server.ts"),
        cwd: root,
        stderr: "ignore",
      }),
    );
  }, 30_000);

  afterAll(async () => {
    await client?.close();
  });

  it("lists tickets and result_query, and answers a call", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["result_query", "tickets"]);
    const answer = (await client.callTool({ name: "tickets", arguments: {} })) as Result;
    expect(answer.isError).toBeFalsy();
  });

  it("S8.1 one stdio connection is one session: the answer folds and reads a slice back", async () => {
    const { answer, slice } = await foldAndRead(client);
    expect(Object.keys(answer.structuredContent ?? {}).sort()).toEqual(["handle", "preview", "shape"]);
    expect(slice?.structuredContent).toMatchObject({
      path: "$.rows[199]",
      value: { id: "T-199", title: "Ticket 199" },
    });
  });
});
