import { ResultQueryError } from "../../errors.js";
import { hasOwn, isPlainObject } from "../../util/json.js";
import { quoteArgument } from "../../util/quote-argument.js";
import { formatPath, type PathSegment } from "../canonical-path.js";
import { pathNotFound } from "../refusals/refusals.js";
import { PiecedObject } from "../../records/read/pieced-object.js";

export { formatPath };

/**
 * One parser for every path form of S7.2:
 * - `$`, `""`: the whole answer;
 * - `$.rows[2].title`, `$['rows'][2]["title"]`: names, quoted names (JSON escapes), indexes (`[-1]` from the end);
 * - `rows.2.title`: dot path, where a number indexes a list or names a key;
 * - `/rows/2/title`: JSON Pointer (RFC 6901).
 */
export type { PathSegment } from "../canonical-path.js";

export function parsePath(path: string): PathSegment[] {
  if (path === "" || path === "$") return [];
  if (path.startsWith("/")) return parsePointer(path);
  return parseDotted(path);
}

function parsePointer(path: string): PathSegment[] {
  return path
    .slice(1)
    .split("/")
    .map((raw) => {
      if (/~(?![01])/.test(raw)) throw pathError(path, "a JSON Pointer escapes only ~0 and ~1");
      return { kind: "token", token: raw.replace(/~1/g, "/").replace(/~0/g, "~") };
    });
}

function parseDotted(path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  let i = 0;
  if (path[0] === "$") i = 1;
  else if (path[0] !== "[") segments.push(readToken()); // a bare dot path starts with a name
  while (i < path.length) {
    if (path[i] === ".") {
      i++;
      segments.push(readToken());
    } else if (path[i] === "[") {
      segments.push(readBracket());
    } else {
      throw pathError(path, `unexpected "${path[i]}" at ${i}`);
    }
  }
  return segments;

  function readToken(): PathSegment {
    const start = i;
    while (i < path.length && path[i] !== "." && path[i] !== "[") i++;
    if (i === start) throw pathError(path, `empty name at ${start}`);
    return { kind: "token", token: path.slice(start, i) };
  }

  function readBracket(): PathSegment {
    const quote = path[i + 1];
    if (quote === "'" || quote === '"') {
      let j = i + 2;
      let body = "";
      while (j < path.length && path[j] !== quote) {
        if (path[j] === "\\") {
          body += path[j + 1] === "'" ? "'" : path.slice(j, j + 2);
          j += 2;
        } else {
          body += path[j] === '"' ? '\\"' : path[j];
          j++;
        }
      }
      if (path[j] !== quote || path[j + 1] !== "]") throw pathError(path, `unclosed quoted name at ${i}`);
      let name: string;
      try {
        name = JSON.parse(`"${body}"`) as string;
      } catch {
        throw pathError(path, `bad escape in quoted name at ${i}`);
      }
      i = j + 2;
      return { kind: "name", name };
    }
    const close = path.indexOf("]", i);
    const digits = close < 0 ? "" : path.slice(i + 1, close);
    if (!/^-?(0|[1-9]\d*)$/.test(digits)) throw pathError(path, `expected [number] or ['name'] at ${i}`);
    i = close + 1;
    return { kind: "index", index: Number(digits) };
  }
}

export interface Resolved {
  value: unknown;
  /** Keys and positive list indexes from the root to the value. */
  steps: (string | number)[];
}

/**
 * Follows the segments (the query plan's) through own properties only; anything else names nothing, and `path` is
 * quoted then.
 */
export function resolveSegments(root: unknown, segments: readonly PathSegment[], path: string): Resolved {
  let value = root;
  const steps: (string | number)[] = [];
  for (const segment of segments) {
    const step = stepInto(value, segment);
    if (step === undefined) throw pathNotFound(path, { value, steps, segment }); // names what is there (S14.5)
    value = Array.isArray(value)
      ? value[step as number]
      : value instanceof PiecedObject
        ? value.get(step as string)
        : (value as Record<string, unknown>)[step as string];
    steps.push(step);
  }
  return { value, steps };
}

/**
 * The value the segments name in `root`, as `resolveSegments` follows them, or undefined when they name nothing (no
 * refusal is built: a query from the root inside a filter then selects no node, S26.1).
 */
export function valueAtSegments(root: unknown, segments: readonly PathSegment[]): { value: unknown } | undefined {
  let value = root;
  for (const segment of segments) {
    const step = stepInto(value, segment);
    if (step === undefined) return undefined;
    value = Array.isArray(value)
      ? value[step as number]
      : value instanceof PiecedObject
        ? value.get(step as string)
        : (value as Record<string, unknown>)[step as string];
  }
  return { value };
}

function stepInto(value: unknown, segment: PathSegment): string | number | undefined {
  if (Array.isArray(value)) return listIndex(segment, value.length);
  if (value instanceof PiecedObject) {
    // A wide object read in part (S16.4): the batches that may hold the key were read.
    const key = objectKey(segment);
    return key !== undefined && value.hasKey(key) ? key : undefined;
  }
  if (isPlainObject(value)) {
    const key = objectKey(segment);
    return key !== undefined && hasOwn(value, key) && value[key] !== undefined ? key : undefined;
  }
  return undefined;
}

/** The list index a segment names in a list of `length` items, when in range. */
export function listIndex(segment: PathSegment, length: number): number | undefined {
  let index: number | undefined;
  if (segment.kind === "index") index = segment.index < 0 ? length + segment.index : segment.index;
  else if (segment.kind === "token" && /^(0|[1-9]\d*)$/.test(segment.token)) index = Number(segment.token);
  return index !== undefined && index >= 0 && index < length ? index : undefined;
}

/** The object key a segment names. */
export function objectKey(segment: PathSegment): string | undefined {
  if (segment.kind === "name") return segment.name;
  if (segment.kind === "token") return segment.token;
  return segment.index >= 0 && !segment.strict ? String(segment.index) : undefined;
}

function pathError(path: string, detail: string): ResultQueryError {
  return new ResultQueryError(
    "RESULT_PATH_NOT_FOUND",
    `Path ${quoteArgument(path)} names nothing in this answer (${detail}). ` +
      `Use a path present in the shape, such as $.rows[0].title, rows.0.title or /rows/0/title; ` +
      `"$" is the whole answer.`,
  );
}
