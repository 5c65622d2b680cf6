/**
 * Whether an answer passes the calling host's cut (S23.1), in the host's own unit, and how the hint names the
 * cut that made it fold (S23.2). The cut itself and the allowances it leaves the folded answer and the slices are
 * the resolved configuration's (`hostCutOf`, `foldAllowanceBytes`, `callSliceLimit` in config.ts).
 */
import { BYTES_PER_TOKEN } from "../defaults.js";
import { withinCut, type HostCut } from "../config.js";

type HostUnit = "bytes" | "chars" | "lines" | "tokens";

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
