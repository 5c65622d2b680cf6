/**
 * One cost meter per call (S21.1): everything a call makes the server do is charged to it, in one unit
 * (about a nanosecond of work on a 2-core server of 2026, measured: a JSONPath node 300, a filter
 * expression node evaluated for one item 20 (a query inside it, `@.a`, 80), a byte decrypted 2 and parsed 8, a
 * character a regex program
 * instruction runs over 5, a byte a reference resolves 10), against one limit (the `costLimit` option,
 * `DEFAULT_COST_LIMIT`: about a second of work). It is checked as the work runs: the charge
 * that passes the limit throws `INVALID_INPUT` naming what cost most and a narrower call, and the work
 * stops there, on the calling thread and on the batch workers alike (a job carries its share, S21.4).
 *
 * The meter also says when the calling thread has been held long enough (S21.4): long work asks
 * `shouldYield` between steps and yields (`yieldToLoop`). A call's meter (`guarded`) also
 * refuses evaluation that holds the thread MAX_HOLD_MS without yielding, with MAX_HOLD_UNITS of work in it,
 * where no step can yield (`lookAtHold`).
 */
import { COST_WEIGHTS, DEFAULT_COST_LIMIT, MAX_HOLD_MS, MAX_HOLD_UNITS } from "../defaults.js";
import { ResultQueryError } from "../errors.js";
import { shouldYieldSince, yieldToLoop } from "../util/yield.js";
import type { MemberWatch } from "./refusals/member-watch.js";

/** What a call pays for (S21.1). */
export type CostKind = keyof typeof COST_WEIGHTS;

/** What each kind counts, for the refusal's text. */
const COUNTS: Record<CostKind, string> = {
  nodes: "nodes of this answer visited",
  expressions:
    "filter-expression nodes evaluated (the expression's size × the items it runs on, " +
    "and the members of the lists and objects it compares)",
  regex: "characters × regex program instructions of match() and search()",
  decrypted: "bytes decrypted",
  parsed: "bytes parsed",
  references: "bytes of $result references resolved",
  keyed: "characters of lists and objects grouped by (aggregate)",
};

/** How to narrow a call when `kind` cost most. */
const NARROWER: Record<CostKind, string> = {
  nodes:
    "narrow it, for example $.rows[?@.id == 5] instead of $..*..id, " +
    "or search under a deeper path such as $.rows instead of $..*",
  expressions: "use a shorter filter, or filter a deeper or smaller list (a slice such as $.rows[0:1000] first)",
  regex: "use a simpler pattern (fewer repeats), or match a shorter field than the whole text",
  decrypted: "read a deeper path, a slice (offset and limit) or one list instead of the whole answer",
  parsed: "read a deeper path, a slice (offset and limit) or one list instead of the whole answer",
  references: "pass fewer or smaller references, for example one reference to a slice such as $.rows[0:1000]",
  keyed:
    'group by a member whose values are strings, numbers or booleans (such as "@.customer.country"), ' +
    "not a list or object, or select fewer nodes",
};

/**
 * 0 for every kind of work the meter charges (COST_WEIGHTS names them), written out: an object of one fixed shape
 * (S26.1: built from COST_WEIGHTS' keys, every charge looked its kind up by name, and the meter took a fifth of a
 * filter's time over a million members).
 */
function zeroPerKind(): Record<CostKind, number> {
  return { nodes: 0, expressions: 0, decrypted: 0, parsed: 0, regex: 0, references: 0, keyed: 0 };
}

export class CostMeter {
  /** Units charged so far, in all. */
  spent = 0;
  /** Units charged per kind. */
  readonly by = zeroPerKind();
  /** Counts per kind (nodes, bytes, …), for the refusal's text. */
  readonly counts = zeroPerKind();
  /** Where the evaluation tells which named members it found (S18.2), when its query names some. */
  watch?: MemberWatch;
  /** When the calling thread last yielded (performance.now()). */
  private since = now();
  /** Evaluation charges since the clock was last read for the hold (`guarded` meters only). */
  private charges = 0;
  /** Units of evaluation done on this thread (not absorbed from a worker), for the hold. */
  private evaluated = 0;
  /**
   * When this call's evaluation was first seen holding the thread without yielding since, and its units
   * then.
   */
  private heldSince: number | undefined;
  private heldFrom = 0;

  constructor(
    /** Units the call may spend (the `costLimit` option). */
    readonly limit: number = DEFAULT_COST_LIMIT,
    /** How the call may be narrowed, when the meter cannot say better (what the caller asked). */
    private readonly advice?: string,
    /** A call's meter on the calling thread: refuses evaluation that holds it too long without yielding. */
    private readonly guarded = false,
  ) {}

  /**
   * Charges one node (`charge("nodes")`, written out: the charge of every member of a million-key object's filter,
   * twice, S26.1).
   */
  node(): void {
    this.counts.nodes++;
    this.by.nodes += NODE_UNITS;
    this.spent += NODE_UNITS;
    if (this.spent > this.limit) throw this.refusal();
    if (this.guarded) {
      this.evaluated += NODE_UNITS;
      if (++this.charges >= CHARGES_PER_LOOK) this.lookAtHold();
    }
  }

  /** Charges `count` filter-expression nodes (`charge("expressions", count)`, written out as `node` is). */
  expressions(count: number): void {
    const units = count * EXPRESSION_UNITS;
    this.counts.expressions += count;
    this.by.expressions += units;
    this.spent += units;
    if (this.spent > this.limit) throw this.refusal();
    if (this.guarded) {
      this.evaluated += units;
      if (++this.charges >= CHARGES_PER_LOOK) this.lookAtHold();
    }
  }

  /** Charges `count` of `kind`; past the limit, throws the refusal (S21.1). */
  charge(kind: CostKind, count = 1): void {
    this.add(kind, count);
    if (this.guarded && HELD_BY[kind]) {
      this.evaluated += count * COST_WEIGHTS[kind];
      if (++this.charges >= CHARGES_PER_LOOK) this.lookAtHold();
    }
  }

  private add(kind: CostKind, count: number): void {
    const units = count * COST_WEIGHTS[kind];
    this.counts[kind] += count;
    this.by[kind] += units;
    this.spent += units;
    if (this.spent > this.limit) throw this.refusal();
  }

  /**
   * S21.4 for work that cannot yield: the first look in a hold starts its clock, and a timer
   * stops it, which runs only once the thread has yielded; a later look that finds
   * the clock past MAX_HOLD_MS, with at least MAX_HOLD_UNITS of evaluation done meanwhile (so a hold that
   * only waited for the processor, on a loaded machine, is never refused), refuses the call, and the work
   * stops there.
   */
  private lookAtHold(): void {
    this.charges = 0;
    const at = now();
    if (this.heldSince === undefined) {
      this.heldSince = at;
      this.heldFrom = this.evaluated;
      setTimeout(() => (this.heldSince = undefined), 0);
    } else if (at - this.heldSince > MAX_HOLD_MS && this.evaluated - this.heldFrom > MAX_HOLD_UNITS) {
      throw new ResultQueryError(
        "INVALID_INPUT",
        `The query held the server ${Math.floor(at - this.heldSince)} ms in one piece, ` +
          `more than the ${MAX_HOLD_MS} ms a piece may take, where it could not let other calls in ` +
          `(a query from @ inside a filter, such as count(@.rows[?…]) in $.groups[?count(@.rows[?…]) > 0], ` +
          `runs whole inside each item the outer filter tests): ` +
          `run such an inner query as a query of its own, or ${NARROWER[this.most]}.`,
      );
    }
  }

  /**
   * Units spent elsewhere for this call and refused there (a batch worker's job): recorded for the refusal's text, not
   * checked again.
   */
  record(kind: CostKind, units: number): void {
    this.by[kind] += units;
    this.counts[kind] += units / COST_WEIGHTS[kind];
    this.spent += units;
  }

  /** Units spent elsewhere for this call (a batch worker's count, S14.6), as `kind`: never this thread's hold. */
  absorb(units: number, kind: CostKind = "nodes"): void {
    this.add(kind, units / COST_WEIGHTS[kind]);
  }

  /** Whether charging `count` of `kind` would pass the limit (for work that cannot stop halfway: one regex run). */
  wouldPass(kind: CostKind, count: number): boolean {
    return this.spent + count * COST_WEIGHTS[kind] > this.limit;
  }

  /** Units left. */
  get left(): number {
    return Math.max(0, this.limit - this.spent);
  }

  /** The kind that cost most so far. */
  get most(): CostKind {
    let best: CostKind = "nodes";
    for (const kind of Object.keys(this.by) as CostKind[]) if (this.by[kind] > this.by[best]) best = kind;
    return best;
  }

  /** The refusal of a call over its limit: what cost most, and a narrower call (S21.1). */
  refusal(kind: CostKind = this.most): ResultQueryError {
    const visited =
      kind === "nodes"
        ? `The query would visit more than ${Math.round(this.counts.nodes)} nodes of this answer`
        : `The call would cost more than its limit`;
    return new ResultQueryError(
      "INVALID_INPUT",
      `${visited} (cost over ${this.limit} units, costLimit; ` +
        `most of it ${Math.round(this.counts[kind])} ${COUNTS[kind]}): ` +
        `${kind === "nodes" && this.advice ? this.advice : NARROWER[kind]}.`,
    );
  }

  /**
   * The refusal of a call one of whose batch-worker jobs spent the units one job may spend and was stopped (S21.1,
   * S21.4): its words give what that job measured (S26.1), not the call's total, which is far from its limit.
   */
  shareRefusal(
    share: number,
    job: Readonly<Partial<Record<CostKind, number>>>,
    bytes: number,
    part: CountedPart = { kind: "list", at: "the list" },
  ): ResultQueryError {
    const kinds = Object.entries(job) as [CostKind, number][];
    const [kind, units] = kinds.reduce((best, each) => (each[1] > best[1] ? each : best), ["nodes", 0]);
    const spent = kinds.reduce((sum, [, each]) => sum + each, 0);
    return new ResultQueryError(
      "INVALID_INPUT",
      `One piece of the ${part.kind} (${bytes} bytes, counted on a batch worker) would cost more than the ` +
        `${share} units one such job may spend (one short hold of a thread): it had spent ${Math.round(spent)}, ` +
        `most of it ${Math.round(units / COST_WEIGHTS[kind])} ${COUNTS[kind]}, when it was stopped ` +
        `(the call may spend ${this.limit} in all, costLimit): ` +
        `${kind === "nodes" && this.advice ? this.advice : narrowerAt(part, kind)}.`,
    );
  }

  /**
   * The refusal of a call one of whose batch-worker jobs was stopped, its worker silent too long (S21.4,
   * `BATCH_WORKER_SILENT_MS`): the words give the time measured and the work the jobs that answered did (S26.1), not
   * a count of nodes it did not reach.
   */
  overrunRefusal(
    ms: number,
    silentMs: number,
    bytes: number,
    part: CountedPart = { kind: "list", at: "the list" },
  ): ResultQueryError {
    return new ResultQueryError(
      "INVALID_INPUT",
      `A batch worker counting one piece of the ${part.kind} (${bytes} bytes) for this query was stopped after ` +
        `${Math.round(ms)} ms: it had said nothing for ${silentMs} ms, as long as a worker may (it says so after ` +
        `each batch), so one batch of it costs far more than a short hold, or the server is very busy. ` +
        `The call had visited ${Math.round(this.counts.nodes)} nodes of this answer by then ` +
        `(it may spend ${this.limit} units, costLimit). Call again in a moment, or ` +
        `${this.advice ?? narrowerAt(part, "nodes")}.`,
    );
  }

  /** Whether the calling thread has been held for YIELD_AFTER_MS since it last yielded (S21.4). */
  shouldYield(): boolean {
    // or the loop has been held as long by the calls that went on in this pass (S21.4, util/yield.ts)
    return shouldYieldSince(this.since);
  }

  /**
   * Yields to other calls (one macrotask: timers and I/O run), then goes on. The calls that yielded go on
   * together at the next pass of the loop, and one clock bounds that pass (`loopHeld`, util/yield.ts): the first
   * takes its hold of YIELD_AFTER_MS, the others find the clock spent and yield again at once. So do the strands of
   * one call that run side by side on this meter (its references, read four at a time, S26.2): each woke on a
   * timer of its own and took its hold, four holds in a row (85-130 ms for 64 references). A strand that goes on
   * after a read rather than a yield finds the clock where the strand before left it.
   */
  async yieldToLoop(): Promise<void> {
    await yieldToLoop();
    this.since = now();
    this.heldSince = undefined;
  }
}

/** What a batch job counts a piece of, in a refusal's words: a list's items, or a wide object's members (S26.1). */
export interface CountedPart {
  readonly kind: "list" | "object";
  /** Its path in the answer (S7.5), which the advice names (S14.5): never a path the answer has not. */
  readonly at: string;
}

/**
 * How to narrow a call one piece of whose list or wide object cost more than a batch job may spend (S14.5: paths
 * under the part's own path, not examples the answer may not have): each item or member it tests is large, so a
 * deeper path; or the filter is long, so a shorter one over fewer items.
 */
function narrowerAt({ kind, at }: CountedPart, cost: CostKind): string {
  if (cost === "nodes")
    return (
      `narrow it: filter a deeper path under ${at}, so that each ${kind === "list" ? "item" : "member"} it tests ` +
      `is smaller, or use a simpler filter`
    );
  if (cost !== "expressions") return NARROWER[cost];
  return kind === "list"
    ? `use a shorter filter, or filter a slice of ${at} first, such as ${at}[0:1000]`
    : `use a shorter filter, or filter a deeper path under ${at}`;
}

/** The kinds of work an evaluation does on the calling thread, whose hold the meter watches (S21.4). */
const HELD_BY: Record<CostKind, boolean> = {
  nodes: true,
  expressions: true,
  regex: true,
  decrypted: false,
  parsed: false,
  references: false,
  keyed: true,
};
const NODE_UNITS = COST_WEIGHTS.nodes;
const EXPRESSION_UNITS = COST_WEIGHTS.expressions;
/** Evaluation charges between two reads of the clock for the hold (a charge is a node or an item: cheap). */
const CHARGES_PER_LOOK = 1024;

const now = () => performance.now();

/**
 * The meter of the evaluation running now. Evaluations run synchronously between yields (a batch at a
 * time, or a slice of nodes), each setting its meter first (`useMeter`), so the engine's callbacks
 * (json-p3 calls our functions without a context) charge the right call.
 */
let current = new CostMeter();
export function useMeter(meter: CostMeter): void {
  current = meter;
}
export function currentMeter(): CostMeter {
  return current;
}
/** The watch of the evaluation running now, if it has one (S18.2). */
export function watching(): MemberWatch | undefined {
  return current.watch;
}
/** One node visited or selected (S14.3). */
export function tick(): void {
  current.node();
}
/** `count` filter-expression nodes to the meter of the evaluation running now (one filter run on one item). */
export function chargeExpressions(count: number): void {
  current.expressions(count);
}
/** `count` of `kind` to the meter of the evaluation running now. */
export function charge(kind: CostKind, count: number): void {
  current.charge(kind, count);
}
