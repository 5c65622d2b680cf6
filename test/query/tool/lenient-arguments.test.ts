// S18.4 forgiving what models and form-filling clients send, and saying so: search as a number or boolean,
// fields as one comma-separated string, offset/limit/page as digit strings are read, each with a note in
// the answer; anything else stays INVALID_INPUT naming what arrived. Through a real SDK client and server.
import { afterAll, describe, expect, it } from "vitest";
import { queryServer } from "../../helpers/query-server.js";

const rows = Array.from({ length: 300 }, (_, i) => ({
  id: `T-${i}`,
  title: `Ticket ${i}`,
  code: 1000 + i,
  open: i % 2 === 0,
}));

describe("S18.4 lenient arguments", async () => {
  const { fold, query, plugin } = await queryServer({ rows: () => ({ rows }) }, { thresholdBytes: 4096 });
  afterAll(() => plugin.onShutdown());
  const { handle } = await fold("rows");

  it("search 19 is searched as the text 19, and the answer says so", async () => {
    const typed = await query({ handle, search: 1019, limit: 2 });
    const text = await query({ handle, search: "1019", limit: 2 });
    const { note, ...rest } = typed.ok;
    expect(note).toBe('search 1019 was read as the text "1019"');
    expect(rest).toEqual(text.ok);
    expect(rest.total).toBeGreaterThan(0);
    expect(JSON.parse(typed.result.content![0]!.text!).note).toBe(note); // in the text as well
    expect((await query({ handle, path: "$.rows", search: true, limit: 1 })).ok).toMatchObject({
      total: 150,
      note: 'search true was read as the text "true"',
    });
  });

  it("fields as one comma-separated string is split", async () => {
    const { ok } = await query({ handle, path: "$.rows", limit: 2, fields: "id, title" });
    expect(ok).toEqual({
      path: "$.rows",
      value: [
        { id: "T-0", title: "Ticket 0" },
        { id: "T-1", title: "Ticket 1" },
      ],
      total: 300,
      offset: 0,
      nextOffset: 2,
      note: 'fields "id, title" was read as the list ["id","title"]',
    });
  });

  it("offset, limit and page as strings of digits are numbers; every reading is noted, in order", async () => {
    const { ok } = await query({ handle, path: "$.rows", page: "3", limit: "5", fields: ["id"] });
    expect(ok).toMatchObject({
      offset: 10,
      nextOffset: 15,
      value: [{ id: "T-10" }, { id: "T-11" }, { id: "T-12" }, { id: "T-13" }, { id: "T-14" }],
    });
    expect(ok.note).toBe('limit "5" was read as the number 5; page "3" was read as the number 3');
    expect((await query({ handle, path: "$.rows", offset: "298" })).ok).toMatchObject({
      offset: 298,
      total: 300,
      note: 'offset "298" was read as the number 298',
    });
  });

  it("a filter that selects nothing: the reading note comes first, then why it is empty (S18.2)", async () => {
    const { ok } = await query({ handle, path: "$.rows[?@.priority > 3]", limit: "5" });
    expect(ok.note).toBe(
      'limit "5" was read as the number 5; no item of $.rows has "priority"; its items have id, title, code, open',
    );
  });

  it.each([
    [{ search: { text: "x" } }, "search must be a string of 1 to 200 characters, the text to find (got an object)"],
    [{ search: ["x"] }, "search must be a string of 1 to 200 characters, the text to find (got a list)"],
    [{ search: null }, "search must be a string of 1 to 200 characters, the text to find (got null)"],
    [{ limit: "five" }, 'limit must be a whole number from 1 to 100000 (got the text "five")'],
    [{ limit: "2.5" }, 'limit must be a whole number from 1 to 100000 (got the text "2.5")'],
    [{ offset: "-1" }, 'offset must be a whole number from 0 up (got the text "-1")'],
    [{ limit: "0" }, 'limit must be a whole number from 1 to 100000 (got the text "0")'],
    [{ page: true }, "page must be a whole number from 1 up (got a boolean)"],
    [{ fields: 7 }, 'fields must be a list of key names, such as ["id", "title"] (got a number)'],
    [{ fields: [1, 2] }, 'fields must be a list of key names, such as ["id", "title"] (got a list)'],
    [{ path: 5 }, 'path must be a string such as "$.rows" or "/rows/0" (got a number)'],
  ])("anything else stays INVALID_INPUT, naming what arrived: %j", async (args, message) => {
    const refused = await query({ handle, ...args });
    expect(refused.code).toBe("INVALID_INPUT");
    expect(refused.message).toBe(message);
    expect(refused.result.content![0]!.text).toBe(`INVALID_INPUT: ${message}`);
  });
});
