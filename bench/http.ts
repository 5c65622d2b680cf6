/**
 * Over HTTP: a folded against an unfolded 10 MB call through the demo server (Streamable HTTP, a real MCP
 * client, 2026-07-28 era, bearer token demo-alice). Two bench-only tools, registered here through the demo's
 * `extraTools` hook, return the same usual MCP answer (text repeating structuredContent): one folds, one
 * does not (20 items of 3 fields are read back: the demo's 4096-byte threshold caps a slice). Measures time to result
 * on the client and response bytes on the wire, interleaved.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { startDemoServer } from "../playground/server/demo-server.js";
import { ticketsOf } from "./answers.js";
import { interleaved, spread, type Spread } from "./timing.js";

export interface HttpResult {
  answerBytes: number;
  rounds: number;
  /** ms from callTool to its parsed result. */
  times: { whole: Spread; folded: Spread; foldedThenQuery: Spread };
  /** Response body bytes the client received for one call (the query adds its own answer). */
  wireBytes: { whole: number; folded: number; foldedThenQuery: number };
}

const FOLDED = "bench_tickets_folded";
const WHOLE = "bench_tickets_whole";

export async function overHttp(bytes: number, rounds: number): Promise<HttpResult> {
  const answer = ticketsOf(bytes);
  const text = JSON.stringify(answer);
  const result = () => ({ content: [{ type: "text" as const, text }], structuredContent: answer });
  const demo = await startDemoServer({
    port: 0,
    logger: { warn: (message) => console.error(`[demo] ${message.slice(0, 200)}`), info: () => {} },
    extraTools: {
      folded: [FOLDED],
      register(server) {
        server.registerTool(FOLDED, { description: "10 MB of tickets (bench)" }, async () => result());
        server.registerTool(WHOLE, { description: "10 MB of tickets (bench), never folded" }, async () => result());
      },
    },
  });
  let received = 0;
  // Counts response body bytes as they arrive; the SDK reads the same stream.
  const countingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    if (!response.body) return response;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        received += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(counter), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  const client = new Client(
    { name: "result-handles-bench", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(demo.url), {
        requestInit: { headers: { Authorization: "Bearer demo-alice" } },
        fetch: countingFetch,
      }),
    );
    const wireBytes = { whole: 0, folded: 0, foldedThenQuery: 0 };
    const counted = (name: keyof typeof wireBytes, call: () => Promise<void>) => async () => {
      const before = received;
      await call();
      wireBytes[name] = received - before;
    };
    const callFolded = async () => {
      const folded = await client.callTool({ name: FOLDED, arguments: {} });
      const handle = (folded.structuredContent as { handle?: string } | undefined)?.handle;
      if (!handle) throw new Error("the bench tool's answer did not fold over HTTP");
      return handle;
    };
    const times = await interleaved(rounds, {
      whole: counted("whole", async () => {
        const whole = await client.callTool({ name: WHOLE, arguments: {} });
        if ((whole.structuredContent as { total?: number } | undefined)?.total !== answer.total)
          throw new Error("the unfolded answer did not arrive whole");
      }),
      folded: counted("folded", async () => void (await callFolded())),
      foldedThenQuery: counted("foldedThenQuery", async () => {
        const handle = await callFolded();
        const slice = await client.callTool({
          name: "result_query",
          arguments: {
            handle,
            path: "$.rows",
            offset: Math.floor(answer.rows.length / 2),
            limit: 20,
            fields: ["id", "title", "status"],
          },
        });
        if (slice.isError)
          throw new Error(`result_query failed over HTTP: ${JSON.stringify(slice.content).slice(0, 300)}`);
      }),
    });
    return {
      answerBytes: text.length,
      rounds,
      times: {
        whole: spread(times.whole),
        folded: spread(times.folded),
        foldedThenQuery: spread(times.foldedThenQuery),
      },
      wireBytes,
    };
  } finally {
    await client.close();
    await demo.close();
  }
}
