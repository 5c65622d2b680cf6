// S17.4 the README's `→ result_query {…}` / `← …` exchanges (the text blocks of "Finding things"), read from
// README.md and run as written: each call goes to a real McpServer with the demo's tools (playground/demo-tools.ts)
// folded by a plugin instance set up as the demo server's (threshold 4096), through a real SDK client. The
// elided handle ("8ededa5a-…", "…") is replaced by the handle of a real fold; nothing else is changed.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import { ResultHandlesPlugin } from "mcp-result-handles";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerCountTickets, registerReport, registerServerLog } from "../playground/demo-tools.js";
import { linkInMemory } from "./helpers/in-memory.js";
import { root } from "./helpers/packed-package.js";
import { readmeBlock, readmeBlocks } from "./helpers/readme.js";

const HEADING = "Finding things";

interface Exchange {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  /** What follows `←`: JSON (possibly over several lines) or a refusal's text. */
  readonly answer: string;
}

/** The exchanges of a block: an exchange is a `→ tool {json}` line and the `←` lines up to the next blank line or `→`. */
function exchanges(block: string): Exchange[] {
  const found: Exchange[] = [];
  let current: { tool: string; args: Record<string, unknown>; answer: string[] } | undefined;
  const flush = () => {
    if (current) found.push({ tool: current.tool, args: current.args, answer: current.answer.join("\n").trim() });
    current = undefined;
  };
  for (const line of block.split("\n")) {
    const call = /^→ (\w+) (\{.*\})\s*$/.exec(line);
    if (call) {
      flush();
      current = { tool: call[1]!, args: JSON.parse(call[2]!) as Record<string, unknown>, answer: [] };
    } else if (line.startsWith("← ")) {
      if (!current || current.answer.length > 0) throw new Error(`a "←" without its "→" call: ${line}`);
      current.answer.push(line.slice(2));
    } else if (line.trim() === "") {
      flush();
    } else {
      if (!current || current.answer.length === 0) throw new Error(`a line outside an exchange: ${line}`);
      current.answer.push(line);
    }
  }
  flush();
  return found;
}

/** The README elides handles ("8ededa5a-…", "…"): every string with an ellipsis under `handle` is the real one. */
const withHandle = (args: Record<string, unknown>, handle: string) =>
  typeof args.handle === "string" && args.handle.includes("…") ? { ...args, handle } : args;

/** README.md's prose, for the figures it names (the blocks themselves come from readmeBlock). */
const readmeText = () => readFileSync(join(root, "README.md"), "utf8");

const normalized = (text: string) => text.replace(/\s+/g, " ").trim();

let server: McpServer;
let plugin: ResultHandlesPlugin;
let client: Client;
beforeAll(async () => {
  // As the demo server (playground/server/demo-server.ts) sets up its reports instance.
  plugin = ResultHandlesPlugin.init({ thresholdBytes: 4096, storage: { type: "memory" } });
  server = new McpServer({ name: "readme-exchanges", version: "1.0.0" });
  plugin.install(server, { tools: ["report", "server_log", "count_tickets"] });
  registerReport(server);
  registerServerLog(server);
  registerCountTickets(server);
  client = await linkInMemory(server);
});
afterAll(async () => {
  await client.close();
  await plugin.onShutdown();
});

/** Folds a demo tool's answer; its handle. */
async function fold(tool: string, args: Record<string, unknown>): Promise<string> {
  const answer = (await client.callTool({ name: tool, arguments: args })) as { structuredContent?: { handle?: string } };
  const handle = answer.structuredContent?.handle;
  expect(handle, `${tool} folds`).toMatch(/^[0-9a-f-]{36}$/);
  return handle!;
}

/** Runs every exchange of a block against a handle and checks each answer as the README shows it. */
async function runBlock(block: string, handle: string): Promise<number> {
  const list = exchanges(block);
  for (const { tool, args, answer } of list) {
    const result = (await client.callTool({ name: tool, arguments: withHandle(args, handle) })) as {
      isError?: boolean;
      structuredContent?: unknown;
      content: { type: string; text?: string }[];
    };
    const label = `${tool} ${JSON.stringify(args)}`;
    if (answer.startsWith("{")) {
      expect(result.isError ?? false, label).toBe(false);
      expect(result.structuredContent, label).toEqual(JSON.parse(answer));
    } else {
      expect(result.isError, label).toBe(true);
      expect(normalized(result.content[0]!.text!), label).toBe(normalized(answer));
    }
  }
  return list.length;
}

describe(`S17.4 "${HEADING}": the README's result_query exchanges answer as shown`, () => {
  const blocks = () => readmeBlocks().filter((block) => block.heading === HEADING);

  it("the blocks are text blocks of exchanges, every one with a call and an answer", () => {
    expect(blocks().length).toBeGreaterThanOrEqual(3);
    for (const block of blocks()) {
      expect(block.lang).toBe("text");
      const list = exchanges(block.code);
      expect(list.length).toBeGreaterThan(0);
      for (const exchange of list) {
        expect(exchange.tool).toBe("result_query");
        expect(exchange.answer).not.toBe("");
      }
    }
  });

  it("#0, filters and search over the demo's report (200 tickets, S14)", async () => {
    expect(await runBlock(readmeBlock(HEADING, 0), await fold("report", {}))).toBe(3);
  });

  it("#1, search in the demo's server_log, a line per hit (S14)", async () => {
    // The prose before the block says how many lines the log has.
    const lines = Number(/`server_log` of (\d+) lines/.exec(readmeText())![1]);
    expect(await runBlock(readmeBlock(HEADING, 1), await fold("server_log", { lines }))).toBe(1);
  });

  it("#2, refusals that name the next call (S14)", async () => {
    expect(await runBlock(readmeBlock(HEADING, 2), await fold("report", {}))).toBe(3);
  });
});
