/**
 * The demo's tools (S11.2), shared by the Node demo server and the in-page playground. Each registers
 * on an MCP SDK v2 `McpServer`; which plugin instance folds which tool is decided where they are installed.
 */
import type { McpServer } from "@modelcontextprotocol/server";
import { foldedAnswerSchema } from "mcp-result-handles";
import { z } from "zod";

const ticket = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(["open", "closed", "pending"]),
  priority: z.number().int().min(1).max(5),
  owner: z.string(),
});
const reportSchema = z.object({ rows: z.array(ticket) });

/**
 * Titles of several words: some about a printer, some about a timeout, as the docs' examples search (S18.7); at most 20
 * characters, so a ticket's line fits the playground's narrow panels.
 */
const TITLES = [
  "Printer jams daily",
  "Login page hangs",
  "VPN drops hourly",
  "Payment API timeout",
  "Printer driver gone",
  "Reset mail missing",
  "Mail sync timeout",
] as const;
const TICKET_STATUSES = ["open", "closed", "pending"] as const;
const OWNERS = ["ana", "ben", "chen", "dana"] as const;

/**
 * The reference example grown to the docs' examples (S18.7): 200 tickets `{ id, title, status, priority,
 * owner }`, about 20 KB, over the reports instance's 4096-byte threshold. Cycles of 7 titles, 3 statuses,
 * 5 priorities and 4 owners, so each filter of the docs selects a mix.
 */
export function reportRows(): z.infer<typeof reportSchema> {
  return {
    rows: Array.from({ length: 200 }, (_, i) => ({
      id: `T-${i}`,
      title: TITLES[i % TITLES.length]!,
      status: TICKET_STATUSES[i % TICKET_STATUSES.length]!,
      priority: ((i * 2) % 5) + 1,
      owner: OWNERS[i % OWNERS.length]!,
    })),
  };
}

export function registerReport(server: McpServer): void {
  server.registerTool(
    "report",
    {
      title: "Tickets",
      description:
        "Every ticket of the helpdesk: id, title, status (open, closed, pending), priority (1 to 5) and owner",
      outputSchema: z.union([reportSchema, foldedAnswerSchema]),
    },
    async () => {
      const report = reportRows();
      return { content: [{ type: "text", text: JSON.stringify(report) }], structuredContent: report };
    },
  );
}

/**
 * A tool that takes a list, so a folded report can be passed to it by reference (S15.1): the model sends
 * `{ "tickets": { "$result": "<handle>", "path": "$.rows" } }` and the server puts the 200 tickets there.
 */
export function registerCountTickets(server: McpServer): void {
  server.registerTool(
    "count_tickets",
    {
      title: "Count tickets",
      description:
        "Counts the tickets it is given and names the first and last. Pass the list itself, or a " +
        'reference to a folded answer: { "$result": "<handle>", "path": "$.rows" }',
      // Any ticket with an id: those report returns, or ones the model writes itself.
      inputSchema: z.object({
        tickets: z
          .array(ticket.partial().required({ id: true }))
          .describe("The tickets, as report returns them in rows"),
      }),
    },
    async ({ tickets }) => {
      const answer = { count: tickets.length, first: tickets[0]?.id ?? null, last: tickets.at(-1)?.id ?? null };
      return { content: [{ type: "text", text: JSON.stringify(answer) }], structuredContent: answer };
    },
  );
}

const STATUSES = ["open", "shipped", "delivered", "returned"] as const;

/** `{ orders: [{ id, status }], total }`, ids 0, 1, 2…, statuses "open", "shipped", … (S6.4 over the wire). */
export function ordersAnswer(n: number) {
  return { orders: Array.from({ length: n }, (_, id) => ({ id, status: STATUSES[id % STATUSES.length]! })), total: n };
}

export function registerOrders(server: McpServer): void {
  server.registerTool(
    "orders",
    {
      description: "Exports orders with their status",
      inputSchema: z.object({ n: z.number().int().min(0).max(100_000).default(500).describe("How many orders") }),
    },
    async ({ n }) => {
      const answer = ordersAnswer(n);
      return { content: [{ type: "text", text: JSON.stringify(answer) }], structuredContent: answer };
    },
  );
}

/**
 * Levels of the log's lines, in a cycle of 8: of 3000 lines, 1875 INFO, 750 WARN, 375 ERROR (the docs' counts, S18.7).
 */
const LEVELS = ["INFO ", "INFO ", "WARN ", "INFO ", "INFO ", "ERROR", "WARN ", "INFO "] as const;

/** Plain, non-JSON text: every line at least 40 characters; an ERROR line tells of an upstream timeout. */
export function serverLogText(lines: number): string {
  const start = Date.UTC(2026, 10, 30, 9, 0, 0);
  return Array.from({ length: lines }, (_, i) => {
    const at = new Date(start + i * 1250).toISOString();
    const level = LEVELS[i % LEVELS.length]!;
    const what = level === "ERROR" ? `failed: upstream timeout after 30000 ms` : `served in ${(i * 7) % 90} ms`;
    return `${at} ${level} worker-${i % 4} request ${1000 + i} ${what}`;
  }).join("\n");
}

export function registerServerLog(server: McpServer): void {
  server.registerTool(
    "server_log",
    {
      description: "The server's recent log lines, as plain text",
      inputSchema: z.object({ lines: z.number().int().min(1).max(100_000).default(2000).describe("How many lines") }),
    },
    async ({ lines }) => ({ content: [{ type: "text", text: serverLogText(lines) }] }),
  );
}
