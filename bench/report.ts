/** Printing the bench's rows as they finish, and checking the headline ratios against the goals. */
import type { ClusterPartResult } from "./cluster.js";
import type { HttpResult } from "./http.js";
import type { CaseResult } from "./measure.js";
import { QUERIES, type QueryName, type QueryPartResult } from "./query.js";
import type { ReferencePartResult } from "./reference.js";
import type { RoundTripResult } from "./stores.js";
import type { Ratio, Spread } from "./timing.js";

const ms = (t: number | undefined): string =>
  t === undefined ? "-" : t < 1 ? t.toFixed(3) : t < 100 ? t.toFixed(2) : t.toFixed(0);
const cell = (s: Spread | undefined, width = 21): string =>
  (s ? `${ms(s.median)} (${ms(s.p25)}-${ms(s.p75)})` : "-").padStart(width);
/** The headline ratio: the median of each round's own ratio. */
export const headline = (r: Ratio | undefined): number | undefined => r?.perRound.median;
const x = (r: Ratio | undefined, width = 9): string => {
  const value = headline(r);
  return (value === undefined ? "-" : value < 0.1 ? value.toFixed(3) : value.toFixed(2)).padStart(width);
};

export function printCaseHeader(): void {
  console.log(
    `${"runtime".padEnd(8)} ${"store".padEnd(6)} ${"form".padEnd(10)} ${"answer".padEnd(18)} ` +
      `${"bytes".padStart(9)} | ${"stringify".padStart(21)} ${"fold".padStart(21)} ${"fold/str".padStart(9)} ` +
      `| ${"parse".padStart(21)} ${"1st query".padStart(21)} ${"1st/parse".padStart(9)} ` +
      `${"repeat".padStart(21)} ${"rep/parse".padStart(9)} | folded bytes`,
  );
}

export function printCase(r: CaseResult): void {
  const unfolded = r.unfolded ? `, ${r.unfolded} rounds NOT folded` : "";
  console.log(
    `${r.runtime.padEnd(8)} ${r.store.padEnd(6)} ${r.form.padEnd(10)} ${r.answer.padEnd(18)} ` +
      `${String(r.bytes).padStart(9)} | ${cell(r.times.stringify)} ${cell(r.times.fold)} ${x(r.ratios.fold)} ` +
      `| ${cell(r.times.parse)} ${cell(r.times.firstQuery)} ${x(r.ratios.firstQuery)} ` +
      `${cell(r.times.repeatQuery)} ${x(r.ratios.repeatQuery)} | ${r.foldedBytes ?? "not folded"}${unfolded}`,
  );
}

export function printRoundTripHeader(): void {
  console.log(
    `${"store".padEnd(8)} ${"size".padEnd(6)} | ${"stringify".padStart(21)} ${"save".padStart(21)} ` +
      `${"save/str".padStart(9)} | ${"parse".padStart(21)} ${"read".padStart(21)} ${"read/parse".padStart(10)}`,
  );
}

export function printRoundTrip(r: RoundTripResult): void {
  console.log(
    `${r.store.padEnd(8)} ${r.size.padEnd(6)} | ${cell(r.times.stringify)} ${cell(r.times.save)} ` +
      `${x(r.ratios.save)} | ${cell(r.times.parse)} ${cell(r.times.read)} ${x(r.ratios.read, 10)}`,
  );
}

export function printHttp(r: HttpResult): void {
  console.log(`call (${r.rounds} rounds)       | ${"time to result, ms".padStart(21)} | response bytes`);
  for (const name of ["whole", "folded", "foldedThenQuery"] as const) {
    const label = { whole: "unfolded", folded: "folded", foldedThenQuery: "folded + result_query" }[name];
    console.log(`${label.padEnd(22)} | ${cell(r.times[name])} | ${r.wireBytes[name]}`);
  }
}

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

export function printQueryHeader(): void {
  console.log(
    `${"runtime".padEnd(8)} ${"store".padEnd(6)} ${"query".padEnd(13)} | ` +
      `${"parse".padStart(21)} ${"query".padStart(21)} ${"/parse".padStart(9)} | selected | memory`,
  );
}

export function printQuery(r: QueryPartResult): void {
  for (const name of Object.keys(QUERIES) as QueryName[]) {
    const memory =
      name === "filter" && r.memory
        ? `peak ${mb(r.memory.filterPeakBytes)} beside the parsed answer's ${mb(r.memory.parsedBytes)}`
        : "";
    const workers =
      name === "numericFilter"
        ? `batch workers counted ${r.workerJobs} pieces in all`
        : name === "aggregate"
          ? `the same filter's nodes grouped: ${x(r.ratios.aggregate)} of a ` +
            `parse, the filter ${x(r.ratios.numericFilter)}`
          : "";
    const refused = r.refusals?.[name];
    const refusal = refused
      ? `${memory || workers ? "; " : ""}REFUSED in ${refused.rounds} rounds ` +
        `(${refused.code}: ${refused.message.slice(0, 160)}…)`
      : "";
    console.log(
      `${r.runtime.padEnd(8)} ${r.store.padEnd(6)} ${name.padEnd(13)} | ${cell(r.times.parse)} ` +
        `${cell(r.times[name])} ${x(r.ratios[name])} | ${String(r.totals[name] ?? "-").padStart(8)} | ` +
        `${memory}${workers}${refusal}`,
    );
  }
}

export function printReference(r: ReferencePartResult): void {
  console.log(
    `${"store".padEnd(6)} call       | ${"ms".padStart(21)} ${"/fold".padStart(9)} | request bytes | response bytes`,
  );
  for (const name of ["fold", "reference", "loose", "inline"] as const) {
    const vs = name === "fold" ? undefined : r.ratios[name];
    console.log(
      `${r.store.padEnd(6)} ${name.padEnd(10)} | ${cell(r.times[name])} ${x(vs)} | ` +
        `${String(r.requestBytes[name]).padStart(13)} | ${r.responseBytes[name]}`,
    );
  }
  console.log(`${r.store.padEnd(6)} ${"parse".padEnd(10)} | ${cell(r.times.parse)}`);
}

export function printCluster(r: ClusterPartResult): void {
  console.log(
    `${"".padEnd(14)} | ${"fold".padStart(21)} ${"/stringify".padStart(10)} | ` +
      `${"first read (20)".padStart(21)} ${"/parse".padStart(9)}`,
  );
  console.log(
    `${"stringify".padEnd(14)} | ${cell(r.times.stringify)} ${"".padStart(10)} | ${cell(r.times.parse)} (parse)`,
  );
  console.log(
    `${"one Redis".padEnd(14)} | ${cell(r.times.foldRedis)} ` +
      `${x(r.ratios.foldRedis, 10)} | ${cell(r.times.readRedis)} ${x(r.ratios.readRedis)}`,
  );
  console.log(
    `${"3-master".padEnd(14)} | ${cell(r.times.foldCluster)} ` +
      `${x(r.ratios.foldCluster, 10)} | ${cell(r.times.readCluster)} ${x(r.ratios.readCluster)}`,
  );
  console.log(`cluster fold / one Redis fold: ${x(r.ratios.clusterOverRedis, 0)} (median of per-round ratios)`);
}

export interface GoalCheck {
  goal: string;
  limit: number;
  /** Each measured case: its label and headline ratio. */
  measured: { case: string; ratio: number }[];
  /** True when every measured case is within the limit; null when nothing was measured. */
  met: boolean | null;
}

const label = (r: CaseResult): string =>
  `${r.runtime} ${r.store} ${FORM_LABELS[r.form]}${r.part === "shapes" ? ` ${r.answer}` : ""}`;
const FORM_LABELS: Record<CaseResult["form"], string> = {
  structured: "structuredContent",
  text: "text+structured",
  pretty: "pretty text+structured",
};

/** The bench's goals (docs/design.md, "What the bench holds the code to"), each against the cases it names. */
export function checkGoals(cases: readonly CaseResult[], queries: readonly QueryPartResult[] = []): GoalCheck[] {
  const sized = (answer: string) => cases.filter((r) => r.part === "sizes" && r.answer === answer);
  const goal = (
    text: string,
    limit: number,
    rows: readonly CaseResult[],
    pick: (r: CaseResult) => Ratio | undefined,
  ): GoalCheck => {
    const measured = rows.flatMap((r) => {
      const value = headline(pick(r));
      return value === undefined ? [] : [{ case: label(r), ratio: Number(value.toFixed(3)) }];
    });
    return { goal: text, limit, measured, met: measured.length ? measured.every((m) => m.ratio <= limit) : null };
  };
  const twoForms = (r: CaseResult) => r.store === "memory" && r.form !== "pretty";
  return [
    goal(
      "fold / stringify at 10 MB, Node (both answer forms)",
      1.3,
      sized("10 MB").filter((r) => r.runtime === "node" && twoForms(r)),
      (r) => r.ratios.fold,
    ),
    goal(
      "fold / stringify at 10 MB, Chromium (both answer forms)",
      1.5,
      sized("10 MB").filter((r) => r.runtime === "chromium" && twoForms(r)),
      (r) => r.ratios.fold,
    ),
    goal(
      "first result_query (20 items) / parse at 10 MB, every runtime and store",
      0.2,
      sized("10 MB").filter((r) => r.form === "structured"),
      (r) => r.ratios.firstQuery,
    ),
    goal(
      "repeated result_query / parse at 10 MB",
      0.02,
      sized("10 MB").filter((r) => r.form === "structured"),
      (r) => r.ratios.repeatQuery,
    ),
    goal("fold / stringify at 100 KB", 4, sized("100 KB").filter(twoForms), (r) => r.ratios.fold),
    goal(
      "first result_query / parse at 100 KB",
      2,
      sized("100 KB").filter((r) => r.form === "structured"),
      (r) => r.ratios.firstQuery,
    ),
    goal(
      "fold / stringify, any answer shape (S4.8)",
      3,
      cases.filter((r) => r.part === "shapes"),
      (r) => r.ratios.fold,
    ),
    queryGoal("filter / parse at 10 MB, fresh handle (goal 1.0)", 1.5, queries, [
      "filter",
      "ticketFilter",
      "numericFilter",
    ]),
    queryGoal("descendants / parse at 10 MB, fresh handle (goal 1.0)", 1.5, queries, ["descendants"]),
    queryGoal("search / parse at 10 MB, fresh handle (goal 1.0)", 1.5, queries, ["search", "broadSearch"]),
    queryGoal("singular JSONPath query / parse at 10 MB, fresh handle", 0.2, queries, ["singular"]),
    queryGoal("aggregate / parse at 10 MB, fresh handle (S24.3: ≤ its filter's)", 1.5, queries, ["aggregate"]),
  ];
}

function queryGoal(
  text: string,
  limit: number,
  rows: readonly QueryPartResult[],
  names: readonly QueryName[],
): GoalCheck {
  const measured = rows
    .filter((r) => r.bytes >= 10_000_000)
    .flatMap((r) =>
      names.map((name) => ({
        // a round refused times a refusal, not the query: said beside its ratio
        case:
          `${r.runtime} ${r.store} ${name}` +
          (r.refusals?.[name] ? ` (refused in ${r.refusals[name].rounds} rounds: ${r.refusals[name].code})` : ""),
        ratio: Number(headline(r.ratios[name])!.toFixed(3)),
      })),
    );
  return { goal: text, limit, measured, met: measured.length ? measured.every((m) => m.ratio <= limit) : null };
}

export function printGoals(goals: readonly GoalCheck[]): void {
  for (const g of goals) {
    const worst = g.measured.length ? Math.max(...g.measured.map((m) => m.ratio)) : undefined;
    const verdict = g.met === null ? "not measured" : g.met ? "met" : "NOT met";
    console.log(
      `${g.goal.padEnd(72)} ≤ ${String(g.limit).padEnd(5)} worst ` +
        `${worst === undefined ? "-" : worst.toFixed(3).padStart(6)}  ${verdict}`,
    );
    for (const m of g.measured) console.log(`    ${m.case.padEnd(60)} ${m.ratio.toFixed(3)}`);
  }
}

/** The goals as a Markdown table, for the Performance page, docs/performance.md (printed by `--redraw`). */
export function goalsMarkdown(goals: readonly GoalCheck[]): string {
  const lines = ["| Goal | Limit | Measured (median of per-round ratios) | Met |", "| --- | --- | --- | --- |"];
  for (const g of goals) {
    const measured =
      g.measured.map((m) => `${m.case}: ${m.ratio < 0.1 ? m.ratio.toFixed(3) : m.ratio.toFixed(2)}`).join("; ") ||
      "not measured";
    lines.push(`| ${g.goal} | ≤ ${g.limit}× | ${measured} | ${g.met === null ? "–" : g.met ? "yes" : "**no**"} |`);
  }
  return lines.join("\n");
}
