/**
 * Draws docs/flow.svg, the picture of the flow in the README and the docs, from a real run: a real SDK server with the
 * plugin and a real client linked in memory fold the 200-ticket answer and read a slice back; every
 * byte count in the picture is measured here. Run: npm run docs:flow [output.svg]
 */
import { writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { RESULT_HANDLE_META_KEY, ResultHandlesPlugin, foldedAnswerSchema } from "mcp-result-handles";

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).byteLength;
const fmt = (n: number) => `${n.toLocaleString("en-US")} B`;
type Result = { structuredContent?: Record<string, unknown>; content?: unknown[]; _meta?: Record<string, unknown> };

const THRESHOLD = 4096;
const ticket = z.object({ id: z.string(), title: z.string() });
const server = new McpServer({ name: "flow", version: "1.0.0" });
const plugin = ResultHandlesPlugin.init({ thresholdBytes: THRESHOLD, storage: { type: "memory" } }).install(server);
server.registerTool(
  "tickets",
  {
    description: "Every open ticket",
    outputSchema: z.union([z.object({ rows: z.array(ticket) }), foldedAnswerSchema]),
  },
  async () => {
    const answer = { rows: Array.from({ length: 200 }, (_, i) => ({ id: `T-${i}`, title: `Ticket ${i}` })) };
    return { content: [{ type: "text", text: JSON.stringify(answer) }], structuredContent: answer };
  },
);
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
serverSide.sessionId = "flow-session"; // one client, one session: answers fold for it
await server.connect(serverSide);
const client = new Client({ name: "flow", version: "1.0.0" });
await client.connect(clientSide);

const folded = (await client.callTool({ name: "tickets", arguments: {} })) as Result;
const meta = folded._meta?.[RESULT_HANDLE_META_KEY] as { handle: string; bytes: number; ttlSeconds: number };
const { preview, shape, handle } = folded.structuredContent as { preview: unknown; shape: unknown; handle: string };
const query = { handle, path: "$.rows", offset: 40, limit: 3, fields: ["title"] };
const slice = (await client.callTool({ name: "result_query", arguments: query })) as Result;
await client.close();
await plugin.onShutdown();

const figures = {
  answer: meta.bytes,
  folded: bytes(folded.structuredContent),
  preview: bytes(preview),
  shape: bytes(shape),
  handle: bytes(handle),
  slice: bytes(slice.structuredContent),
};

// Layout: five boxes left to right, arrows between them, one caption line under each.
const boxes = [
  { title: "Tool answer", lines: ["200 tickets", `${fmt(figures.answer)} of JSON`], fill: "#fde2e2" },
  {
    title: "fold",
    lines: [`over ${fmt(THRESHOLD)}:`, "kept in the store,", `encrypted, ${meta.ttlSeconds} s`],
    fill: "#eeeeee",
  },
  {
    title: "Sent to the model",
    lines: [
      `preview ${fmt(figures.preview)}`,
      `shape ${fmt(figures.shape)}`,
      `handle ${fmt(figures.handle)}`,
      `= ${fmt(figures.folded)}`,
    ],
    fill: "#e2f0fd",
  },
  { title: "result_query", lines: ['path "$.rows"', "offset 40, limit 3", 'fields ["title"]'], fill: "#eeeeee" },
  { title: "Slice", lines: ["3 titles", `${fmt(figures.slice)}`], fill: "#e2fde6" },
];
const W = 190;
const GAP = 36;
const H = 150;
const TOP = 40;
const width = boxes.length * W + (boxes.length - 1) * GAP + 20;
const esc = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const parts: string[] = [];
boxes.forEach((box, i) => {
  const x = 10 + i * (W + GAP);
  parts.push(`<rect x="${x}" y="${TOP}" width="${W}" height="${H}" rx="10" fill="${box.fill}" stroke="#555"/>`);
  parts.push(`<text x="${x + W / 2}" y="${TOP + 28}" class="title">${esc(box.title)}</text>`);
  box.lines.forEach((line, j) => parts.push(`<text x="${x + W / 2}" y="${TOP + 56 + j * 22}">${esc(line)}</text>`));
  if (i < boxes.length - 1) {
    const ax = x + W + 4;
    parts.push(
      `<path d="M${ax} ${TOP + H / 2} h${GAP - 14}" stroke="#333" stroke-width="2" marker-end="url(#arrow)"/>`,
    );
  }
});
const ratio = (figures.answer / figures.folded).toFixed(1);
const svg = [
  `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${TOP + H + 50}" ` +
    `viewBox="0 0 ${width} ${TOP + H + 50}" font-family="Helvetica, Arial, sans-serif" font-size="14">`,
  `<style>text { text-anchor: middle; fill: #222; } .title { font-weight: bold; font-size: 16px; } ` +
    `.note { font-size: 13px; fill: #444; }</style>`,
  `<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto">` +
    `<path d="M0 0 L10 5 L0 10 z" fill="#333"/></marker></defs>`,
  `<rect width="100%" height="100%" fill="#ffffff"/>`,
  `<text x="${width / 2}" y="24" class="title">mcp-result-handles: one real run (thresholdBytes ${THRESHOLD})</text>`,
  ...parts,
  `<text x="${width / 2}" y="${TOP + H + 32}" class="note">The model reads ${fmt(figures.folded)} instead of ` +
    `${fmt(figures.answer)} (${ratio}× less), then only the ${fmt(figures.slice)} slice it asks for. ` +
    `Sizes are UTF-8 JSON of structuredContent.</text>`,
  `</svg>`,
  ``,
].join("\n");
// An output path as argument lets a test redraw the picture and compare it with the committed one.
writeFileSync(process.argv[2] ?? new URL("../docs/flow.svg", import.meta.url), svg);
console.log(JSON.stringify(figures));
