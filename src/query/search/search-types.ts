/**
 * The types of a search (S14.4): what it is asked, what it finds, and where it is: the containers a walk
 * has entered, and a multi-line string whose lines it was going through when it stopped to let other
 * calls in (S21.4). `Search` runs them.
 */
import type { BatchedPart } from "../../records/read/answer-reader.js";
import type { CostMeter } from "../cost.js";
import type { Folded, FoldedMatch } from "./text.js";

/**
 * One place the needle occurs. `path` is the canonical path (S7.5) of the value; `key: true` says the
 * match is in the name of the key that `path` ends with, not in the value under it. For a string value,
 * `offset` is where `text` starts in it (so `result_query` with that path and offset reads on), and
 * `line` (1-based) is given when the string has several lines.
 */
export interface SearchHit {
  path: string;
  text: string;
  key?: true;
  line?: number;
  offset?: number;
}

export interface SearchOptions {
  /** First hit returned, and how many. */
  offset: number;
  limit: number;
  /** `preview.chars` of the instance that folded the handle: a hit's text is at most twice this. */
  previewChars: number;
  /** Whether the start nodes may overlap (a nodelist): then a node under a container walked is skipped. */
  overlapping?: boolean;
  /** The call's cost meter (S21.1): each value visited is charged to it. */
  meter?: CostMeter;
}

/**
 * The list or wide object read batch by batch (S14.6) at `key` of `container`, if one: told by place
 * (`AnswerReader.partAt`).
 */
export type PlaceholderAt = (container: object, key: string | number) => BatchedPart | undefined;

/** A walk under way: the containers entered, the steps from the root, and where lists and wide objects stand. */
export interface Walk {
  readonly frames: Frame[];
  readonly steps: (string | number)[];
  readonly placeholderOf: PlaceholderAt | undefined;
}

/** A multi-line string's lines being searched: the match to go on from, the line it is on, and the string's place. */
export interface LineScan {
  readonly text: string;
  readonly folded: Folded;
  match: FoldedMatch | undefined;
  line: number;
  lineStart: number;
  counted: number;
  readonly steps: readonly (string | number)[];
}

/** A container being walked: its keys (objects) or length (lists), and the next child. */
export interface Frame {
  container: unknown[] | Record<string, unknown>;
  keys: readonly string[] | undefined;
  next: number;
}
