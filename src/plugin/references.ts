/**
 * References (S15.1, S15.2), for every host: in a tool call's arguments, each object whose only keys are
 * `$result` and optionally `path` is replaced, at any depth, by the value it names, before the tool's input
 * is checked and before the tool runs. The model passes a folded answer on without ever re-typing it.
 *
 * The walk is iterative (arguments thousands of levels deep cannot overflow the stack), yields to
 * other calls (S21.4: a million levels deep is a second of work) and visits each list and object of the
 * arguments once; the arguments are copied, never changed (an in-process client may still hold them). Each
 * distinct reference is read once, all at once, and at most `MAX_REFERENCES_PER_CALL` of them: resolution costs
 * reading what the references name, no more (S16.1).
 */
import {
  MAX_REFERENCE_BYTES_PER_CALL,
  MAX_REFERENCES_PER_CALL,
  MAX_REPEATED_REFERENCE_BYTES,
  REFERENCES_BEFORE_PROJECTING,
  REFERENCE_ITEM_DEPTH,
  SINGLES_KEPT_EVERY,
} from "../defaults.js";
import { ResultQueryError } from "../errors.js";
import { CostMeter } from "../query/cost.js";
import { hasOwn, isPlainObject, setOwn } from "../util/json.js";
import { jsonSizeUpTo } from "../util/size.js";

/** What a reference names, read for the owner of this call; throws the `ResultQueryError` of `result_query`. */
type ReadReference = (handle: unknown, path: unknown) => Promise<unknown>;
/**
 * Checks a reference's handle and path as `result_query` would, before anything is read (S21.2); throws its refusal.
 * Says whether its read may still refuse it for its path (a singular path may name nothing), not only for its cost.
 */
type CheckReference = (handle: unknown, path: unknown) => boolean;
/**
 * About how many bytes a reference resolves to, from its answer's index alone; throws the `ResultQueryError` of
 * `result_query`.
 */
type SizeReference = (handle: unknown, path: unknown) => Promise<number>;

/**
 * References read at once: a few in flight overlap a remote store's round trips (their decrypt and parse run one at
 * a time, S26.2: `CallMeters.oneAtATime`), and bound what is held before the byte limit is met (S21.3).
 */
const READS_AT_ONCE = 4;

/**
 * The arguments with every reference replaced (and how many there were), or the refusal of the first (in document
 * order) that does not resolve.
 */
type Resolution = { args: unknown; references: number } | { refusal: unknown };

/** `{ "$result": … }` or `{ "$result": …, "path": … }`, nothing else: with any other key, it is data (S15.1). */
function isReference(value: unknown): value is { $result: unknown; path?: unknown } {
  if (!isPlainObject(value) || !hasOwn(value, "$result")) return false;
  const keys = Object.keys(value);
  return keys.length === 1 || (keys.length === 2 && hasOwn(value, "path"));
}

/** Values walked between two looks at the clock: the walks below yield to other calls (S21.4). */
const VALUES_PER_LOOK = 4096;

/** Whether the walks keep `value` (one of `items` items, met as the walk's `walked`th value) among those seen. */
const kept = (items: number, walked: number) => items > 1 || walked % SINGLES_KEPT_EVERY === 0;

/** Whether `args` holds a reference anywhere; the usual call has none and costs one walk, no copy. */
async function hasReferences(args: unknown, meter: CostMeter): Promise<boolean> {
  const seen = new Set<object>();
  const pending: unknown[] = [args];
  for (let walked = 0; pending.length > 0; walked++) {
    if (walked % VALUES_PER_LOOK === 0 && meter.shouldYield()) await meter.yieldToLoop();
    const value = pending.pop();
    if (typeof value !== "object" || value === null || seen.has(value)) continue;
    const before = pending.length;
    if (isReference(value)) return true;
    if (Array.isArray(value)) for (let i = 0; i < value.length; i++) pending.push(value[i]);
    else for (const key of Object.keys(value)) pending.push((value as Record<string, unknown>)[key]);
    if (kept(pending.length - before, walked)) seen.add(value);
  }
  return false;
}

/**
 * S15.1: `args` with each reference replaced by what `read` gives for it; the original is left as it was.
 * Every reference is counted and checked (`check`) before the first is read (S21.2); then they are read a
 * few at a time, in document order, each value's size counted against MAX_REFERENCE_BYTES_PER_CALL:
 * past it the call is refused with what was read so far (S21.3), instead of 64 × 10 MB read at once.
 */
export async function resolveReferences(
  args: unknown,
  read: ReadReference,
  check?: CheckReference,
  size?: SizeReference,
  /** The share of the call's cost limit its references have spent so far (`CallMeters.share`, S26.2). */
  spent?: () => number,
): Promise<Resolution> {
  // charged nothing: its clock alone, so arguments a million levels deep hold no one else up
  const meter = new CostMeter();
  if (!(await hasReferences(args, meter))) return { args, references: 0 };
  const { root, slots } = await copyWithSlots(args, meter);
  // One read per distinct (handle, path); an argument that cannot be a key (not a string) is read alone and refused
  // there.
  const keys: string[] = [];
  const distinct = new Map<string, { handle: unknown; path: unknown }>();
  for (const slot of slots) {
    const { $result: handle, path } = slot.reference;
    const key =
      typeof handle === "string" && (path === undefined || typeof path === "string")
        ? JSON.stringify([handle, path ?? null])
        : `#${distinct.size}`;
    keys.push(key);
    if (distinct.has(key)) continue;
    if (distinct.size >= MAX_REFERENCES_PER_CALL) {
      return {
        refusal: new ResultQueryError(
          "INVALID_INPUT",
          `A call may carry at most ${MAX_REFERENCES_PER_CALL} different { "$result": … } references; ` +
            `pass fewer, or one reference to a list that holds them all.`,
        ),
      };
    }
    distinct.set(key, { handle, path });
  }
  // per distinct reference, whether its read may refuse it for its path
  const mayMiss: boolean[] = [];
  if (check) {
    for (const { handle, path } of distinct.values()) {
      // S21.4: a path's check compiles it (64 long filters: 5-30 ms in all)
      if (meter.shouldYield()) await meter.yieldToLoop();
      try {
        mayMiss.push(check(handle, path));
      } catch (error) {
        return { refusal: error };
      }
    }
  }
  const entries = [...distinct];
  // values read before the others, to find which refuses: not read again below
  const early = new Map<string, unknown>();
  if (size) {
    // Sized from their indexes, all of them, before the first is read: 64 × 10 MB is refused here.
    // One that does not resolve is refused below by its read, unless one before it in the order of the arguments
    // fails first.
    let sized = 0;
    let unresolved: number | undefined;
    for (let at = 0; at < entries.length && unresolved === undefined; at += READS_AT_ONCE) {
      // S21.4: each size opens its answer (64 of them: 14-75 ms in all)
      if (meter.shouldYield()) await meter.yieldToLoop();
      const batch = entries.slice(at, at + READS_AT_ONCE);
      const settled = await Promise.all(
        batch.map(([, { handle, path }]) =>
          size(handle, path).then(
            (bytes) => ({ bytes }),
            (error: unknown) => ({ error }),
          ),
        ),
      );
      settled.forEach((outcome, i) => {
        if ("bytes" in outcome) sized += outcome.bytes;
        else unresolved ??= at + i;
      });
    }
    if (unresolved === undefined && sized > MAX_REFERENCE_BYTES_PER_CALL)
      return { refusal: tooManyBytes(entries.length, entries.length, sized) };
    if (unresolved !== undefined) {
      // S21.5: the call is refused, by this reference or one before it whose path names nothing: only those are read
      // (63 references read before an unknown handle took 1.5-2.8 s under load, for a refusal)
      const before = entries.slice(0, unresolved).filter((_, i) => mayMiss[i] ?? true);
      for (const [key, { handle, path }] of [...before, entries[unresolved]!]) {
        if (meter.shouldYield()) await meter.yieldToLoop();
        try {
          early.set(key, await read(handle, path));
        } catch (error) {
          return { refusal: error };
        }
      }
      // none refused (its answer was found meanwhile): all are read below, as when every one resolves
    }
  }
  // one outcome per distinct reference: repeats are told by identity
  const values = new Map<string, { value: unknown }>();
  let bytes = 0;
  for (let at = 0; at < entries.length; at += READS_AT_ONCE) {
    const batch = entries.slice(at, at + READS_AT_ONCE);
    const settled = await Promise.all(
      batch.map(([key, { handle, path }]) =>
        (early.has(key) ? Promise.resolve(early.get(key)) : read(handle, path)).then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        ),
      ),
    );
    const failed = settled.find((outcome) => "error" in outcome);
    if (failed && "error" in failed) return { refusal: failed.error };
    for (let i = 0; i < batch.length; i++) {
      const { value } = settled[i] as { value: unknown };
      bytes += distinctBytes(value, MAX_REFERENCE_BYTES_PER_CALL - bytes + 1);
      if (bytes > MAX_REFERENCE_BYTES_PER_CALL) return { refusal: tooManyBytes(at + i + 1, entries.length) };
      values.set(batch[i]![0], { value });
    }
    // S26.2 S21.5: once the first references have cost more than their share of the call's limit, the rest
    // would pass it: refused now, not after reading them (64 of count($.b[*]) were refused after 3.6-6.6 s)
    const done = at + batch.length;
    const share = spent?.() ?? 0;
    if (done >= REFERENCES_BEFORE_PROJECTING && done < entries.length && (share * entries.length) / done > 1)
      return { refusal: tooCostly(done, entries.length, share) };
  }
  const settled = keys.map((key) => values.get(key)!);
  const repeated = repeatedBytesOver(settled, MAX_REPEATED_REFERENCE_BYTES);
  if (repeated !== undefined) return { refusal: repeated };
  for (let i = 0; i < slots.length; i++) put(slots[i]!.holder, slots[i]!.key, settled[i]!.value);
  return { args: root.value, references: slots.length };
}

/**
 * A resolved value's JSON size up to `allowance`, each item of a list that is one object repeated (a union
 * naming one list 500 times) counted once: repeats are what `repeatedBytesOver` refuses, in its words.
 */
function distinctBytes(value: unknown, allowance: number): number {
  if (!Array.isArray(value)) return jsonSizeUpTo(value, allowance);
  const seen = new Set<unknown>();
  let bytes = 2;
  for (const item of value) {
    if (item !== null && typeof item === "object") {
      if (seen.has(item)) continue;
      seen.add(item);
    }
    bytes += jsonSizeUpTo(item, allowance - bytes) + 1;
    if (bytes > allowance) break;
  }
  return bytes;
}

/**
 * The refusal of S26.2's projection, naming a call that works (S7.6): at most `fit` such references, one fewer
 * than the limit holds at the first ones' average cost, so a call of references alike stays under the limit and
 * is never projected past it (the first ones also read and parse the answer: later ones cost as much or less).
 */
function tooCostly(read: number, of: number, share: number): ResultQueryError {
  const fit = Math.max(1, Math.floor(read / share) - 1);
  return new ResultQueryError(
    "INVALID_INPUT",
    `The ${of} distinct { "$result": … } references of this call would cost about ` +
      `${Math.round((share * of * 100) / read)}% of its cost limit (costLimit): the first ${read} cost ` +
      `${Math.round(share * 100)}% of it (S26.2). Pass at most ${fit} such references in one call, ` +
      `or references to smaller slices, or call the tool once per slice.`,
  );
}

function tooManyBytes(read: number, of: number, about?: number): ResultQueryError {
  const measured =
    about === undefined
      ? `passed after ${read} of its ${of} distinct references`
      : `about ${about} bytes, told by their answers' indexes before any was read`;
  return new ResultQueryError(
    "INVALID_INPUT",
    `The { "$result": … } references of this call resolve to more than ${MAX_REFERENCE_BYTES_PER_CALL} bytes in all ` +
      `(${measured}; S21.3): pass fewer or smaller references, for example one to a slice such as $.rows[0:1000], ` +
      `or call the tool once per slice.`,
  );
}

/**
 * S16.1: a reference repeated in one call is read once, but the tool's input check walks (and copies) the
 * value at every place it stands: 1000 copies of a 300 KB list in a 50 KB request cost 2.5 s and 350 MB.
 * Each place after the first counts the value's size; past `allowance` bytes in all, the call is refused
 * (`INVALID_INPUT`), having measured at most about `allowance` bytes. A value passed once is never refused.
 */
function repeatedBytesOver(outcomes: readonly { value: unknown }[], allowance: number): ResultQueryError | undefined {
  // Places are counted by the value itself: one reference whose query names one list 500 times
  // (`$['rows','rows',…]`) puts that list in 500 places of the list it resolves to.
  const places = new Map<unknown, number>();
  const place = (value: unknown) => {
    if (value !== null && (typeof value === "object" || typeof value === "string"))
      places.set(value, (places.get(value) ?? 0) + 1);
  };
  for (const outcome of outcomes) place(outcome.value);
  for (const outcome of new Set(outcomes))
    if (Array.isArray(outcome.value)) for (const item of outcome.value) place(item);
  let left = allowance;
  for (const [value, count] of places) {
    if (count < 2) continue;
    const copies = count - 1;
    const size = jsonSizeUpTo(value, Math.floor(left / copies));
    left -= size * copies;
    if (left < 0) {
      return new ResultQueryError(
        "INVALID_INPUT",
        `This call repeats { "$result": … } references whose values add up to more than ${allowance} bytes ` +
          `beyond their first use (${count} places name one value of ` +
          `${size * copies > allowance ? "more than " + Math.ceil(allowance / copies) : size} bytes); ` +
          `pass each value once, for example one reference to the list that holds them all.`,
      );
    }
  }
  return undefined;
}

/** Longest input-validation message a call with references gets back; the rest is cut (S7.10, S16.1). */
const MAX_VALIDATION_MESSAGE_CHARS = 2000;

/**
 * Runs `run`, cutting the message of an input-validation error it throws: the SDK lists every issue, and
 * over arguments resolved from a 10 MB answer whose every item fails, that is a 9 MB reply to a request of
 * a few hundred bytes. The error, its kind and its start stay the SDK's own.
 */
export async function withShortValidationErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (
      error instanceof Error &&
      error.message.startsWith("Input validation error") &&
      error.message.length > MAX_VALIDATION_MESSAGE_CHARS
    ) {
      const total = error.message.length;
      error.message =
        `${error.message.slice(0, MAX_VALIDATION_MESSAGE_CHARS)}… (${total} characters in all: ` +
        `the arguments, with their references resolved, fail the tool's input schema in many places)`;
    }
    throw error;
  }
}

interface Slot {
  holder: Record<string, unknown> | unknown[];
  key: string | number;
  reference: { $result: unknown; path?: unknown };
}

/**
 * A copy of `args` whose containers are new (a list or object shared copied once, so a cycle ends), and where each
 * reference is to go, in document order.
 */
async function copyWithSlots(args: unknown, meter: CostMeter): Promise<{ root: { value: unknown }; slots: Slot[] }> {
  const root: { value: unknown } = { value: undefined };
  const slots: Slot[] = [];
  const copies = new Map<object, Record<string, unknown> | unknown[]>();
  // Last in, first out: children are pushed in reverse so they are visited in document order. Three
  // stacks side by side, not one of triples: a million levels deep made a million short-lived arrays.
  const values: unknown[] = [args];
  const holders: (Record<string, unknown> | unknown[])[] = [root];
  const keys: (string | number)[] = ["value"];
  for (let walked = 0; values.length > 0; walked++) {
    if (walked % VALUES_PER_LOOK === 0 && meter.shouldYield()) await meter.yieldToLoop();
    const value = values.pop();
    const holder = holders.pop()!;
    const key = keys.pop()!;
    if (typeof value !== "object" || value === null) {
      put(holder, key, value);
      continue;
    }
    if (isReference(value)) {
      slots.push({ holder, key, reference: value });
      put(holder, key, undefined);
      continue;
    }
    const known = copies.get(value);
    if (known) {
      put(holder, key, known);
      continue;
    }
    if (Array.isArray(value)) {
      const copy = new Array<unknown>(value.length);
      if (kept(value.length, walked)) copies.set(value, copy);
      put(holder, key, copy);
      for (let i = value.length - 1; i >= 0; i--) (values.push(value[i]), holders.push(copy), keys.push(i));
    } else {
      const copy: Record<string, unknown> = {};
      put(holder, key, copy);
      const names = Object.keys(value);
      if (kept(names.length, walked)) copies.set(value, copy);
      for (const name of names) setOwn(copy, name, undefined); // keeps the key order of the original
      for (let i = names.length - 1; i >= 0; i--)
        (values.push((value as Record<string, unknown>)[names[i]!]), holders.push(copy), keys.push(names[i]!));
    }
  }
  return { root, slots };
}

/** Sets a list item or an own key (`__proto__` included, as the data it is in JSON). */
function put(holder: Record<string, unknown> | unknown[], key: string | number, value: unknown): void {
  if (typeof key === "number") (holder as unknown[])[key] = value;
  else setOwn(holder as Record<string, unknown>, key, value);
}

/** What a reference is as JSON Schema (S25.2): `{ "$result": handle, "path"?: where }`, nothing else. */
const REFERENCE_JSON_SCHEMA = Object.freeze({
  type: "object",
  properties: {
    $result: { type: "string", description: "A folded answer's handle" },
    path: { type: "string", description: "Where in it: a path, as result_query takes" },
  },
  required: ["$result"],
  additionalProperties: false,
});

/**
 * S25.2: a tool's listed input schema that also admits a reference wherever an argument may take one: each
 * argument, and each item of an argument that is a list (nested lists too), as `anyOf: [its own schema, the
 * reference]`. Only the listing changes: the tool's own validation still runs on the resolved value. A
 * schema with no `properties` (or not an object) is listed as it was.
 */
export function admitReferences(schema: unknown): unknown {
  if (!isPlainObject(schema) || !isPlainObject(schema.properties)) return schema;
  const properties = Object.fromEntries(
    Object.entries(schema.properties).map(([name, property]) => [name, orReference(property, 0)]),
  );
  return { ...schema, properties };
}

function orReference(schema: unknown, depth: number): unknown {
  if (!isPlainObject(schema)) return schema; // `true` admits a reference already, `false` nothing at all
  let inner: Record<string, unknown> = schema;
  if (depth < REFERENCE_ITEM_DEPTH && isPlainObject(schema.items))
    inner = { ...schema, items: orReference(schema.items, depth + 1) };
  const description = typeof schema.description === "string" ? { description: schema.description } : {};
  return { ...description, anyOf: [inner, REFERENCE_JSON_SCHEMA] };
}
