/**
 * The resolved configuration of one plugin instance, as the fold, the query and the hosts read it. A type
 * only, at the root of src/ beside the defaults, so no folder imports up into plugin/ to name it; the
 * options and their checks (S3) are `ResultHandlesOptions` and `resolveOptions`.
 */
import type { ResolvedStorageConfig } from "./storage/config.js";
import type { HostLimit } from "./defaults.js";

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

/** Options with every default applied: what `plugin.get(ResultHandlesConfigToken)` returns. */
export interface ResultHandlesConfig {
  /** Answers larger than this fold; with `thresholdTokens`, also the slice limit of `result_query` (S18.6). */
  readonly thresholdBytes: number;
  /** Set: answers fold by their estimated token count instead (S18.6). */
  readonly thresholdTokens?: number;
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
}
