/**
 * The calling host's cut, for one call (S23): the entry of `hostLimits` its `clientInfo.name` names, whether
 * an answer passes it in the host's own unit, and the allowances it leaves the folded answer and `result_query`'s
 * slices. Beside the defaults and the config, because the fold and the query both derive their allowances here.
 */
import { BYTES_PER_TOKEN, HOST_CUT_MARGIN, type HostLimit } from "./defaults.js";
import type { ResultHandlesConfig } from "./config.js";

type HostUnit = "bytes" | "chars" | "lines" | "tokens";

/** The cut of the host a call came from. */
interface HostCut {
  /** Its `clientInfo.name`. */
  readonly client: string;
  /** How the hint names it ("Codex"). */
  readonly host: string;
  readonly limit: HostLimit;
}

/** The cut of the host that sent `client` as its `clientInfo.name`; none for an unknown or absent name (S23.2). */
export function hostCutOf(
  config: Pick<ResultHandlesConfig, "hostLimits">,
  client: string | undefined,
): HostCut | undefined {
  if (client === undefined || !Object.hasOwn(config.hostLimits, client)) return undefined;
  const limit = config.hostLimits[client]!;
  return { client, host: limit.host ?? client, limit };
}

/** What the host keeps of `limit` for the answer itself: the cut less the envelope's margin (S23.1). */
function withinCut(limit: number): number {
  return limit - Math.floor(limit * HOST_CUT_MARGIN);
}

/** How an answer measures as the host counts it; characters and lines are counted only when asked. */
export interface HostMeasures {
  /** UTF-8 bytes. */
  readonly bytes: number;
  /** Characters as JavaScript counts them (UTF-16 units), never more than the bytes. */
  chars(): number;
  lines(): number;
}

/** The first unit in which an answer passes the host's cut less its margin (S23.1), or undefined. */
export function passedUnit(cut: HostCut | undefined, measures: HostMeasures): HostUnit | undefined {
  if (!cut) return undefined;
  const { bytes, chars, lines, tokens } = cut.limit;
  if (bytes !== undefined && measures.bytes > withinCut(bytes)) return "bytes";
  // Characters never outnumber bytes: counted only when the bytes alone could pass.
  if (chars !== undefined && measures.bytes > withinCut(chars) && measures.chars() > withinCut(chars)) return "chars";
  if (lines !== undefined && measures.lines() > withinCut(lines)) return "lines";
  if (
    tokens !== undefined &&
    measures.bytes > withinCut(tokens) * BYTES_PER_TOKEN &&
    Math.ceil(measures.chars() / BYTES_PER_TOKEN) > withinCut(tokens)
  ) {
    return "tokens";
  }
  return undefined;
}

/**
 * Bytes of JSON a whole answer may take under the cut: a byte is at least a character, and a token (as Claude
 * Code counts them) is BYTES_PER_TOKEN characters. Lines are not a bound here: compact JSON is one line.
 */
function cutBytes(cut: HostCut | undefined): number {
  if (!cut) return Infinity;
  const { bytes, chars, tokens } = cut.limit;
  return Math.min(
    bytes === undefined ? Infinity : withinCut(bytes),
    chars === undefined ? Infinity : withinCut(chars),
    tokens === undefined ? Infinity : withinCut(tokens) * BYTES_PER_TOKEN,
  );
}

/**
 * The folded answer's allowance (S5.4): half the threshold, and under a host's cut half of what the cut leaves,
 * so `{ preview, shape, handle }` and its hint pass the host whole.
 */
export function foldAllowanceBytes(
  config: Pick<ResultHandlesConfig, "thresholdBytes">,
  cut: HostCut | undefined,
): number {
  return Math.floor(Math.min(config.thresholdBytes, cutBytes(cut)) / 2);
}

/**
 * `result_query`'s slice limit for a call (S7.6, S23.2): the threshold, and under a host's cut half of what
 * the cut leaves (a nodelist's paths take about as much again as its values).
 */
export function sliceBytes(config: Pick<ResultHandlesConfig, "thresholdBytes">, cut: HostCut | undefined): number {
  const within = cutBytes(cut);
  return within === Infinity
    ? config.thresholdBytes
    : Math.min(config.thresholdBytes, Math.max(1, Math.floor(within / 2)));
}

/** "Codex's 10 KiB limit", "Gemini CLI's 40,000-character limit": what the hint says folded the answer (S23.2). */
export function describeCut(cut: HostCut, unit: HostUnit): string {
  const limit = cut.limit[unit]!;
  const figure =
    unit === "bytes"
      ? limit % 1024 === 0
        ? `${limit / 1024} KiB`
        : `${limit.toLocaleString("en-US")}-byte`
      : `${limit.toLocaleString("en-US")}-${unit === "chars" ? "character" : unit === "lines" ? "line" : "token"}`;
  return `${cut.host}'s ${figure} limit`;
}

/**
 * Lines as a host counts them: a last line needs no newline, and a text that ends with one has no empty line after it.
 */
export function lineCount(text: string): number {
  let lines = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  return text.length > 0 && !text.endsWith("\n") ? lines + 1 : lines;
}
