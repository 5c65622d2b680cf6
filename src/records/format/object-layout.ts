/**
 * Wide objects of an answer, written so a window of their keys or one key by name reads only the
 * batches holding it (S16.4, S8.5), as lists are: an object of more than WIDE_KEYS keys (at the root, or
 * reached from it through object keys, as lists are) is written in batches of members, each batch one
 * `JSON.stringify` of a run of members (built with `setOwn`, so `__proto__` stays a key) without its
 * braces, joined with commas: the same text as one `JSON.stringify` of the object. The index notes where
 * each batch starts (its first member, in key order, and its byte offset), and how to find the batch of a
 * key by name without reading the others: when the keys are in order (code unit or natural order, array
 * indexes first as `Object.keys` lists them), each batch's first key (a binary search
 * gives the one batch that can hold a name; `keyBefore`); else a small Bloom filter of each batch's keys.
 */
import { isJsonMember, setOwn, type JsonObject } from "../../util/json.js";
import { webBase64 } from "../../storage/base64.js";
import type { PieceWriter, YieldSteps } from "./piece-writer.js";
import { OrderCheck, keyBefore, type KeyOrder } from "./key-order.js";

/** Where one wide object's members lie in the answer's UTF-8 JSON. */
export interface ObjectLayout {
  /** Keys from the root to the object; empty when the root itself is the object. */
  path: string[];
  /** Its members (keys JSON keeps), in key order. */
  length: number;
  /** Flat pairs: first member of each batch, then the byte offset where that member starts. */
  batches: number[];
  /** Byte offset just past the last member (where the object's `}` is). */
  end: number;
  /** Keys in order (`OrderCheck`): the first key of each batch, and the order ("code" when left out). */
  firsts?: string[];
  order?: KeyOrder;
  /**
   * Keys in any order: each batch's Bloom filter (`bits` bits per member, at least 64 per batch), base64, one after
   * another.
   */
  bloom?: string;
  bits?: number;
}

/** An object of more keys is written member by member in batches (S16.4); fewer are one `JSON.stringify`. */
export const WIDE_KEYS = 1024;
/** A batch's first key longer than this is not kept in the index: the Bloom filter finds keys instead. */
const FIRST_KEY_CHARS = 256;
/**
 * Bloom bits per key (about 1% false positives per batch), fewer when the object's members are short, so the filters
 * stay a 16th of it (S16.3).
 */
const BLOOM_BITS = 10;
const BLOOM_PROBES = 7;

/** What `JSON.stringify` asks for its `toJSON` (objects, functions and BigInts may have one). */
function hasMemberToJson(value: unknown): boolean {
  return (
    ((typeof value === "object" && value !== null) || typeof value === "function" || typeof value === "bigint") &&
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  );
}

/**
 * Writes `object` (whose keys are `keys`, in order) between braces in member batches; returns its layout (without
 * deciding whether it is worth indexing).
 */
export function* writeWideObject(
  writer: PieceWriter,
  object: JsonObject,
  keys: readonly string[],
  path: string[],
): YieldSteps<ObjectLayout> {
  const batches: number[] = [];
  const kept: string[] = [];
  const check = new OrderCheck();
  let count = 16;
  writer.write("{");
  const start = writer.total;
  for (let at = 0; at < keys.length;) {
    const done = at;
    const run: JsonObject = {};
    const runKeys: string[] = [];
    let special = false;
    for (; at < keys.length && runKeys.length < count; at++) {
      const key = keys[at]!;
      const member = object[key]; // read once: a getter runs once, as in one JSON.stringify
      if (hasMemberToJson(member)) special = true;
      else if (!isJsonMember(member)) continue; // JSON leaves it out
      setOwn(run, key, member);
      runKeys.push(key);
    }
    const [json, members] = special ? heldJson(run, runKeys) : [JSON.stringify(run).slice(1, -1), runKeys];
    if (members.length === 0) continue;
    if (kept.length > 0) writer.write(",");
    batches.push(kept.length, writer.total);
    writer.progress = { start, done, length: keys.length };
    writer.write(json);
    for (const key of members) {
      check.next(kept, key);
      kept.push(key);
    }
    // Aim the next batch at `batchChars`, growing at most 8-fold at a time (as list batches).
    count = Math.max(1, Math.min(count * 8, Math.round((count * writer.batchChars) / Math.max(1, json.length))));
    if (writer.held()) yield;
  }
  writer.progress = undefined;
  const end = writer.total;
  writer.write("}");
  const layout: ObjectLayout = { path, length: kept.length, batches, end };
  const firsts: string[] = [];
  let sorted = check.order !== undefined;
  for (let i = 0; i < batches.length && sorted; i += 2) {
    const first = kept[batches[i]!]!;
    if (first.length > FIRST_KEY_CHARS) sorted = false;
    firsts.push(first);
  }
  if (sorted) Object.assign(layout, { firsts }, check.order === "natural" ? { order: "natural" } : {});
  else Object.assign(layout, bloomOf(kept, batches, end - (batches[1] ?? end)));
  return layout;
}

/**
 * A run with a member that has its own `toJSON`: each member through a holder under its own key, as
 * `JSON.stringify` of the object would call it; a member whose `toJSON` gives nothing JSON keeps is left out.
 */
function heldJson(run: JsonObject, keys: readonly string[]): [string, string[]] {
  const parts: string[] = [];
  const members: string[] = [];
  for (const key of keys) {
    const held: JsonObject = {};
    setOwn(held, key, run[key]);
    const json = JSON.stringify(held);
    if (json.length > 2) (parts.push(json.slice(1, -1)), members.push(key));
  }
  return [parts.join(","), members];
}

/** Batch `b`'s member count. */
function batchMembers(layout: Pick<ObjectLayout, "batches" | "length">, b: number): number {
  return (b + 1 < layout.batches.length / 2 ? layout.batches[2 * b + 2]! : layout.length) - layout.batches[2 * b]!;
}

function bloomOf(keys: readonly string[], batches: number[], bytes: number): Pick<ObjectLayout, "bloom" | "bits"> {
  // at most a 16th of the object
  const bits = Math.max(2, Math.min(BLOOM_BITS, Math.floor(bytes / 2 / Math.max(1, keys.length))));
  const layout = { batches, length: keys.length, bits };
  const sizes = filterBits(layout);
  const filters = new Uint8Array(sizes.reduce((sum, size) => sum + size, 0) >> 3);
  let offset = 0;
  for (let b = 0; b < sizes.length; b++) {
    const first = batches[2 * b]!;
    for (let i = first; i < first + batchMembers(layout, b); i++)
      for (const bit of probes(keyHashes(keys[i]!), sizes[b]!))
        filters[(offset + bit) >> 3]! |= 1 << ((offset + bit) & 7);
    offset += sizes[b]!;
  }
  return { bloom: webBase64.encode(filters), bits };
}

/** Each batch's filter size in bits: a multiple of 8, at least 64. */
function filterBits(layout: Pick<ObjectLayout, "batches" | "length" | "bits">): number[] {
  const sizes: number[] = [];
  for (let b = 0; b < layout.batches.length / 2; b++)
    sizes.push(Math.max(64, Math.ceil((batchMembers(layout, b) * layout.bits!) / 8) * 8));
  return sizes;
}

/** A key's two hashes, for the bits it sets in any batch's filter: FNV-1a over its UTF-16 units, then a mix. */
function keyHashes(key: string): [number, number] {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  let h2 = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h2 = (Math.imul(h2 ^ (h2 >>> 13), 0xc2b2ae35) ^ (h2 >>> 16)) | 1;
  return [h >>> 0, h2 >>> 0];
}

/** The bits a key of hashes `[h, h2]` sets in a filter of `size` bits (double hashing, BLOOM_PROBES of them). */
function probes([h, h2]: readonly [number, number], size: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < BLOOM_PROBES; i++) out.push((h + i * h2) % size);
  return out;
}

/** Whether every bit of a key of hashes `[h, h2]` is set in the filter of `size` bits at bit `offset` of `bytes`. */
function mayHold(bytes: Uint8Array, offset: number, size: number, [h, h2]: readonly [number, number]): boolean {
  for (let i = 0; i < BLOOM_PROBES; i++) {
    const bit = offset + ((h + i * h2) % size);
    if (((bytes[bit >> 3]! >> (bit & 7)) & 1) === 0) return false;
  }
  return true;
}

const decodedFilters = new WeakMap<ObjectLayout, { bytes: Uint8Array; offsets: number[]; sizes: number[] }>();

/** The batches that may hold the key `name` (S16.4): one when the keys are in order, else those whose filter has it. */
export function batchesFor(layout: ObjectLayout, name: string): number[] {
  const count = layout.batches.length / 2;
  if (count === 0) return [];
  if (layout.firsts) {
    // The last batch whose first key is at or before `name`.
    const order = layout.order ?? "code";
    if (keyBefore(name, layout.firsts[0]!, order)) return [];
    let low = 0;
    let high = count - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (!keyBefore(name, layout.firsts[mid]!, order)) low = mid;
      else high = mid - 1;
    }
    return [low];
  }
  let filters = decodedFilters.get(layout);
  if (!filters) {
    const sizes = filterBits(layout);
    const offsets: number[] = [];
    sizes.reduce((offset, size) => (offsets.push(offset), offset + size), 0);
    filters = { bytes: webBase64.decode(layout.bloom ?? ""), offsets, sizes };
    decodedFilters.set(layout, filters);
  }
  // The key is hashed once; each batch's filter is then a few bit tests (a lookup reads every batch's).
  const hashes = keyHashes(name);
  const out: number[] = [];
  for (let b = 0; b < count; b++)
    if (mayHold(filters.bytes, filters.offsets[b]!, filters.sizes[b]!, hashes)) out.push(b);
  return out;
}
