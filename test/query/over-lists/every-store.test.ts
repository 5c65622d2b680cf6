// S14.6 filters, wildcards, slices, descendants and searches over a list read batch by batch: the same
// answers as over the whole value (nodes, paths, total, pages, fields, refusals), on memory, SQLite and
// Redis under the real ResultQueryTool; every piece fetched once; a page too large stops the reading; a
// piece lost or a store failing between batches answers the coded refusal, never a wrong page.
import { afterAll, describe, expect, it, vi } from "vitest";
import {
  MemoryStorage,
  ResultHandleStore,
  ResultQueryTool,
  type NamespacedStorage,
  type Owner,
} from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { casesOn } from "../../helpers/soak.js";
import {
  answered as answeredBy,
  countedQueries,
  everyStore,
  KeyWatchingStorage,
  ordersAnswer,
  referenceAnswer,
} from "../../helpers/store-queries.js";

const owner: Owner = { session: "s-batches", caller: "reader" };
const config = { sliceLimitBytes: 16_384, preview: { chars: 500 } } as ResultHandlesConfig;
const expected = (value: object, args: Record<string, unknown>) => referenceAnswer(value, args, config);
/** The answer, built once for the file (no test changes it), so its references are worked out once for every store. */
let orders: ReturnType<typeof ordersAnswer> | undefined;
const answer = () => (orders ??= ordersAnswer());
afterAll(() => void (orders = undefined)); // the worker keeps this module for its later files (isolate: false)
const answered = (tool: ResultQueryTool, handle: string, args: Record<string, unknown>) =>
  answeredBy(tool, handle, args, owner);

const QUERIES: Record<string, unknown>[] = [
  { path: '$.rows[?@.owner == "user5" && @.amount > 80000]' },
  { path: '$.rows[?@.owner == "user5" && @.amount > 80000]', offset: 7, limit: 3 },
  { path: '$.rows[?@.owner == "nobody"]' },
  { path: "$.rows[?@.amount > 99000].id", page: 2, limit: 5 },
  { path: "$.rows[?@.status == 'pending' && @.flag == true]", fields: ["id", "status"], limit: 4 },
  { path: "$.rows[?@.status == 'pending']", fields: ["nope"] },
  { path: '$.rows[?@.nested.deep.name == "odd" && @.id < 30].id' },
  { path: '$.rows[?@.note == "row 17"]' },
  { path: "$.rows[?search(@.note, 'ünï 1[0-9]0')].note" },
  { path: "$.rows[?length(@.tags) > 1].tags[1]", offset: 1490 },
  { path: "$.rows[*].id", offset: 5990 },
  { path: "$.rows[*]", limit: 1000 }, // too large: refused with how many fit
  { path: "$.rows[*].nested.name", limit: 2, offset: 3000 },
  { path: "$.rows[10:200:7].id" },
  { path: "$.rows[-5:].owner" },
  { path: "$.rows[5990:99999].id", limit: 3 },
  { path: "$.rows..name", offset: 100, limit: 6 },
  { path: "$.rows..deep..name", offset: 11995 },
  { path: "$.events[?@.kind == 'user5 logged in'].at", offset: 300 },
  { path: "$.rows[?@.amount > $.total].id", limit: 3 }, // reads the root: the whole answer
  { path: "$.rows[?@.id == 3, ?@.id == 1].id" }, // two selectors: the whole answer
  { path: "$.rows", search: "user5", offset: 400, limit: 4 },
  { path: "$.rows", search: "USER12", limit: 3 },
  { path: "$.rows", search: "second line 3", offset: 50, limit: 2 },
  { path: "$.rows", search: "ünï 59" },
  { path: "$.rows", search: 'say "hi', limit: 2 },
  { path: "$.rows", search: "nobody here" },
  { path: "$", search: "user5", offset: 460, limit: 5 },
  { path: "$", search: "orders" },
  { path: "$", search: "rows", limit: 3 },
  { path: "$", search: "deep", offset: 5998, limit: 4 },
  { path: "$", search: "true", limit: 2 },
  { path: "$", search: "5999" },
  { path: "$", search: "e", limit: 1000 }, // too large
  { path: "$.meta", search: "list" },
];

async function setUp(storage: NamespacedStorage, value: unknown) {
  return {
    ...countedQueries(storage, { config, owner, value }),
    pieces: Math.ceil(JSON.stringify(value).length / (16 * 1024)),
  };
}

describe("S14.6 queries over lists read batch by batch, on every store", () => {
  const stores = everyStore("over-batches");

  it.each(stores)(
    "%s: every query answers as over the whole value, a fresh handle each, every piece fetched at most once",
    async (name, open) => {
      const value = answer();
      const setup = await setUp(await open(), value);
      try {
        for (const args of casesOn(name, QUERIES)) {
          const handle = await setup.fold();
          setup.counted.gets = 0;
          const got = await answered(setup.tool, handle, args);
          expect(got, JSON.stringify(args)).toEqual(await expected(value, args));
          // The main record and each piece once; a search over the whole answer reads the pieces holding a
          // list's edges twice (the parts outside the list, then the list).
          expect(setup.counted.gets, JSON.stringify(args)).toBeLessThanOrEqual(setup.pieces + 2 + 2 * 2);
          // The same call again (the index now cached) answers the same.
          expect(await answered(setup.tool, handle, args), JSON.stringify(args)).toEqual(got);
        }
      } finally {
        await setup.store.onShutdown();
      }
    },
    120_000,
  );

  it.each(stores)(
    "%s: a page over the size limit stops the reading at the first batch past it (S16.1)",
    async (_name, open) => {
      const value = answer();
      const setup = await setUp(await open(), value);
      try {
        const handle = await setup.fold();
        setup.counted.gets = 0;
        const refused = (await answered(setup.tool, handle, { path: "$.rows[*]", limit: 100_000 })) as {
          code: string;
          message: string;
        };
        expect(refused.code).toBe("RESULT_SLICE_TOO_LARGE");
        expect(refused.message).toMatch(/At most \d+ nodes from offset 0 fit/);
        expect(setup.counted.gets).toBeLessThan(setup.pieces / 4);
      } finally {
        await setup.store.onShutdown();
      }
    },
    60_000,
  );

  it.each(stores)(
    "%s: a piece lost between batches reads as not found (S8.5); a store " +
      "failing between batches is unavailable (S9.1), then answers again",
    async (_name, open) => {
      const value = answer();
      const setup = await setUp(await open(), value);
      try {
        const handle = await setup.fold();
        // A slice first, so the index is cached and the loss is met while streaming.
        expect(await answered(setup.tool, handle, { path: "$.rows[0].id" })).toMatchObject({ value: 0 });
        setup.counted.failAfter = setup.counted.gets + 5;
        expect(await answered(setup.tool, handle, { path: "$.rows[?@.amount > 1].id" })).toMatchObject({
          code: "RESULT_STORE_UNAVAILABLE",
        });
        expect(await answered(setup.tool, handle, { path: "$", search: "user5" })).toMatchObject({
          code: "RESULT_STORE_UNAVAILABLE",
        });
        setup.counted.failAfter = undefined;
        expect(await answered(setup.tool, handle, { path: "$.rows[?@.amount > 1].id" })).toEqual(
          await expected(value, { path: "$.rows[?@.amount > 1].id" }),
        );

        // A piece in the middle of the list deleted: found as the pieces a filter fetches, in order.
        const inner = setup.counted.inner;
        const watchingStorage = new KeyWatchingStorage(inner); // the setup's store closes the storage
        const { seen } = watchingStorage;
        const watching = new ResultHandleStore(watchingStorage, 60, { pieceBytes: 16 * 1024 });
        const watched = watching.newHandle();
        await watching.save(watched, value, owner);
        const tool = new ResultQueryTool(() => [{ config, store: async () => watching }]);
        expect(await answered(tool, watched, { path: "$.rows[?@.id == 0].id" })).toMatchObject({ value: [0] });
        await inner.delete(seen[Math.floor(seen.length / 2)]!);
        for (const args of [
          { path: "$.rows[?@.amount > 1].id" },
          { path: "$.rows[*].id", offset: 5000 },
          { path: "$", search: "user5" },
          { path: "$.rows", search: "user5" },
        ]) {
          expect(await answered(tool, watched, args), JSON.stringify(args)).toMatchObject({
            code: "RESULT_HANDLE_NOT_FOUND",
          });
        }
      } finally {
        await setup.store.onShutdown();
      }
    },
    60_000,
  );
});

describe("S14.6 the answer is parsed batch by batch, never whole (observed with a spy on JSON.parse)", () => {
  it(
    "filters and searches parse batches of about 32 KB; one whose text names what is not there " + "parses none",
    async () => {
      const value = answer();
      const setup = await setUp(new MemoryStorage("parse-spy"), value);
      const bytes = JSON.stringify(value).length;
      const parse = vi.spyOn(JSON, "parse");
      try {
        const parsedBy = async (args: Record<string, unknown>) => {
          const handle = await setup.fold();
          await answered(setup.tool, handle, { path: "$.rows[0].id" }); // the index read and cached first
          parse.mockClear();
          const got = await answered(setup.tool, handle, args);
          expect(got, JSON.stringify(args)).toEqual(await expected(value, args));
          const sizes = parse.mock.calls.map(([text]) => String(text).length);
          return { largest: Math.max(0, ...sizes), total: sizes.reduce((sum, size) => sum + size, 0) };
        };
        for (const args of [
          { path: "$.rows[?@.amount > 500].id" },
          { path: "$.rows[*].nested.name", offset: 4000 },
          { path: "$", search: "user" },
          { path: "$.rows", search: "ünï" },
        ]) {
          const { largest, total } = await parsedBy(args);
          expect(largest, JSON.stringify(args)).toBeLessThan(64 * 1024);
          expect(total, JSON.stringify(args)).toBeGreaterThan(bytes / 2);
        }
        for (const args of [
          { path: '$.rows[?@.owner == "user99" && @.amount > 1]' },
          { path: "$.rows", search: "no such text" },
        ]) {
          expect((await parsedBy(args)).total, JSON.stringify(args)).toBe(0);
        }
        expect(bytes).toBeGreaterThan(900_000); // so "never whole" means something: the whole is 15 times a batch
      } finally {
        parse.mockRestore();
        await setup.store.onShutdown();
      }
    },
  );
});

describe("S14.6 a search counts the hits of batches off its page from their text (none parsed), exactly", () => {
  it(
    "pages anywhere in a search matching every row answer as over the " +
      "whole value, parsing only the batches of the page",
    async () => {
      // Rows like the bench's tickets (no escapes), a few with escapes or İ (their batches are walked instead).
      const rows = Array.from({ length: 6000 }, (_, i) => ({
        id: `T-${i}`,
        title: i % 997 === 5 ? `Printer "${i}"\nsecond line` : `Ticket ${i}: PRINTER on floor ${i % 12}`,
        who: i % 1500 === 7 ? "İnci printer" : `agent ${i % 97}`,
        tags: ["hardware", "printer"],
        printer: i % 3 === 0,
      }));
      const value = { rows, note: "printer summary" };
      const setup = await setUp(new MemoryStorage("count-spy"), value);
      const parse = vi.spyOn(JSON, "parse");
      try {
        const handle = await setup.fold();
        await answered(setup.tool, handle, { path: "$.rows[0].id" }); // the index read first
        for (const args of [
          { path: "$.rows", search: "printer", limit: 3 },
          { path: "$.rows", search: "printer", offset: 9000, limit: 4 },
          { path: "$.rows", search: "Printer", offset: 23_990, limit: 20 },
          { path: "$.rows", search: "printer", offset: 99_999 },
          { path: "$", search: "printer", offset: 12_345, limit: 5 },
          { path: "$", search: "floor 11", offset: 480, limit: 2 },
          { path: "$", search: "agent 9", page: 40, limit: 7 },
          { path: "$", search: "second line", offset: 3 },
        ]) {
          parse.mockClear();
          expect(await answered(setup.tool, handle, args), JSON.stringify(args)).toEqual(await expected(value, args));
          const parsed = parse.mock.calls.reduce((sum, [text]) => sum + String(text).length, 0);
          expect(parsed, JSON.stringify(args)).toBeLessThan(JSON.stringify(value).length / 4);
        }
      } finally {
        parse.mockRestore();
        await setup.store.onShutdown();
      }
    },
  );
});
