/**
 * docs/bench.svg: three panels (fold / stringify, first result_query / parse, repeated query / parse) by
 * answer size, one line per runtime, store and answer form, on a log scale, with the goals as red
 * marks. Plain generated SVG.
 */
import type { HttpResult } from "./http.js";
import type { CaseResult } from "./measure.js";
import { headline } from "./report.js";
import type { Ratio } from "./timing.js";

const SIZES = ["100 KB", "1 MB", "10 MB", "50 MB"];
const PANEL = { width: 330, height: 260, left: 46, top: 66, gap: 34 };
const Y_MIN = 0.0002;
const Y_MAX = 30;
const TICKS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20];
const COLORS = ["#1f77b4", "#6baed6", "#2ca02c", "#9467bd", "#ff7f0e", "#fdae6b", "#8c564b", "#c49c94", "#17becf"];

interface Panel {
  title: string;
  pick: (r: CaseResult) => Ratio | undefined;
  /** `dy` moves the label off the line, so two goals at one size stay readable. */
  goals: { size: string; limit: number; label: string; dy: number }[];
}

const PANELS: Panel[] = [
  {
    title: "fold / JSON.stringify",
    pick: (r) => r.ratios.fold,
    goals: [
      { size: "100 KB", limit: 4, label: "≤4", dy: -5 },
      { size: "10 MB", limit: 1.3, label: "Node ≤1.3", dy: 12 },
      { size: "10 MB", limit: 1.5, label: "page ≤1.5", dy: -5 },
    ],
  },
  {
    title: "first result_query (20 items) / JSON.parse",
    pick: (r) => r.ratios.firstQuery,
    goals: [
      { size: "100 KB", limit: 2, label: "≤2", dy: -5 },
      { size: "10 MB", limit: 0.2, label: "≤0.2", dy: 12 },
    ],
  },
  {
    title: "repeated result_query / JSON.parse",
    pick: (r) => r.ratios.repeatQuery,
    goals: [{ size: "10 MB", limit: 0.02, label: "≤0.02", dy: 12 }],
  },
];

const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const formName = (form: string) =>
  ({ structured: "structuredContent", text: "text+structured", pretty: "pretty text" })[form] ?? form;

export function drawChart(cases: readonly CaseResult[], context: { caption: string; http?: HttpResult }): string {
  const rows = cases.filter((r) => r.part === "sizes" && r.form !== "pretty");
  const seriesNames = [...new Set(rows.map((r) => `${r.runtime} ${r.store} ${formName(r.form)}`))];
  const color = (name: string) => COLORS[seriesNames.indexOf(name) % COLORS.length]!;
  const width = PANEL.left + PANELS.length * (PANEL.width + PANEL.gap);
  const legendTop = PANEL.top + PANEL.height + 44;
  const height = legendTop + Math.ceil(seriesNames.length / 3) * 18 + (context.http ? 40 : 16);
  const y = (value: number) => {
    const clamped = Math.min(Y_MAX, Math.max(Y_MIN, value));
    return PANEL.top + PANEL.height * (1 - (Math.log(clamped) - Math.log(Y_MIN)) / (Math.log(Y_MAX) - Math.log(Y_MIN)));
  };
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
      `viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${PANEL.left}" y="18" font-size="14" font-weight="bold">mcp-result-handles: cost against one ` +
      `JSON.stringify / JSON.parse of the same answer (median of per-round ratios, log scale)</text>`,
    `<text x="${PANEL.left}" y="36" fill="#555">${escape(context.caption)}</text>`,
  ];
  PANELS.forEach((panel, index) => {
    const left = PANEL.left + index * (PANEL.width + PANEL.gap);
    const xOf = (size: string) => left + ((SIZES.indexOf(size) + 0.5) * PANEL.width) / SIZES.length;
    out.push(`<g><text x="${left}" y="${PANEL.top - 6}" font-weight="bold">${escape(panel.title)}</text>`);
    out.push(
      `<rect x="${left}" y="${PANEL.top}" width="${PANEL.width}" height="${PANEL.height}" fill="none" stroke="#999"/>`,
    );
    for (const tick of TICKS) {
      out.push(
        `<line x1="${left}" x2="${left + PANEL.width}" y1="${y(tick).toFixed(1)}" ` +
          `y2="${y(tick).toFixed(1)}" stroke="${tick === 1 ? "#888" : "#e4e4e4"}"/>`,
      );
      out.push(`<text x="${left - 4}" y="${(y(tick) + 4).toFixed(1)}" text-anchor="end" fill="#555">${tick}×</text>`);
    }
    for (const size of SIZES)
      out.push(
        `<text x="${xOf(size).toFixed(1)}" y="${PANEL.top + PANEL.height + 15}" text-anchor="middle">${size}</text>`,
      );
    for (const goal of panel.goals) {
      const gy = y(goal.limit).toFixed(1);
      const gx = xOf(goal.size);
      out.push(
        `<line x1="${(gx - 26).toFixed(1)}" x2="${(gx + 26).toFixed(1)}" y1="${gy}" ` +
          `y2="${gy}" stroke="#d62728" stroke-width="2" stroke-dasharray="4 2"/>`,
      );
      out.push(
        `<text x="${(gx - 26).toFixed(1)}" y="${(Number(gy) + goal.dy).toFixed(1)}" ` +
          `fill="#d62728" font-weight="bold">${escape(goal.label)}</text>`,
      );
    }
    for (const name of seriesNames) {
      const points = SIZES.flatMap((size) => {
        const row = rows.find((r) => r.answer === size && `${r.runtime} ${r.store} ${formName(r.form)}` === name);
        const value = row ? headline(panel.pick(row)) : undefined;
        return value === undefined ? [] : [[xOf(size), y(value)] as const];
      });
      if (!points.length) continue;
      out.push(
        `<polyline fill="none" stroke="${color(name)}" stroke-width="1.8" ` +
          `points="${points.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(" ")}"/>`,
      );
      for (const [px, py] of points)
        out.push(`<circle cx="${px.toFixed(1)}" cy="${py.toFixed(1)}" r="3" fill="${color(name)}"/>`);
    }
    out.push(`</g>`);
  });
  seriesNames.forEach((name, index) => {
    const lx = PANEL.left + (index % 3) * 300;
    const ly = legendTop + Math.floor(index / 3) * 18;
    out.push(
      `<line x1="${lx}" x2="${lx + 22}" y1="${ly - 4}" y2="${ly - 4}" stroke="${color(name)}" stroke-width="2.5"/>`,
    );
    out.push(`<text x="${lx + 28}" y="${ly}">${escape(name)}</text>`);
  });
  out.push(`<text x="${PANEL.left + 900}" y="${legendTop}" fill="#d62728">red: goal</text>`);
  if (context.http) {
    const h = context.http;
    const mb = (bytes: number) => `${(bytes / 1e6).toFixed(bytes < 1e5 ? 3 : 1)} MB`;
    const text =
      `Over HTTP (demo server, ${mb(h.answerBytes)} answer, text + structuredContent): unfolded ` +
      `${h.times.whole.median.toFixed(0)} ms, ${mb(h.wireBytes.whole)} on the wire; ` +
      `folded ${h.times.folded.median.toFixed(0)} ms, ${mb(h.wireBytes.folded)}; folded + one result_query ` +
      `${h.times.foldedThenQuery.median.toFixed(0)} ms, ${mb(h.wireBytes.foldedThenQuery)}`;
    out.push(`<text x="${PANEL.left}" y="${height - 12}">${escape(text)}</text>`);
  }
  out.push(`</svg>`);
  return `${out.join("\n")}\n`;
}
