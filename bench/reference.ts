/**
 * The reference part (S15.1): a 10 MB answer passed on by `{ "$result": handle, "path": "$.rows" }` against
 * folding it once, through a real MCP client and `McpServer` linked in memory (the plugin installed as a user
 * would, on the built package). Four calls, interleaved, a fresh handle per round for the reference:
 *   fold:      `tickets` returns the 10 MB answer, the plugin folds it;
 *   reference: `count_rows` gets `rows` by reference, the server reads the 45k rows, the tool's schema checks them;
 *   loose:     the same reference to `count_any`, whose schema takes any list: the reference without the checking;
 *   inline:    `count_rows` gets the same rows typed out in the request, what a model does without references; over
 *              this in-memory link nothing is serialised, so it is a lower bound (a real transport parses 10 MB,
 *              and the model first writes them out).
 * Also the JSON bytes of each request and response (counted in one untimed call of each): the reference's
 * request stays under 1 KB.
 */
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import type * as PublicApi from "mcp-result-handles";
import type { StorageConfig } from "mcp-result-handles";
import { z } from "zod";
import { ticketsOf } from "./answers.js";
import type { Keep } from "./measure.js";
import { interleaved, ratio, spread, type Ratio, type Spread } from "./timing.js";

const CALLS = ["fold", "reference", "loose", "inline"] as const;
type Call = (typeof CALLS)[number];

export interface ReferencePartResult {
  store: string;
  bytes: number;
  rows: number;
  rounds: number;
  /** ms from callTool to its parsed result; `parse` is one JSON.parse of the answer, for scale. */
  times: Record<Call | "parse", Spread>;
  /** Each call against the fold. */
  ratios: { reference: Ratio; loose: Ratio; inline: Ratio };
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
    const plugin = api.ResultHandlesPlugin.init({
      thresholdBytes: 16_384,
      ttlSeconds: 300,
      storage: storage(store, { answers: 3 * (options.rounds + warmup) + 4, bytes }),
    });
    plugin.logger = { warn: (message) => console.error(`[reference] ${message.slice(0, 200)}`) };
    const server = new McpServer({ name: "bench-reference", version: "1.0.0" });
    plugin.install(server, { tools: ["tickets"] });
    server.registerTool("tickets", { description: "10 MB of tickets (bench)" }, async () => ({
      content: [],
      structuredContent: answer,
    }));
    server.registerTool(
      "count_rows",
      {
        description: "Counts the rows it is given",
        inputSchema: z.object({ rows: z.array(z.object({ id: z.string(), title: z.string() }).passthrough()) }),
      },
      async ({ rows }) => ({
        content: [{ type: "text", text: JSON.stringify({ count: rows.length, last: rows.at(-1)?.id ?? null }) }],
      }),
    );
    server.registerTool(
      "count_any",
      { description: "Counts the items of any list", inputSchema: z.object({ rows: z.array(z.unknown()) }) },
      async ({ rows }) => ({
        content: [{ type: "text", text: JSON.stringify({ count: rows.length }) }],
      }),
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    // Counts what crosses the link in each direction as JSON text (what a real transport would carry), only
    // while `counting`: stringifying a 10 MB request inside a timed call would time the counting too.
    let [counting, sent, received] = [false, 0, 0];
    const send = clientSide.send.bind(clientSide);
    clientSide.send = (message, sendOptions) => (
      (sent += counting ? utf8Length(JSON.stringify(message)) : 0),
      send(message, sendOptions)
    );
    const reply = serverSide.send.bind(serverSide);
    serverSide.send = (message, sendOptions) => (
      (received += counting ? utf8Length(JSON.stringify(message)) : 0),
      reply(message, sendOptions)
    );
    await server.connect(serverSide);
    const client = new Client({ name: "bench-reference", version: "1.0.0" });
    await client.connect(clientSide);
    const requestBytes = { fold: 0, reference: 0, loose: 0, inline: 0 };
    const responseBytes = { fold: 0, reference: 0, loose: 0, inline: 0 };
    const counted = async (name: Call, call: () => Promise<unknown>) => {
      const [s, r] = [sent, received];
      counting = true;
      await call().finally(() => (counting = false));
      [requestBytes[name], responseBytes[name]] = [sent - s, received - r];
    };
    const fold = async () => {
      const folded = await client.callTool({ name: "tickets", arguments: {} });
      const handle = (folded.structuredContent as { handle?: string } | undefined)?.handle;
      if (!handle) throw new Error(`${store}: the 10 MB answer did not fold`);
      return handle;
    };
    const count = async (rows: unknown, name = "count_rows") => {
      const counted = await client.callTool({ name, arguments: { rows } });
      const text = (counted.content as { type: string; text?: string }[] | undefined)?.[0]?.text ?? "";
      if (counted.isError || JSON.parse(text).count !== answer.rows.length)
        throw new Error(`${store}: count_rows did not get every row: ${text.slice(0, 300)}`);
    };
    try {
      const unread = { reference: [] as string[], loose: [] as string[] };
      for (let i = 0; i < options.rounds + warmup + 1; i++)
        for (const list of Object.values(unread)) list.push(await fold());
      const reference = (name: "reference" | "loose") => () =>
        count({ $result: unread[name].pop(), path: "$.rows" }, name === "loose" ? "count_any" : "count_rows");
      const calls = {
        fold,
        reference: reference("reference"),
        loose: reference("loose"),
        inline: () => count(answer.rows),
      };
      for (const name of CALLS) await counted(name, calls[name]);
      const times = await interleaved(options.rounds, { parse: () => JSON.parse(json), ...calls }, warmup);
      const row: ReferencePartResult = {
        store,
        bytes,
        rows: answer.rows.length,
        rounds: options.rounds,
        times: {
          parse: spread(times.parse),
          fold: spread(times.fold),
          reference: spread(times.reference),
          loose: spread(times.loose),
          inline: spread(times.inline),
        },
        ratios: {
          reference: ratio(times.reference, times.fold),
          loose: ratio(times.loose, times.fold),
          inline: ratio(times.inline, times.fold),
        },
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
