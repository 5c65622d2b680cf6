/**
 * S24.4's oracle: what an aggregate must answer, worked out in plain code of its own over json-p3's nodes
 * of the parsed answer (never the package's query code), and seeded random answers to hold it to: lists
 * nested in lists, members missing or of mixed types (numbers, numeric strings, booleans, null, objects,
 * lists), unicode keys and values.
 */
import { jsonpath } from "json-p3";

export interface Spec {
  count?: true;
  sum?: string;
  min?: string;
  max?: string;
  avg?: string;
  distinct?: string;
  by?: string;
}

/** A member as S24.1 reads it: a plain name is one key; `@.a.b[0]` steps names and indexes. */
function steps(member: string): (string | number)[] {
  if (!member.startsWith("@")) return [member];
  const out: (string | number)[] = [];
  const re = /\.([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)|\['((?:[^'\\]|\\.)*)'\]|\[(-?\d+)\]/gy;
  re.lastIndex = 1;
  let m: RegExpExecArray | null;
  while ((m = re.exec(member)))
    out.push(m[1] ?? (m[2] !== undefined ? JSON.parse(`"${m[2].replace(/\\'/g, "'")}"`) : Number(m[3])));
  return out;
}

function read(value: unknown, member: string): { has: boolean; value?: unknown } {
  let at = value;
  for (const step of steps(member)) {
    if (typeof step === "string") {
      if (at === null || typeof at !== "object" || Array.isArray(at) || !Object.prototype.hasOwnProperty.call(at, step))
        return { has: false };
      at = (at as Record<string, unknown>)[step];
    } else {
      if (!Array.isArray(at)) return { has: false };
      const i = step < 0 ? at.length + step : step;
      if (i < 0 || i >= at.length) return { has: false };
      at = at[i];
    }
  }
  return { has: true, value: at };
}

/** JSON with sorted keys, written here by hand. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort();
    const members = keys.map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`);
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value);
}

/** S7.5's canonical path, written here by hand. */
function pathOf(location: readonly (string | number)[]): string {
  return (
    "$" +
    location
      .map((step) =>
        typeof step === "number"
          ? `[${step}]`
          : /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(step)
            ? `.${step}`
            : `['${JSON.stringify(step).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}']`,
      )
      .join("")
  );
}

function order(key: unknown): number {
  if (key === null) return 0;
  if (typeof key === "boolean") return 1;
  if (typeof key === "number") return 2;
  if (typeof key === "string") return 3;
  return Array.isArray(key) ? 4 : 5;
}

function compareKeys(a: unknown, b: unknown): number {
  const d = order(a) - order(b);
  if (d !== 0) return d;
  if (typeof a === "boolean" || typeof a === "number") return Number(a) - Number(b);
  const [x, y] = typeof a === "string" ? [a, b as string] : [canonical(a), canonical(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

interface Acc {
  key: unknown;
  count: number;
  nums: Map<string, number[]>;
  examples: string[];
}

/** The answer S24.1 describes for `spec` over the nodes `path` selects, paged by offset/limit/page (default 20). */
export function oracleAggregate(
  answer: unknown,
  path: string,
  spec: Spec,
  paging: { offset?: number; limit?: number; page?: number } = {},
): Record<string, unknown> {
  const nodes = [...jsonpath.query(path, answer as never)].map((node) => ({
    value: node.value as unknown,
    path: pathOf(node.location as (string | number)[]),
  }));
  const figureMembers = [
    ...new Set([spec.sum, spec.min, spec.max, spec.avg].filter((m): m is string => m !== undefined)),
  ];
  const group = spec.by ?? spec.distinct;
  const accs = new Map<string, Acc>();
  for (const node of nodes) {
    const key = group === undefined ? null : read(node.value, group).has ? read(node.value, group).value : null;
    const text = group === undefined ? "" : canonical(key);
    let acc = accs.get(text);
    if (!acc) accs.set(text, (acc = { key, count: 0, nums: new Map(figureMembers.map((m) => [m, []])), examples: [] }));
    acc.count++;
    for (const member of figureMembers) {
      const got = read(node.value, member);
      if (got.has && typeof got.value === "number") acc.nums.get(member)!.push(got.value);
    }
    if (acc.examples.length < 3) acc.examples.push(node.path);
  }
  const figures = (acc: Acc) => {
    const out: Record<string, unknown> = { count: acc.count };
    if (figureMembers.length === 0) return out;
    const of = (m: string) => acc.nums.get(m)!;
    if (spec.sum !== undefined) out.sum = of(spec.sum).reduce((a, b) => a + b, 0);
    if (spec.min !== undefined) out.min = of(spec.min).length ? Math.min(...of(spec.min)) : null;
    if (spec.max !== undefined) out.max = of(spec.max).length ? Math.max(...of(spec.max)) : null;
    if (spec.avg !== undefined)
      out.avg = of(spec.avg).length ? of(spec.avg).reduce((a, b) => a + b, 0) / of(spec.avg).length : null;
    out.skipped = Object.fromEntries(figureMembers.map((m) => [m, acc.count - of(m).length]));
    return out;
  };
  const resultPath = path;
  if (group === undefined) {
    const acc = accs.get("") ?? { key: null, count: 0, nums: new Map(figureMembers.map((m) => [m, []])), examples: [] };
    return { path: resultPath, value: figures(acc), total: nodes.length };
  }
  const sorted = [...accs.values()].sort((a, b) => b.count - a.count || compareKeys(a.key, b.key));
  const limit = paging.limit ?? 20;
  const offset = paging.page !== undefined ? (paging.page - 1) * limit : (paging.offset ?? 0);
  const page = sorted
    .slice(offset, offset + limit)
    .map((acc) => ({ key: acc.key, ...figures(acc), examples: acc.examples }));
  const out: Record<string, unknown> = {
    path: resultPath,
    groups: page,
    total: nodes.length,
    groupCount: sorted.length,
  };
  if (offset + limit < sorted.length) out.nextOffset = offset + limit;
  return out;
}

/** A seeded generator (mulberry32). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const OWNERS = ["ana", "bo", "Çağrı", "δέλτα", "李", "🐙", "ana "];
const STATUSES = ["open", "closed", "pending", "Open"];

/** One item: members missing at random, of mixed types now and then, a unicode key, a nested member and a list. */
function item(random: () => number, id: number): Record<string, unknown> {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const row: Record<string, unknown> = { id };
  if (random() < 0.9) row.owner = random() < 0.85 ? pick(OWNERS) : pick([1, "1", true, null, { n: 1 }, [1, 2]]);
  if (random() < 0.9) row.status = pick(STATUSES);
  if (random() < 0.85)
    row.priority = random() < 0.8 ? 1 + Math.floor(random() * 5) : pick(["3", true, null, 2.5, -0.125, { p: 1 }]);
  if (random() < 0.7) row.amount = Math.round(random() * 1e6) / 100;
  if (random() < 0.6) row["país"] = pick(["ES", "PT", "日本", 1]);
  if (random() < 0.6)
    row.customer = random() < 0.9 ? { country: pick(["DE", "FR", "NO"]), name: `c${id % 7}` } : "none";
  if (random() < 0.5) row.tags = Array.from({ length: Math.floor(random() * 3) }, () => pick(["x", "y", 3]));
  if (random() < 0.3) row.meta = { b: pick([1, 2]), a: pick(["u", "v"]) }; // objects equal whatever their key order
  return row;
}

/** A random answer: a list of rows, teams with rows of their own, and a few things that are not rows. */
export function randomAnswer(seed: number, rows: number): Record<string, unknown> {
  const random = seeded(seed);
  let id = 0;
  const list = Array.from({ length: rows }, () => item(random, id++));
  const teams = Array.from({ length: 3 + Math.floor(random() * 4) }, (_, t) => ({
    name: `team ${t}`,
    rows: Array.from({ length: Math.floor(random() * 40) }, () => item(random, id++)),
  }));
  return { rows: list, teams, ключи: { note: "not rows", owner: "nobody" }, total: rows };
}

export const PATHS = [
  "$.rows[*]",
  "$.rows[?@.status == 'open']",
  "$.rows[?@.status == 'open' && @.priority == 1]",
  "$.rows[?@.priority > 2]",
  "$.rows[5:300:3]",
  "$.teams[*].rows[*]",
  "$..rows[?@.owner]",
  "$..customer",
  "$.rows[*].tags[*]",
  "$.rows[?@.status == 'none']",
];

export const SPECS: Spec[] = [
  { count: true },
  { by: "owner" },
  { by: "@.owner", sum: "priority", avg: "priority" },
  { by: "status", min: "amount", max: "amount", avg: "amount" },
  { by: "@.customer.country", count: true, sum: "amount" },
  { by: "país", avg: "priority", max: "@.tags[0]" },
  { by: "meta" },
  { by: "@.tags[-1]" },
  { distinct: "priority" },
  { distinct: "@['país']" },
  { sum: "amount", min: "priority", max: "priority", avg: "amount" },
  { by: "priorty" }, // no node has it
  { by: "country" },
];

/** Two answers equal, figures compared to 1e-9 relatively (sums taken in another order differ in the last bits). */
export function closeTo(actual: unknown, expected: unknown, at = "$"): string | undefined {
  if (typeof expected === "number" && typeof actual === "number") {
    return Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected))
      ? undefined
      : `${at}: ${actual} ≠ ${expected}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length)
      return `${at}: ${JSON.stringify(actual)?.slice(0, 200)} ≠ ${JSON.stringify(expected).slice(0, 200)}`;
    for (let i = 0; i < expected.length; i++) {
      const d = closeTo(actual[i], expected[i], `${at}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return `${at}: not an object`;
    const a = Object.keys(actual).sort();
    const e = Object.keys(expected).sort();
    if (canonical(a) !== canonical(e)) return `${at}: keys ${a.join(",")} ≠ ${e.join(",")}`;
    for (const key of e) {
      const d = closeTo(
        (actual as Record<string, unknown>)[key],
        (expected as Record<string, unknown>)[key],
        `${at}.${key}`,
      );
      if (d) return d;
    }
    return undefined;
  }
  return Object.is(actual, expected) || actual === expected
    ? undefined
    : `${at}: ${JSON.stringify(actual)} ≠ ${JSON.stringify(expected)}`;
}
