/**
 * `match()` and `search()` of RFC 9535 (2.4.6, 2.4.7): I-Regexp (RFC 9485) on re2js, a linear-time RE2
 * port (S14.3). json-p3's own functions use a backtracking `RegExp`: `(a+)+b` over 28 `a`s took seconds.
 * Linear is not free: a run costs up to the text's length × the program's instructions (`.{1000}` thirty
 * times over 80 KB held the thread 21 s). So a program over STATIC_LIMITS.regexInstructions is refused
 * (S21.2), each run charges that product to the call's meter before it starts (S21.1), one run that
 * would cost more than STATIC_LIMITS.regexRunUnits is refused rather than hold the thread (S21.4), and
 * compiled programs are kept by their size within PATTERN_CACHE_BYTES (S21.3).
 */
import { FunctionExpressionType, jsonpath } from "json-p3";
import { RE2JS } from "re2js";
import { COST_WEIGHTS, PATTERN_CACHE_BYTES, STATIC_LIMITS } from "../../defaults.js";
import { ResultQueryError } from "../../errors.js";
import { cutForMessage, quoteArgument } from "../../util/quote-argument.js";
import { charge } from "../cost.js";

/** json-p3's own I-Regexp check, reached without running its backtracking RegExp (see isIRegexp). */
const checker = new jsonpath.functions.Match({ cacheSize: 0, throwErrors: true, iRegexpCheck: true });

/**
 * Whether `pattern` is a valid I-Regexp. json-p3's checker runs first and throws `IRegexpError` when the
 * pattern is not one; a valid one is then compiled and tested against a Symbol, which throws TypeError
 * before any matching, so no backtracking ever runs.
 */
function isIRegexp(pattern: string): boolean {
  try {
    checker.call(Symbol("never matched") as unknown as string, pattern);
    return true; // not reached: testing a Symbol throws
  } catch (error) {
    return error instanceof TypeError;
  }
}

/**
 * I-Regexp as RE2 syntax: `.` is any character but line feed and carriage return (RFC 9485 5.3). `^` and
 * `$` stay anchors of the whole text (RE2 without multi-line mode), as the compliance suite expects.
 */
function toRe2(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === "\\") {
      out += ch + (pattern[i + 1] ?? "");
      i++;
    } else if (inClass) {
      if (ch === "]") inClass = false;
      out += ch;
    } else if (ch === "[") {
      inClass = true;
      out += ch;
      if (pattern[i + 1] === "^") ((out += "^"), i++);
    } else out += ch === "." ? "[^\\n\\r]" : ch;
  }
  return out;
}

/**
 * A compiled pattern and its program's instructions; null when it is no I-Regexp or RE2 refuses it; no
 * `re` when its estimated program is over the static limit, so it was never compiled (a 4 KB pattern of
 * repeats compiled in 0.3 s to 35 MB).
 */
type Compiled = { re?: RE2JS; instructions: number } | null;

/**
 * About how many instructions RE2 compiles `pattern` to, from its text (I-Regexp: atoms, classes,
 * groups, `|`, and the quantifiers `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`): an atom is one, a counted
 * repeat multiplies what it repeats. Read in one pass before compiling, so a pattern too large costs
 * nothing but this.
 */
function estimatedInstructions(pattern: string): number {
  const frames: { total: number; last: number }[] = [{ total: 0, last: 0 }];
  const cap = (n: number) => Math.min(n, 1e12);
  for (let i = 0; i < pattern.length; i++) {
    const frame = frames[frames.length - 1]!;
    const ch = pattern[i]!;
    const atom = () => {
      frame.total = cap(frame.total + frame.last);
      frame.last = 1;
    };
    if (ch === "\\") {
      if ((pattern[i + 1] === "p" || pattern[i + 1] === "P") && pattern[i + 2] === "{")
        i = Math.max(i + 1, pattern.indexOf("}", i));
      else i++;
      atom();
    } else if (ch === "[") {
      for (i++; i < pattern.length && pattern[i] !== "]"; i++) if (pattern[i] === "\\") i++;
      atom();
    } else if (ch === "(") frames.push({ total: 0, last: 0 });
    else if (ch === ")" && frames.length > 1) {
      frames.pop();
      const parent = frames[frames.length - 1]!;
      parent.total = cap(parent.total + parent.last);
      parent.last = cap(frame.total + frame.last + 1);
    } else if (ch === "|") {
      frame.total = cap(frame.total + frame.last + 1);
      frame.last = 0;
    } else if (ch === "*" || ch === "+" || ch === "?") frame.last = cap(frame.last + 1);
    else if (ch === "{") {
      const end = pattern.indexOf("}", i);
      const [low, high] = pattern.slice(i + 1, end < 0 ? i + 1 : end).split(",");
      const times = Math.max(Number(low) || 0, Number(high) || 0, 1);
      frame.last = cap(frame.last * times + 1);
      if (end > i) i = end;
    } else atom();
  }
  let total = 0;
  for (const frame of frames) total = cap(total + frame.total + frame.last);
  return total + 2;
}

/** Bytes a kept program holds, about: measured 80 per instruction after a run, plus the pattern's text. */
const BYTES_PER_INSTRUCTION = 100;
const sizeOf = (pattern: string, compiled: Compiled) =>
  2 * pattern.length + 64 + (compiled ? compiled.instructions * BYTES_PER_INSTRUCTION : 0);

/** Compiled patterns, least recently used first, and the bytes they hold (S21.3). */
const kept = new Map<string, Compiled>();
let keptBytes = 0;

/** The instructions of a compiled re2js program (its internal `prog`; 0 when another version hides it). */
function instructionsOf(re: RE2JS): number {
  const prog = (re as unknown as { re2Input?: { prog?: { inst?: unknown[] } } }).re2Input?.prog;
  return Array.isArray(prog?.inst) ? prog.inst.length : 0;
}

/** The compiled pattern (see Compiled), from the cache when kept. */
function regex(pattern: string): Compiled {
  const known = kept.get(pattern);
  if (known !== undefined) {
    kept.delete(pattern); // most recently used last
    kept.set(pattern, known);
    return known;
  }
  let compiled: Compiled = null;
  const estimate = estimatedInstructions(pattern);
  if (estimate > STATIC_LIMITS.regexInstructions) compiled = isIRegexp(pattern) ? { instructions: estimate } : null;
  else if (isIRegexp(pattern)) {
    try {
      const re = RE2JS.compile(toRe2(pattern));
      compiled = { re, instructions: instructionsOf(re) };
    } catch {
      compiled = null;
    }
  }
  const bytes = sizeOf(pattern, compiled);
  // refused by the caller, never kept
  if (compiled && compiled.instructions > STATIC_LIMITS.regexInstructions) return compiled;
  if (bytes > PATTERN_CACHE_BYTES) return compiled;
  while (keptBytes + bytes > PATTERN_CACHE_BYTES && kept.size > 0) {
    const [oldest, value] = kept.entries().next().value!;
    kept.delete(oldest);
    keptBytes -= sizeOf(oldest, value);
  }
  kept.set(pattern, compiled);
  keptBytes += bytes;
  return compiled;
}

/**
 * S25.1: I-Regexp has no flags, so `(?i)printer` is no pattern and would match nothing, read as "no
 * printer". A pattern written in the query with a flag group is refused, naming the forms that work.
 */
function refuseFlags(pattern: string, path: string): void {
  const flags = /\(\?([a-zA-Z]+)[):]/.exec(pattern);
  if (!flags || isIRegexp(pattern)) return; // `[(?i)]` is a class of four characters, and valid
  const rest = pattern.replace(flags[0], flags[0].endsWith(":") ? "(" : "");
  const word = /[A-Za-z]/.exec(rest);
  const example = word ? rest.replace(word[0], `[${word[0].toUpperCase()}${word[0].toLowerCase()}]`) : rest;
  throw new ResultQueryError(
    "INVALID_INPUT",
    `The pattern ${quoteArgument(cutForMessage(pattern))} in ${quoteArgument(path)} ` +
      `has the flag group ${quoteArgument(flags[0])}, which I-Regexp (RFC 9485) does not have: ` +
      `it would match nothing. Write the cases out, as in ${quoteArgument(cutForMessage(example))}, ` +
      `or use result_query's search argument, which finds text in any case.`,
  );
}

/**
 * Refuses `pattern` when its compiled program is over the static limit (S21.2), or has flags (S25.1); `path` names the
 * query.
 */
export function checkPattern(pattern: string, path?: string): void {
  if (path !== undefined) refuseFlags(pattern, path);
  const compiled = regex(pattern);
  if (compiled && compiled.instructions > STATIC_LIMITS.regexInstructions) {
    throw new ResultQueryError(
      "INVALID_INPUT",
      `The pattern ${quoteArgument(cutForMessage(pattern))}${path ? ` in ${quoteArgument(path)}` : ""} ` +
        `compiles to ${compiled.instructions} instructions, ` +
        `over the ${STATIC_LIMITS.regexInstructions} a pattern may have (S21.2): ` +
        `use fewer or smaller repeats, such as .{0,100} instead of .{1000}.`,
    );
  }
}

/** `match` (whole string) and `search` (any substring): LogicalFalse for a non-string or an invalid pattern. */
export function regexFunction(whole: boolean) {
  return {
    argTypes: [FunctionExpressionType.ValueType, FunctionExpressionType.ValueType],
    returnType: FunctionExpressionType.LogicalType,
    call(text: unknown, pattern: unknown): boolean {
      if (typeof text !== "string" || typeof pattern !== "string") return false;
      checkPattern(pattern); // a pattern read from the answer (`match(@.a, @.p)`) meets the same limit
      const compiled = regex(pattern);
      if (!compiled?.re) return false; // not an I-Regexp (too large ones were refused just above)
      // and about a microsecond a run, whatever its text
      const work = text.length * Math.max(1, compiled.instructions) + 200;
      charge("regex", work); // before the run: past the call's limit it never starts (S21.1)
      if (work * COST_WEIGHTS.regex > STATIC_LIMITS.regexRunUnits) {
        throw new ResultQueryError(
          "INVALID_INPUT",
          `One ${whole ? "match" : "search"}() of ${quoteArgument(cutForMessage(pattern))} ` +
            `over a text of ${text.length} characters would take ${work} character × instruction steps at once, ` +
            `over the ${STATIC_LIMITS.regexRunUnits / COST_WEIGHTS.regex} one run may (S21.4): ` +
            `use a simpler pattern, or match a shorter field.`,
        );
      }
      return whole ? compiled.re.matches(text) : compiled.re.test(text);
    },
  };
}
