// S15.1 S21.4: the walk of a call's arguments for references keeps the lists and objects it has been through only
// where it must (one of several items, and one of a single item now and then): shared ones and cycles still end, every
// place of a shared one is resolved, and the arguments the client passed are never changed.
import { describe, expect, it } from "vitest";
import { resolveReferences } from "../../src/plugin/references.js";

const ROW = { id: 7, title: "Row 7" };
/** Resolves every reference to a fresh copy of ROW, counting the reads. */
const resolve = async (args: unknown) => {
  let reads = 0;
  const outcome = await resolveReferences(args, async () => (reads++, { ...ROW }));
  if (!("args" in outcome)) throw new Error("refused");
  return { ...outcome, reads };
};
const ref = () => ({ $result: "h", path: "$.rows[7]" });

/** A list of one item, `depth` deep, `bottom` at the bottom. */
function chain(depth: number, bottom: unknown): unknown {
  let value = bottom;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}
function bottomOf(value: unknown): { depth: number; bottom: unknown } {
  let depth = 0;
  while (Array.isArray(value) && value.length === 1) ((value = value[0]), depth++);
  return { depth, bottom: value };
}

describe("S15.1 references in arguments walked with few lists and objects kept", () => {
  it("a reference at the bottom of a chain 300,000 lists deep is resolved; the client's chain unchanged", async () => {
    const args = { data: chain(300_000, ref()) };
    const { args: resolved, references } = await resolve(args);
    expect(references).toBe(1);
    expect(bottomOf((resolved as { data: unknown }).data)).toEqual({ depth: 300_000, bottom: ROW });
    expect(bottomOf(args.data)).toEqual({ depth: 300_000, bottom: ref() });
  });

  it("one list of one item shared by 1000 places, each of them resolved, read once", async () => {
    const shared = chain(100, ref()); // lists of one item: not every one is kept
    const args = { places: Array.from({ length: 1000 }, () => shared) };
    const { args: resolved, reads } = await resolve(args);
    expect(reads).toBe(1);
    for (const place of (resolved as { places: unknown[] }).places)
      expect(bottomOf(place)).toEqual({ depth: 100, bottom: ROW });
    expect(bottomOf(shared).bottom).toEqual(ref());
  });

  it("an object of several keys shared by two places is copied once and resolved in both", async () => {
    const shared = { a: ref(), b: 1 };
    const { args: resolved } = await resolve({ x: shared, y: [shared] });
    const { x, y } = resolved as { x: unknown; y: unknown[] };
    expect(x).toEqual({ a: ROW, b: 1 });
    expect(y[0]).toBe(x);
    expect(shared.a).toEqual(ref());
  });

  it("a cycle of lists of one item ends, and a reference beside it is resolved", async () => {
    const loop: unknown[] = [];
    loop.push(loop);
    const args = { loop, row: ref() };
    const { args: resolved, references } = await resolve(args);
    expect(references).toBe(1);
    expect((resolved as { row: unknown }).row).toEqual(ROW);
    // the copy is a cycle too (reached again within a few dozen lists), and the client's is the same list still
    let at = (resolved as { loop: unknown }).loop;
    const seen = new Set<unknown>();
    while (!seen.has(at)) (seen.add(at), (at = (at as unknown[])[0]));
    expect(seen.size).toBeLessThanOrEqual(65);
    expect(loop[0]).toBe(loop);
  });

  it("arguments without a reference, shared or in a cycle, come back as they are", async () => {
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    const args = { loop, list: [chain(10, 1), chain(10, 1)] };
    const outcome = await resolveReferences(args, async () => ROW);
    expect(outcome).toEqual({ args, references: 0 });
    expect("args" in outcome && outcome.args).toBe(args);
  });
});

describe("S15.2 S21.5 a reference that does not resolve, known before any is read", () => {
  // A and D select lists (never missing), B a singular path (may name nothing), C a handle no store holds.
  const args = { data: ["A", "B", "C", "D"].map(($result) => ({ $result, path: $result === "B" ? "$.b" : "$[*]" })) };
  const check = (handle: unknown, path: unknown) => path === "$.b";
  const size = async (handle: unknown) => (handle === "C" ? Promise.reject(new Error("C not found")) : 10);
  const run = async (bRefuses: boolean) => {
    const reads: unknown[] = [];
    const read = async (handle: unknown) => {
      reads.push(handle);
      if (handle === "C" || (handle === "B" && bRefuses)) throw new Error(`${String(handle)} refused`);
      return [1];
    };
    return { outcome: await resolveReferences(args, read, check, size), reads };
  };

  it("is refused by its own read, after only the reads that could refuse before it", async () => {
    const { outcome, reads } = await run(false);
    expect(outcome).toEqual({ refusal: new Error("C refused") });
    // A's list cannot be missing and D comes after: neither is read (63 such reads took 1.5-2.8 s under load)
    expect(reads).toEqual(["B", "C"]);
  });

  it("a singular path before it that names nothing still decides, in the order of the arguments", async () => {
    const { outcome, reads } = await run(true);
    expect(outcome).toEqual({ refusal: new Error("B refused") });
    expect(reads).toEqual(["B"]);
  });
});
