/**
 * An oracle of our own for `result_query`'s answers (S7.3 to S7.6, S14.2, S14.4): what a call must answer,
 * worked out from the answer's plain value by json-p3's own evaluation (its `jsonpath.query`, not our
 * wrapping of it) and plain code, never by src's query code. `checkAnswer` throws an assertion naming the
 * first difference in what the oracle knows: a nodelist's nodes, paths, `total`, `offset` and `nextOffset`;
 * a singular path's value or window of items, members or characters; a search's hits (path, line, key),
 * `total` and page; that a refused page is over the limit or a refused singular path selects nothing. Texts
 * (notes, refusals' words, a hit's cut text) are left to the tests that compare them.
 */
import { isDeepStrictEqual } from "node:util";
import { jsonpath, type JSONPathQuery } from "json-p3";
import { DEFAULT_LIMITS } from "../../src/defaults.js";

type Step = string | number;
type Args = {
  path?: string;
  offset?: number;
  limit?: number;
  page?: number;
  fields?: string[] | string;
  search?: string;
};
type Hit = { path: string; text: string; line?: number; key?: boolean };
type Answer = { path: string; value: unknown; total?: number; offset?: number; nextOffset?: number; paths?: string[] };

/** S7.5's canonical path, from the steps: `.name` for identifiers, `['name']` with JSON escapes otherwise, `[n]`. */
export function canonicalPath(steps: readonly Step[]): string {
  return (
    "$" +
    steps
      .map((step) => {
        if (typeof step === "number") return `[${step}]`;
        if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(step)) return `.${step}`;
        return `['${JSON.stringify(step).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}']`;
      })
      .join("")
  );
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const hasOwn = (object: object, key: string) => Object.prototype.hasOwnProperty.call(object, key);
const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** `fields` applied to one node (S7.4): its listed members, in the order first listed; anything else as it is. */
/** `fields` as a list: a comma-separated string is split (S18.4). */
const fieldList = (fields: Args["fields"]) =>
  typeof fields === "string"
    ? fields
        .split(",")
        .map((field) => field.trim())
        .filter(Boolean)
    : fields;

function picker(fields: Args["fields"]): (value: unknown) => unknown {
  const list = fieldList(fields);
  if (!list || list.length === 0) return (value) => value;
  const wanted = [...new Set(list)];
  return (value) => {
    if (!isObject(value)) return value;
    const out: Record<string, unknown> = {};
    for (const field of wanted) if (hasOwn(value, field) && value[field] !== undefined) out[field] = value[field];
    return out;
  };
}

function windowOf(args: Args, defaultLimit: number) {
  const limit = args.limit ?? defaultLimit;
  return { offset: args.page !== undefined ? (args.page - 1) * limit : (args.offset ?? 0), limit };
}

/** S14.5: `fields` that name no key of any object on the page (a refusal, RESULT_PATH_NOT_FOUND). */
function namesNothing(args: Args, page: unknown[]): boolean {
  const list = fieldList(args.fields);
  if (!list || list.length === 0) return false;
  return !page.some((item) => isObject(item) && list.some((field) => hasOwn(item, field)));
}

/** The nodes json-p3 selects for an RFC 9535 query: values and steps, in the RFC's order. */
function nodesOf(value: unknown, compiled: JSONPathQuery) {
  // Lazily: the eager query spreads a segment's nodes into one call's arguments, past the stack on wide objects.
  const nodes = compiled.lazyQuery(value as never);
  return Array.from(nodes, (node) => ({ value: node.value as unknown, steps: node.location as Step[] }));
}

function fail(args: Args, what: string, got: unknown, want: unknown): never {
  const cut = (value: unknown) => JSON.stringify(value)?.slice(0, 300);
  throw new Error(`oracle: ${JSON.stringify(args)}: ${what}: got ${cut(got)}, the oracle says ${cut(want)}`);
}
function same(args: Args, what: string, got: unknown, want: unknown): void {
  if (!isDeepStrictEqual(got, want)) fail(args, what, got, want);
}

/** A page's `offset`/`nextOffset` (S7.5): `offset` the first index returned, `nextOffset` only when more remains. */
function paging(args: Args, answer: Answer, offset: number, count: number, total: number): void {
  same(args, "total", answer.total, total);
  same(args, "offset", answer.offset, Math.min(offset, total));
  const end = Math.min(offset, total) + count;
  same(args, "nextOffset", answer.nextOffset, end < total ? end : undefined);
}

/**
 * Checks `answer` (a result, or a refusal `{ code, message }`) for `args` over `value` against the oracle;
 * returns false when the oracle has nothing to say (a path that is not RFC 9535 JSONPath, `$` aside).
 */
export function checkAnswer(value: unknown, args: Args, answer: unknown, thresholdBytes: number): boolean {
  const path = args.path ?? "$";
  if (!path.startsWith("$")) return false;
  let compiled;
  try {
    compiled = jsonpath.compile(path);
  } catch {
    return false; // not RFC 9535 (refused, or one of S7.2's own `$` forms): the tests' own expectations judge it
  }
  const nodes = nodesOf(value, compiled);
  const pick = picker(args.fields);
  const refusal = isObject(answer) && typeof answer.code === "string" ? (answer as { code: string }) : undefined;

  if (args.search !== undefined) return checkSearch(value, args, nodes, compiled.singularQuery(), answer, refusal);

  if (!compiled.singularQuery()) {
    // a nodelist (S14.2)
    const { offset, limit } = windowOf(args, DEFAULT_LIMITS.nodes);
    const page = nodes.slice(offset, offset + limit);
    if (refusal) {
      if (refusal.code === "RESULT_SLICE_TOO_LARGE") {
        const bytes = size(page.map((node) => pick(node.value)));
        if (bytes <= thresholdBytes) fail(args, "refused as too large", refusal, `a page of ${bytes} bytes`);
        return true;
      }
      if (
        refusal.code === "RESULT_PATH_NOT_FOUND" &&
        !namesNothing(
          args,
          page.map((node) => node.value),
        )
      ) {
        fail(args, "refused as not found", refusal, `${nodes.length} nodes`);
      }
      return true;
    }
    const result = answer as Answer;
    same(
      args,
      "values",
      result.value,
      page.map((node) => pick(node.value)),
    );
    same(
      args,
      "paths",
      result.paths,
      page.map((node) => canonicalPath(node.steps)),
    );
    paging(args, result, offset, page.length, nodes.length);
    return true;
  }

  // A singular query (S14.2 → S7.3 to S7.5): one value, windowed.
  if (nodes.length === 0) {
    if (refusal?.code !== "RESULT_PATH_NOT_FOUND")
      fail(args, "a path that selects nothing", answer, "RESULT_PATH_NOT_FOUND");
    return true;
  }
  const [node] = nodes;
  const target = node!.value;
  let page: unknown;
  let count: number;
  let total: number;
  let offset: number;
  let read: unknown[]; // the nodes `fields` looked at (S14.5)
  if (Array.isArray(target)) {
    const window = windowOf(args, DEFAULT_LIMITS.items);
    offset = window.offset;
    read = target.slice(offset, offset + window.limit);
    const items = read.map(pick);
    [page, count, total] = [items, items.length, target.length];
  } else if (isObject(target)) {
    const window = windowOf(args, DEFAULT_LIMITS.keys);
    offset = window.offset;
    read = [target];
    const source = pick(target) as Record<string, unknown>;
    const members = Object.keys(source).slice(offset, offset + window.limit);
    page = Object.fromEntries(members.map((key) => [key, source[key]]));
    [count, total] = [members.length, Object.keys(source).length];
  } else if (typeof target === "string") {
    if (refusal) return true; // a window of characters: its surrogate-pair edges are the tests' to check
    const result = answer as Answer;
    const window = windowOf(args, DEFAULT_LIMITS.chars);
    same(args, "path", result.path, canonicalPath(node!.steps));
    same(args, "total", result.total, target.length);
    // S7.3 moves a window's edge by one character rather than split a surrogate pair.
    const start = result.offset ?? 0;
    const text = result.value as string;
    if (Math.abs(start - Math.min(window.offset, target.length)) > 1) fail(args, "offset", start, window.offset);
    same(args, "characters", text, target.slice(start, start + text.length));
    const wanted = Math.min(window.limit, target.length - window.offset);
    if (text.length < wanted - 1) fail(args, "characters returned", text.length, wanted);
    return true;
  } else {
    if (refusal) fail(args, "a scalar refused", refusal, target);
    same(args, "value", (answer as Answer).value, target);
    return true;
  }
  if (refusal) {
    if (refusal.code === "RESULT_PATH_NOT_FOUND" && !namesNothing(args, read))
      fail(args, "refused as not found", refusal, "a value");
    if (refusal.code === "RESULT_SLICE_TOO_LARGE" && size(page) <= thresholdBytes) {
      fail(args, "refused as too large", refusal, `a page of ${size(page)} bytes`);
    }
    return true; // other refusals (the cost limit and the like): the tests judge them
  }
  const result = answer as Answer;
  same(args, "path", result.path, canonicalPath(node!.steps));
  same(args, "value", result.value, page);
  paging(args, result, offset, count, total);
  return true;
}

/** S21.6 as the design states it, character by character: lower case, upper-cased, lower-cased again; ı as it is. */
const foldChar = (char: string) => (char === "ı" ? char : char.toLowerCase().toUpperCase().toLowerCase());
const folded = (text: string) =>
  /^[\x00-\x7f]*$/.test(text) ? text.toLowerCase() : Array.from(text, foldChar).join("");

/**
 * S14.4 by plain code: under each start node in turn, depth first, every key (before its member's value),
 * string, number and boolean whose text contains the needle under case folding (S21.6); a string of several
 * lines gives one hit per matching line, numbered from 1.
 * A place is searched once, however many start nodes hold it.
 */
function checkSearch(
  root: unknown,
  args: Args,
  nodes: { value: unknown; steps: Step[] }[],
  singular: boolean,
  answer: unknown,
  refusal: { code: string } | undefined,
): boolean {
  if (singular && nodes.length === 0) {
    if (refusal?.code !== "RESULT_PATH_NOT_FOUND")
      fail(args, "a search under nothing", answer, "RESULT_PATH_NOT_FOUND");
    return true;
  }
  const needle = folded(args.search!);
  const { offset, limit } = windowOf(args, DEFAULT_LIMITS.items);
  // Every hit is counted; only the page's are kept, their paths written from the steps then.
  const page: { path: string; line?: number; key?: boolean }[] = [];
  let total = 0;
  const steps: Step[] = [];
  const hit = (extra: { line?: number; key?: boolean } = {}) => {
    if (total >= offset && total < offset + limit) page.push({ path: canonicalPath(steps), ...extra });
    total++;
  };
  const has = (text: string) => folded(text).includes(needle);
  // Overlapping start nodes (a nodelist): a place is searched once; containers told by identity, leaves by
  // their parent and key.
  const walked = new Set<object>();
  const leaves = new Map<object, Set<Step>>();
  const walk = (at: unknown) => {
    if (typeof at === "object" && at !== null) {
      if (walked.has(at)) return;
      walked.add(at);
    }
    if (Array.isArray(at)) {
      for (let index = 0; index < at.length; index++) {
        steps.push(index);
        walk(at[index]);
        steps.pop();
      }
    } else if (isObject(at)) {
      for (const key of Object.keys(at)) {
        if (at[key] === undefined) continue;
        steps.push(key);
        if (has(key)) hit({ key: true });
        walk(at[key]);
        steps.pop();
      }
    } else if (typeof at === "string") lines(at);
    else if (typeof at === "number" || typeof at === "boolean") {
      if (has(String(at))) hit();
    }
  };
  const lines = (text: string) => {
    if (!text.includes("\n")) return void (has(text) && hit());
    const whole = folded(text);
    if (whole.length !== text.length) {
      return text.split("\n").forEach((line, index) => has(line) && hit({ line: index + 1 }));
    }
    // One hit per line holding the needle, numbered from 1.
    let line = 1;
    let counted = 0;
    for (let at = whole.indexOf(needle); at >= 0;) {
      for (let nl = whole.indexOf("\n", counted); nl >= 0 && nl < at; nl = whole.indexOf("\n", nl + 1)) {
        line++;
        counted = nl + 1;
      }
      hit({ line });
      const next = whole.indexOf("\n", at);
      if (next < 0) break;
      at = whole.indexOf(needle, next + 1);
    }
  };
  for (const node of singular ? nodes.slice(0, 1) : nodes) {
    if (!singular && node.steps.length > 0 && (node.value === null || typeof node.value !== "object")) {
      // A leaf start node: searched once, and not when a container above it was walked already.
      const above: object[] = [];
      let at = root as Record<Step, unknown>;
      for (const step of node.steps.slice(0, -1)) (above.push(at), (at = at[step] as Record<Step, unknown>));
      const key = node.steps[node.steps.length - 1]!;
      if (walked.has(at) || above.some((container) => walked.has(container)) || leaves.get(at)?.has(key)) continue;
      leaves.set(at, (leaves.get(at) ?? new Set()).add(key));
    }
    steps.push(...node.steps);
    walk(node.value);
    steps.length = 0;
  }
  if (refusal) {
    // Too large: the hits' cut texts decide, the tests judge it; but an empty page is never too large.
    if (refusal.code === "RESULT_SLICE_TOO_LARGE" && page.length === 0)
      fail(args, "refused as too large", refusal, "no hit");
    if (refusal.code === "RESULT_PATH_NOT_FOUND") fail(args, "refused as not found", refusal, `${nodes.length} nodes`);
    return true; // other refusals (fields beside search, the cost limit): the tests judge them
  }
  const result = answer as Answer & { value: Hit[] };
  const got = result.value.map(({ path, line, key }) => ({
    path,
    ...(line === undefined ? {} : { line }),
    ...(key ? { key } : {}),
  }));
  same(args, "hits", got, page);
  for (const one of result.value)
    if (!has(one.text)) fail(args, "a hit's text", one.text, `a text holding ${args.search}`);
  paging(args, result, offset, page.length, total);
  return true;
}
