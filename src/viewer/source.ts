/**
 * Where the viewer reads an answer (S19.2, S19.3): a folded answer through the app-only `result_view`
 * tool, page by page, on the person's own connection; an answer that did not fold from the tool result
 * itself, sliced the same way here.
 */
import { pathOf, valueAt, type Key } from "./paths.js";

export interface ReadArgs {
  path: string;
  keys?: readonly Key[];
  offset?: number;
  limit?: number;
  search?: string;
  /** Counts and figures over the nodes `path` selects (S24.1). */
  aggregate?: { by?: string; sum?: string; min?: string; max?: string; avg?: string };
}

/** One group of an aggregate (S24.1): its key, count, figures and the paths of its first nodes. */
export interface Group {
  key: unknown;
  count: number;
  sum?: number;
  min?: number | null;
  max?: number | null;
  avg?: number | null;
  examples: string[];
}

/** A `result_query` answer (S7.5, S14.2, S14.4, S24.1). */
export interface Slice {
  path: string;
  value?: unknown;
  groups?: Group[];
  groupCount?: number;
  paths?: string[];
  total?: number;
  offset?: number;
  nextOffset?: number;
  note?: string;
}

export class ReadError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Source {
  readonly handle?: string;
  read(args: ReadArgs): Promise<Slice>;
}

type CallTool = (
  name: string,
  args: Record<string, unknown>,
) => Promise<{ isError?: boolean; structuredContent?: unknown; content?: unknown }>;

export function foldedSource(handle: string, call: CallTool): Source {
  return {
    handle,
    async read({ keys: _keys, ...args }) {
      const result = await call("result_view", { handle, ...args });
      const structured = result.structuredContent as { error?: { code: string; message: string } } | undefined;
      if (result.isError) {
        const text = (result.content as { text?: string }[] | undefined)?.[0]?.text ?? "The read failed.";
        const code = structured?.error?.code ?? /^([A-Z_]+):/.exec(text)?.[1] ?? "ERROR";
        throw new ReadError(code, structured?.error?.message ?? text);
      }
      return structured as Slice;
    },
  };
}

/** Reads of an answer that is here whole: singular paths and search only (a filter needs the server's JSONPath). */
export function localSource(answer: unknown): Source {
  return {
    async read({ path, keys, offset = 0, limit = 100, search }) {
      if (!keys)
        throw new ReadError(
          "INVALID_INPUT",
          "This answer was sent whole: filters and counts run on folded answers only. Search works here.",
        );
      const value = valueAt(answer, keys);
      if (value === undefined) throw new ReadError("RESULT_PATH_NOT_FOUND", `Nothing is at ${path}.`);
      if (search !== undefined) return page(path, searchLocal(value, keys, search.toLowerCase()), offset, limit);
      if (typeof value === "string") return page(path, value, offset, limit);
      if (Array.isArray(value)) return page(path, value, offset, limit);
      if (value !== null && typeof value === "object") {
        const entries = Object.entries(value).slice(offset, offset + limit);
        const total = Object.keys(value).length;
        return {
          path,
          value: Object.fromEntries(entries),
          total,
          offset,
          ...(offset + limit < total ? { nextOffset: offset + limit } : {}),
        };
      }
      return { path, value };
    },
  };
}

function page(path: string, value: string | unknown[], offset: number, limit: number): Slice {
  const total = value.length;
  const end = Math.min(total, offset + limit);
  return { path, value: value.slice(offset, end), total, offset, ...(end < total ? { nextOffset: end } : {}) };
}

/** Every string, number, boolean or key containing the text, one hit per matching line (S14.4), without recursion. */
function searchLocal(
  root: unknown,
  rootKeys: readonly Key[],
  needle: string,
): { path: string; text: string; line?: number }[] {
  const hits: { path: string; text: string; line?: number }[] = [];
  const stack: [unknown, Key[]][] = [[root, [...rootKeys]]];
  while (stack.length > 0 && hits.length < 10_000) {
    const [value, keys] = stack.pop()!;
    if (value !== null && typeof value === "object") {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        const childKeys = [...keys, Array.isArray(value) ? Number(key) : key];
        stack.push([child, childKeys]);
        if (!Array.isArray(value) && key.toLowerCase().includes(needle))
          hits.push({ path: pathOf(childKeys), text: key });
      }
    } else if (value !== null && value !== undefined) {
      const text = String(value);
      const lines = text.split("\n");
      lines.forEach((line, at) => {
        if (line.toLowerCase().includes(needle))
          hits.push({ path: pathOf(keys), text: line.slice(0, 400), ...(lines.length > 1 ? { line: at + 1 } : {}) });
      });
    }
  }
  return hits;
}
