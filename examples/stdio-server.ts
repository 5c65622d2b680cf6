/**
 * A complete MCP server on stdio whose large answers fold. Run: npx tsx stdio-server.ts
 * (an MCP client such as a desktop app starts it as a command). stdout carries the protocol,
 * so logs go to stderr.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { ResultHandlesPlugin, foldedAnswerSchema } from "mcp-result-handles";
import { z } from "zod";

const ticket = z.object({ id: z.string(), title: z.string() });

const server = new McpServer({ name: "tickets", version: "1.0.0" });

// Answers over 4 KB fold; this stdio connection counts as one session, so they fold for its client.
ResultHandlesPlugin.init({ thresholdBytes: 4096 }).install(server, {
  logger: { warn: (message) => console.error(message) },
});

server.registerTool(
  "tickets",
  {
    description: "Every open ticket",
    // A tool with an output schema folds only if the schema also admits { preview, shape, handle }.
    outputSchema: z.union([z.object({ rows: z.array(ticket) }), foldedAnswerSchema]),
  },
  async () => {
    const answer = { rows: Array.from({ length: 200 }, (_, i) => ({ id: `T-${i}`, title: `Ticket ${i}` })) };
    return { content: [{ type: "text", text: JSON.stringify(answer) }], structuredContent: answer };
  },
);

await server.connect(new StdioServerTransport());
