// S16.4 (in part) a query whose path stays outside an answer's indexed lists ("$.total" beside "items")
// reads the pieces around the lists, not those inside them: the reader's "outside" (AnswerReader.outside).
import { describe, expect, it } from "vitest";
import { ResultHandleStore } from "mcp-result-handles";
import { StorageDouble } from "../../helpers/storage-double.js";
import type { AnswerReader } from "../../../src/records/read/answer-reader.js";

const alice = { session: "session-alice", caller: "alice" };

/** What the answer's reader (opened as `result_query` opens it) reads with `part`. */
async function readOf(store: ResultHandleStore, handle: string, part: (reader: AnswerReader) => Promise<unknown>) {
  return part((await store.open(handle, alice, { shared: true }))!);
}

async function stored(value: unknown) {
  const spy = new StorageDouble();
  const store = new ResultHandleStore(spy, 60, { pieceBytes: 16 * 1024 });
  const handle = store.newHandle();
  await store.save(handle, value, alice);
  const pieces = spy.sets.length - 1;
  spy.gets.length = 0;
  return { spy, store, handle, pieces };
}

describe('selection "outside": everything but the indexed lists\' items', () => {
  it("reads the head and tail pieces only, and gives every key outside the lists", async () => {
    const value = {
      meta: { title: "orders", tags: ["a", "b"] },
      items: Array.from({ length: 50_000 }, () => ({})),
      total: 50_000,
      rows: Array.from({ length: 3000 }, (_, i) => ({ i })),
      end: true,
    };
    const { spy, store, handle, pieces } = await stored(value);
    expect(pieces).toBeGreaterThan(10);
    const found = (await readOf(store, handle, (reader) => reader.outside())) as typeof value;
    expect(found).toEqual({ ...value, items: [], rows: [] });
    console.log(`S16.4 "outside" on ${pieces} pieces read ${spy.gets.length - 1} of them (besides the index)`);
    expect(spy.gets.length - 1).toBeLessThanOrEqual(4);
  });

  it(
    "combines with items read before or after, in one root; a missing piece around the lists reads as " + "not found",
    async () => {
      const value = {
        head: "h",
        rows: Array.from({ length: 6000 }, (_, i) => ({ i, note: `row ${i}` })),
        tail: { n: 6000 },
      };
      const { spy, store, handle } = await stored(value);
      const slice = (await readOf(store, handle, (reader) => reader.items(0, 10, 12))) as typeof value;
      expect(slice.rows.slice(10, 12)).toEqual(value.rows.slice(10, 12));
      const outside = (await readOf(store, handle, (reader) => reader.outside())) as typeof value;
      expect([outside.head, outside.tail, outside.rows.length, outside.rows[11]]).toEqual([
        "h",
        { n: 6000 },
        6000,
        value.rows[11],
      ]);
      const later = (await readOf(store, handle, (reader) => reader.items(0, 5990, 6000))) as typeof value;
      expect([later.head, later.rows.slice(5990)]).toEqual(["h", value.rows.slice(5990)]);

      const other = await stored(value);
      const last = [...other.spy.data.keys()].at(-1)!;
      other.spy.data.delete(last); // the tail piece, around the list
      await expect(readOf(other.store, other.handle, (reader) => reader.outside())).rejects.toMatchObject({
        reason: "lost",
      });
      expect(spy.data.size).toBeGreaterThan(2);
    },
  );

  it(
    "a root list or wide object reads as empty; an answer without " + "lists, long strings or wide objects reads whole",
    async () => {
      const list = await stored(Array.from({ length: 4000 }, (_, i) => ({ i })));
      expect(await readOf(list.store, list.handle, (reader) => reader.outside())).toEqual([]);
      const narrow = Object.fromEntries(
        Array.from({ length: 1000 }, (_, i) => [`key${i}`, `value ${i} ${"x".repeat(40)}`]),
      );
      const plain = await stored(narrow);
      expect(await readOf(plain.store, plain.handle, (reader) => reader.outside())).toEqual(narrow);
      // S16.4: an object of more than 1024 keys is found by member batches like a list, so outside it reads as {}.
      const wide = await stored(Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`key${i}`, `value ${i}`])));
      expect(await readOf(wide.store, wide.handle, (reader) => reader.outside())).toEqual({});
      // S16.4: a long string is found by range like a list, so outside it reads as "" (its pieces unread).
      const text = await stored({ note: "x".repeat(100_000), n: 1 });
      expect(await readOf(text.store, text.handle, (reader) => reader.outside())).toEqual({ note: "", n: 1 });
      expect(text.spy.gets.length - 1).toBeLessThanOrEqual(2);
    },
  );
});
