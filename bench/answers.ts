/**
 * The answers the bench folds: ticket rows of a given size, the awkward shapes of S4.8, the MCP answer forms.
 * Runtime-neutral.
 */
import { deepList, deepObject, mixedRows, wideObject, wideRows } from "./shapes.js";

const ticket = (i: number) => ({
  id: `T-${i}`,
  title: `Ticket ${i}: printer on floor ${i % 12} jams on duplex`,
  status: ["open", "pending", "closed"][i % 3],
  priority: i % 5,
  assignee: { id: i % 97, name: `Agent ${i % 97}` },
  tags: ["hardware", "printer", i % 2 ? "urgent" : "routine"],
  createdAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
});

/** `{ rows, total }` of tickets, about `bytes` long as JSON. */
export function ticketsOf(bytes: number): { rows: ReturnType<typeof ticket>[]; total: number } {
  const rows = [];
  let size = 12;
  for (let i = 0; size < bytes; i++) {
    const row = ticket(i);
    rows.push(row);
    size += JSON.stringify(row).length + 1;
  }
  return { rows, total: rows.length };
}

/** S4.8's shapes, each a few MB (bench/shapes.ts). */
export const SHAPES = {
  "object 3000 deep": () => deepObject(3000, 400),
  "list 3000 deep": () => deepList(3000, 400),
  "object of 48k keys": () => wideObject(48_000),
  "rows of 60 keys": () => wideRows(2000),
  "mixed rows": () => mixedRows(20_000),
} as const;
export type ShapeName = keyof typeof SHAPES;

/**
 * The MCP answer forms: `structured` (structuredContent only), `text` (a text block repeating it, the usual
 * MCP answer) and `pretty` (the text pretty-printed). The text is made once, as the tool would have.
 */
export const FORMS = ["structured", "text", "pretty"] as const;
export type FormName = (typeof FORMS)[number];

export function answerIn(
  form: FormName,
  value: unknown,
): { content?: { type: "text"; text: string }[]; structuredContent: Record<string, unknown> } {
  const structuredContent = value as Record<string, unknown>;
  if (form === "structured") return { structuredContent };
  const text = form === "text" ? JSON.stringify(value) : JSON.stringify(value, null, 2);
  return { content: [{ type: "text", text }], structuredContent };
}
