/**
 * `match()` and `search()` of RFC 9535 (2.4.6, 2.4.7): I-Regexp (RFC 9485) on re2js, a linear-time RE2
 * port (S14.3). json-p3's own functions use a backtracking `RegExp`: `(a+)+b` over 28 `a`s took seconds.
 */
import { FunctionExpressionType, jsonpath } from "json-p3";
import { RE2JS } from "re2js";

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
      if (pattern[i + 1] === "^") (out += "^"), i++;
    } else out += ch === "." ? "[^\\n\\r]" : ch;
  }
  return out;
}

const compiled = new Map<string, RE2JS | null>();
const COMPILED_KEPT = 64;

/** The compiled pattern, or null when it is no I-Regexp or RE2 refuses it (such as a repeat over 1000). */
function regex(pattern: string): RE2JS | null {
  let re = compiled.get(pattern);
  if (re !== undefined) return re;
  re = null;
  if (isIRegexp(pattern)) {
    try {
      re = RE2JS.compile(toRe2(pattern));
    } catch {
      re = null;
    }
  }
  if (compiled.size >= COMPILED_KEPT) compiled.delete(compiled.keys().next().value!);
  compiled.set(pattern, re);
  return re;
}

/** `match` (whole string) and `search` (any substring): LogicalFalse for a non-string or an invalid pattern. */
export function regexFunction(whole: boolean) {
  return {
    argTypes: [FunctionExpressionType.ValueType, FunctionExpressionType.ValueType],
    returnType: FunctionExpressionType.LogicalType,
    call(text: unknown, pattern: unknown): boolean {
      if (typeof text !== "string" || typeof pattern !== "string") return false;
      const re = regex(pattern);
      if (!re) return false;
      return whole ? re.matches(text) : re.test(text);
    },
  };
}
