// S17.4, S20.4 the `→ result_query {…}` / `← …` exchanges of the docs pages (the text blocks of "What the model
// sees" and "Finding things"), read from the pages and run as written: each call goes to a real McpServer with
// the demo's tools (playground/demo-tools.ts) folded by a plugin instance set up as the demo server's
// (threshold 4096), through a real SDK client. The elided handle ("8ededa5a-…", "…") is replaced by the
// handle of a real fold; nothing else is changed. When the demo's data or texts change (S18), run this file with
// UPDATE_DOCS_EXCHANGES=1: it writes each block's answers again from what the code answers, then checks them.
import type { Client } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import { ResultHandlesPlugin } from "mcp-result-handles";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerCountTickets, registerReport, registerServerLog } from "../../playground/demo-tools.js";
import { linkInMemory } from "../helpers/in-memory.js";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { docBlock, docBlocks, docText } from "../helpers/doc-blocks.js";
import { answerLines } from "../helpers/exchange-text.js";
import { root } from "../helpers/packed-package.js";

interface Exchange {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  /** What follows `←`: JSON (possibly over several lines) or a refusal's text. */
  readonly answer: string;
}

/**
 * The exchanges of a block: an exchange is a `→ tool {json}` line and the `←` lines up to the next blank line or `→`.
 */
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

/** The pages elide handles ("8ededa5a-…", "…"): every string with an ellipsis under `handle` is the real one. */
const withHandle = (args: Record<string, unknown>, handle: string) =>
  typeof args.handle === "string" && args.handle.includes("…") ? { ...args, handle } : args;

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
  const answer = (await client.callTool({ name: tool, arguments: args })) as {
    structuredContent?: { handle?: string };
  };
  const handle = answer.structuredContent?.handle;
  expect(handle, `${tool} folds`).toMatch(/^[0-9a-f-]{36}$/);
  return handle!;
}

/** With UPDATE_DOCS_EXCHANGES=1 the pages' answers are first written again from what the code answers. */
const UPDATE = process.env.UPDATE_DOCS_EXCHANGES === "1";

interface Where {
  readonly file: string;
  readonly heading: string;
  readonly index: number;
}

/** Writes a block's `←` answers again from the real ones, keeping its `→` calls as written. */
async function rewriteBlock({ file, heading, index }: Where, handle: string): Promise<void> {
  const block = docBlock(file, heading, index);
  const written: string[] = [];
  for (const { tool, args } of exchanges(block)) {
    const result = (await client.callTool({ name: tool, arguments: withHandle(args, handle) })) as {
      isError?: boolean;
      structuredContent?: unknown;
      content: { text?: string }[];
    };
    const call = `→ ${tool} ${JSON.stringify(args)
      .replace(/^\{(.+)\}$/, "{ $1 }")
      .replace(/":/g, '": ')
      .replace(/,"/g, ', "')}`;
    written.push(
      [
        call,
        ...answerLines(result.isError ? { text: result.content[0]!.text! } : { json: result.structuredContent }),
      ].join("\n"),
    );
  }
  writeFileSync(join(root, file), docText(file).replace(block, written.join("\n\n") + "\n"));
}

/** Runs every exchange of a block against a handle and checks each answer as the page shows it. */
async function runBlock(where: Where, handle: string): Promise<number> {
  if (UPDATE) await rewriteBlock(where, handle);
  const list = exchanges(docBlock(where.file, where.heading, where.index));
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

/**
 * Every exchange block of the pages, in the order of the files: where it is, which demo tool's fold it reads, and how
 * many exchanges it holds.
 */
const BLOCKS = [
  { file: "docs/finding.md", heading: "Finding things", index: 0, tool: "report", exchanges: 3 },
  { file: "docs/finding.md", heading: "What a search answers", index: 0, tool: "server_log", exchanges: 1 },
  { file: "docs/finding.md", heading: "Counting without reading: aggregates", index: 0, tool: "report", exchanges: 4 },
  { file: "docs/model.md", heading: "Reading it back, by example", index: 0, tool: "report", exchanges: 4 },
  { file: "docs/model.md", heading: "When a call is refused", index: 0, tool: "report", exchanges: 3 },
] as const;

/** The arguments of the fold a block reads: server_log's length comes from the prose before the block. */
function foldArguments(file: string, tool: string): Record<string, unknown> {
  if (tool !== "server_log") return {};
  return { lines: Number(/`server_log` of (\d+) lines/.exec(docText(file))![1]) };
}

describe("S17.4, S20.4 the docs' result_query exchanges answer as shown", () => {
  it("every text block of exchanges in the README and the pages is replayed here, and only those", () => {
    const withExchanges = docBlocks().filter((block) => /^→ /m.test(block.code));
    expect(withExchanges.map(({ file, heading, index }) => `${file} › ${heading}#${index}`)).toEqual(
      BLOCKS.map(({ file, heading, index }) => `${file} › ${heading}#${index}`),
    );
    for (const block of withExchanges) {
      expect(block.lang).toBe("text");
      const list = exchanges(block.code);
      expect(list.length).toBeGreaterThan(0);
      for (const exchange of list) {
        expect(exchange.tool).toBe("result_query");
        expect(exchange.answer).not.toBe("");
      }
    }
  });

  for (const { file, heading, index, tool, exchanges: count } of BLOCKS) {
    it(`${file} "${heading}" #${index}, over the demo's ${tool}`, async () => {
      expect(await runBlock({ file, heading, index }, await fold(tool, foldArguments(file, tool)))).toBe(count);
    });
  }
});
