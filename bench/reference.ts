/**
 * The reference part (S15.1): a 10 MB answer passed on by `{ "$result": handle, "path": "$.rows" }` against
 * folding it once, through a real MCP client and `McpServer` linked in memory (the plugin installed as a user
 * would, on the built package). Three calls, interleaved, a fresh handle per round for the reference:
 *   fold:      `tickets` returns the 10 MB answer, the plugin folds it;
 *   reference: `count_rows` gets `rows` by reference, the server reads the 60k rows, the tool's schema checks them;
 *   inline:    `count_rows` gets the same rows typed out in the request, what a model does without references.
 * Also the bytes of each request and response on the (in-memory) wire: the reference's request stays under 1 KB.
 */
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import type * as PublicApi from "mcp-result-handles";
import type { StorageConfig } from "mcp-result-handles";
import { z } from "zod";
import { ticketsOf } from "./answers.js";
import type { Keep } from "./measure.js";
import { interleaved, ratio, spread, type Ratio, type Spread } from "./timing.js";

const CALLS = ["fold", "reference", "inline"] as const;
type Call = (typeof CALLS)[number];

export interface ReferencePartResult {
  store: string;
  bytes: number;
  rows: number;
  rounds: number;
  /** ms from callTool to its parsed result; `parse` is one JSON.parse of the answer, for scale. */
  times: Record<Call | "parse", Spread>;
  /** reference / fold, and inline / fold. */
  ratios: { reference: Ratio; inline: Ratio };
  /** JSON-RPC bytes the client sent and received for one call of each. */
  requestBytes: Record<Call, number>;
  responseBytes: Record<Call, number>;
}

const utf8Length = (text: string): number => new TextEncoder().encode(text).byteLength;

export async function runReferencePart(
  api: Pick<typeof PublicApi, "ResultHandlesPlugin">,
  stores: readonly string[],
  storage: (store: string, keep: Keep) => StorageConfig,
  options: { bytes: number; rounds: number },
  report: (row: ReferencePartResult) => void,
): Promise<ReferencePartResult[]> {
  const answer = ticketsOf(options.bytes);
  const json = JSON.stringify(answer);
  const bytes = utf8Length(json);
  const results: ReferencePartResult[] = [];
  const warmup = 1;
  for (const store of stores) {
    const plugin = api.ResultHandlesPlugin.init({ thresholdBytes: 16_384, ttlSeconds: 300, storage: storage(store, { answers: 2 * (options.rounds + warmup) + 2, bytes }) });
    plugin.logger = { warn: (message) => console.error(`[reference] ${message.slice(0, 200)}`) };
    const server = new McpServer({ name: "bench-reference", version: "1.0.0" });
    plugin.install(server, { tools: ["tickets"] });
    server.registerTool("tickets", { description: "10 MB of tickets (bench)" }, async () => ({ content: [], structuredContent: answer }));
    server.registerTool(
      "count_rows",
      { description: "Counts the rows it is given", inputSchema: z.object({ rows: z.array(z.object({ id: z.string(), title: z.string() }).passthrough()) }) },
      async ({ rows }) => ({ content: [{ type: "text", text: JSON.stringify({ count: rows.length, last: rows.at(-1)?.id ?? null }) }] }),
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    // Counts what crosses the link in each direction, as JSON text (what a real transport would carry).
    let sent = 0;
    let received = 0;
    const send = clientSide.send.bind(clientSide);
    clientSide.send = (message, sendOptions) => ((sent += utf8Length(JSON.stringify(message))), send(message, sendOptions));
    const reply = serverSide.send.bind(serverSide);
    serverSide.send = (message, sendOptions) => ((received += utf8Length(JSON.stringify(message))), reply(message, sendOptions));
    await server.connect(serverSide);
    const client = new Client({ name: "bench-reference", version: "1.0.0" });
    await client.connect(clientSide);
    const requestBytes = { fold: 0, reference: 0, inline: 0 };
    const responseBytes = { fold: 0, reference: 0, inline: 0 };
    const counted = (name: Call, call: () => Promise<unknown>) => async () => {
      const [s, r] = [sent, received];
      await call();
      [requestBytes[name], responseBytes[name]] = [sent - s, received - r];
    };
    const fold = async () => {
      const folded = await client.callTool({ name: "tickets", arguments: {} });
      const handle = (folded.structuredContent as { handle?: string } | undefined)?.handle;
      if (!handle) throw new Error(`${store}: the 10 MB answer did not fold`);
      return handle;
    };
    const count = async (rows: unknown) => {
      const counted = await client.callTool({ name: "count_rows", arguments: { rows } });
      const text = (counted.content as { type: string; text?: string }[] | undefined)?.[0]?.text ?? "";
      if (counted.isError || JSON.parse(text).count !== answer.rows.length) throw new Error(`${store}: count_rows did not get every row: ${text.slice(0, 300)}`);
    };
    try {
      const unread: string[] = [];
      for (let i = 0; i < options.rounds + warmup; i++) unread.push(await fold());
      const times = await interleaved(
        options.rounds,
        {
          parse: () => JSON.parse(json),
          fold: counted("fold", fold),
          reference: counted("reference", () => count({ $result: unread.pop(), path: "$.rows" })),
          inline: counted("inline", () => count(answer.rows)),
        },
        warmup,
      );
      const row: ReferencePartResult = {
        store,
        bytes,
        rows: answer.rows.length,
        rounds: options.rounds,
        times: { parse: spread(times.parse), fold: spread(times.fold), reference: spread(times.reference), inline: spread(times.inline) },
        ratios: { reference: ratio(times.reference, times.fold), inline: ratio(times.inline, times.fold) },
        requestBytes,
        responseBytes,
      };
      report(row);
      results.push(row);
    } finally {
      await client.close();
      await server.close();
      await plugin.onShutdown();
    }
  }
  return results;
}
