/**
 * Tools that take data, for the reference tests (S15): each counts its runs, so a test can tell that a
 * refused reference ran nothing. `rows(n)` is the answer a `report` tool folds.
 */
import type { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

export const rows = (n = 300) => ({ rows: Array.from({ length: n }, (_, i) => ({ id: i, title: `Row number ${i}` })) });

export interface ToolRuns {
  count: number;
  title: number;
  echo: number;
  depth: number;
}

export const noRuns = (): ToolRuns => ({ count: 0, title: 0, echo: 0, depth: 0 });

const json = (value: unknown) => ({
  content: [{ type: "text" as const, text: JSON.stringify(value) }],
  structuredContent: value as Record<string, unknown>,
});

/**
 * `report` (folds), `count_items` (a list of `{ id }`), `title_of` (a string), `echo_shape` (anything: says what it
 * got).
 */
export function registerReferenceTools(server: McpServer, runs: ToolRuns, report: () => unknown = () => rows()): void {
  server.registerTool("report", { description: "rows" }, async () => json(report()));
  server.registerTool(
    "count_items",
    {
      description: "Counts items",
      inputSchema: z.object({
        items: z.array(z.object({ id: z.number() }).passthrough()),
        label: z.string().optional(),
      }),
    },
    async ({ items, label }) => {
      runs.count++;
      return json({ count: items.length, idSum: items.reduce((sum, item) => sum + item.id, 0), label: label ?? null });
    },
  );
  server.registerTool(
    "title_of",
    { description: "Upper-cases a title", inputSchema: z.object({ title: z.string() }) },
    async ({ title }) => {
      runs.title++;
      return json({ title: title.toUpperCase() });
    },
  );
  server.registerTool(
    "echo_shape",
    { description: "Says what it got", inputSchema: z.object({ data: z.unknown() }) },
    async ({ data }) => {
      runs.echo++;
      return json({ got: describe(data) });
    },
  );
  server.registerTool(
    "depth_of",
    { description: "How deep the lists go, and what is at the bottom", inputSchema: z.object({ data: z.unknown() }) },
    async ({ data }) => {
      runs.depth++;
      let depth = 0;
      let node = data;
      while (Array.isArray(node) && node.length === 1) {
        node = node[0];
        depth++;
      }
      return json({ depth, bottom: describe(node) });
    },
  );
}

/** A short, deterministic description of a value: enough to tell the tool received the real data. */
export function describe(value: unknown): unknown {
  if (Array.isArray(value)) return { list: value.length, first: describe(value[0]) };
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value);
    return {
      keys,
      ...(keys.length <= 3
        ? Object.fromEntries(keys.map((key) => [key, describe((value as Record<string, unknown>)[key])]))
        : {}),
    };
  }
  return value;
}
