/**
 * The resolved configuration of one plugin instance, as the fold, the query and the hosts read it, and every
 * allowance derived from its two limits, each computed here once: when an answer folds (`foldBytes` or
 * `foldTokens`, S4.3, S18.6) and how large a slice of `result_query` may be (`sliceLimitBytes`, S7.6), each
 * within the calling host's cut (S23). At the root of src/ beside the defaults, so no folder imports up into
 * plugin/ to name it; the options and their checks (S3) are `ResultHandlesOptions` and `resolveOptions`.
 */
import type { ResolvedStorageConfig } from "./storage/config.js";
import {
  BYTES_PER_TOKEN,
  CLAUDE_CODE_MAX_RESULT_CHARS,
  DEFAULT_LIMITS,
  EXACT_SIZE_FACTOR,
  HOST_CUT_MARGIN,
  MIN_THRESHOLD_BYTES,
  RESULT_ENVELOPE_CHARS,
  type HostLimit,
} from "./defaults.js";

export type { HostLimit } from "./defaults.js";

/** Context handed to `foldPolicy` (S3, S4.5). */
export interface FoldPolicyContext {
  /** Size of the answer's data as UTF-8 JSON. */
  bytes: number;
  /** The tool's full name as the client called it. */
  fullName: string;
  /** The host's request context (the MCP SDK's `ctx`, or the WebMCP call), when there is one. */
  request: unknown;
}
/**
 * Return false to send this answer whole; may be async. `answer` is the data that would fold (`structuredContent`, or
 * the parsed text).
 */
export type FoldPolicy = (toolName: string, answer: unknown, context: FoldPolicyContext) => boolean | Promise<boolean>;

/**
 * When an answer folds: over `foldBytes` as UTF-8 JSON (the `thresholdBytes` option, S4.3), or over `foldTokens`
 * estimated tokens (the `thresholdTokens` option, S18.6). One of the two, never both (S3.1).
 */
type FoldThreshold =
  | { readonly foldBytes: number; readonly foldTokens?: undefined }
  | { readonly foldTokens: number; readonly foldBytes?: undefined };

/**
 * Options with every default applied: what `plugin.get(ResultHandlesConfigToken)` returns. The fold threshold
 * and the slice limit are two values: equal by default, apart with `thresholdTokens` and in the viewer (S19.2).
 */
export type ResultHandlesConfig = FoldThreshold & {
  /**
   * `result_query` refuses a slice larger than this as UTF-8 JSON (S7.6): `thresholdBytes`, or with
   * `thresholdTokens` BYTES_PER_TOKEN bytes a token (`tokenThresholdBytes`). The viewer's `result_view` reads
   * pages up to 1 MiB (S19.2) and changes nothing of what folds.
   */
  readonly sliceLimitBytes: number;
  readonly ttlSeconds: number;
  readonly preview: { readonly items: number; readonly chars: number };
  readonly foldPolicy: FoldPolicy;
  /** The storage in use: `auto` decided, credentials from the environment filled in, defaults applied (S9). */
  readonly storage: ResolvedStorageConfig;
  readonly namespace: string;
  /** Units of work one call may cost (S21.1, `CostMeter`). */
  readonly costLimit: number;
  /**
   * The hosts' cuts by `clientInfo.name` (S23.1): the known table with the option's entries over it, or
   * none when `hostLimits` is `false`.
   */
  readonly hostLimits: Readonly<Record<string, HostLimit>>;
};

/**
 * A threshold in tokens as bytes, where an allowance is in bytes (S18.6): Claude Code counts BYTES_PER_TOKEN
 * characters a token, and a character is at least a byte; never under MIN_THRESHOLD_BYTES, the smallest
 * `thresholdBytes`. The slice limit with `thresholdTokens`, and the threshold the folded answer is sized by.
 */
export function tokenThresholdBytes(tokens: number): number {
  return Math.max(MIN_THRESHOLD_BYTES, tokens * BYTES_PER_TOKEN);
}

/** The cut of the host a call came from (S23.1). */
export interface HostCut {
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
export function withinCut(limit: number): number {
  return limit - Math.floor(limit * HOST_CUT_MARGIN);
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
 * The folded answer's allowance (S5.4): half the fold threshold (a threshold in tokens as `tokenThresholdBytes`),
 * so `{ preview, shape, handle }` and its hint are far from folding again; under a host's cut, half of what the
 * cut leaves, so they pass the host whole (S23.1).
 */
export function foldAllowanceBytes(config: ResultHandlesConfig, cut: HostCut | undefined): number {
  const threshold = config.foldTokens !== undefined ? tokenThresholdBytes(config.foldTokens) : config.foldBytes;
  return Math.floor(Math.min(threshold, cutBytes(cut)) / 2);
}

/**
 * `result_query`'s slice limit for one call (S7.6, S23.2): the instance's, and under a host's cut at most half
 * of what the cut leaves (a nodelist's paths take about as much again as its values).
 */
export function callSliceLimit(config: Pick<ResultHandlesConfig, "sliceLimitBytes">, cut: HostCut | undefined): number {
  const within = cutBytes(cut);
  return within === Infinity
    ? config.sliceLimitBytes
    : Math.min(config.sliceLimitBytes, Math.max(1, Math.floor(within / 2)));
}

/** What a call's slice limit leaves each part of the query and the hint; `sliceAllowances` says why each is so. */
export interface SliceAllowances {
  /** Keys of a wide object a page reads at most, from the offset (S16.4). */
  readonly objectKeys: number;
  /** Nodes `$.w[*]` over a wide object reads at most, from the offset (S16.4, S26.1). */
  readonly memberNodes: number;
  /** Longest text of a search hit, with `preview.chars` (S14.4). */
  readonly hitChars: number;
  /** Bytes the first read a hint suggests may fill (S18.1). */
  readonly exampleBytes: number;
  /** Characters the first read of a string answer a hint suggests asks for (S18.1). */
  readonly exampleChars: number;
  /** Bytes up to which a page's entry is measured exactly; past them, only until it is known to be larger (S26.1). */
  readonly exactBytes: number;
}

/** The allowances a slice limit of `sliceLimitBytes` leaves (S7.6), derived here and nowhere else. */
export function sliceAllowances(sliceLimitBytes: number): SliceAllowances {
  return {
    // A member takes 5 bytes of JSON at least (`"":0,`): no more keys can fit. Two more: the window's edges.
    objectKeys: Math.floor(sliceLimitBytes / 5) + 2,
    // A node takes 2 bytes at least (`0,`).
    memberNodes: Math.floor(sliceLimitBytes / 2) + 2,
    // A hit's text is at most twice this (S14.4): at 3 UTF-8 bytes a character at worst, 3/4 of the limit, so
    // one hit alone always fits (2 × 500 characters never fit a 1024-byte limit: every hit was refused).
    hitChars: Math.floor(sliceLimitBytes / 8),
    // Half: later items, which a filter may select, can be larger than the first ones the hint measures.
    exampleBytes: Math.floor(sliceLimitBytes / 2),
    // A character takes up to 6 bytes as JSON (`\u0001`): an eighth of the limit always fits; at most
    // `result_query`'s own default (S7.1).
    exampleChars: Math.min(DEFAULT_LIMITS.chars, Math.max(1, Math.floor(sliceLimitBytes / 8))),
    // EXACT_SIZE_FACTOR says why.
    exactBytes: EXACT_SIZE_FACTOR * sliceLimitBytes,
  };
}

/**
 * The largest answer `result_query` returns, as characters (S18.5, `anthropic/maxResultSizeChars`): a slice of
 * at most `sliceLimitBytes` (bytes are never fewer than characters), its nodes' paths about as much again, and
 * the envelope; never over what Claude Code accepts.
 */
export function largestAnswerChars(sliceLimitBytes: number): number {
  return Math.min(CLAUDE_CODE_MAX_RESULT_CHARS, 2 * sliceLimitBytes + RESULT_ENVELOPE_CHARS);
}
