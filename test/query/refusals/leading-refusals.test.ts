// S25.1, S25.3 refusals and answers that lead, through a real SDK client and server: an I-Regexp given a flag
// group is refused with INVALID_INPUT naming the forms that work (never an empty answer), and those forms
// answer; `=` for `==` is named in words with the query that works, no parser internals; search with fields
// names the filter that returns those fields, and that filter answers; a first page of a longer nodelist
// says limit 1 gives the count; the description does not present path "$" as the first call.
import { afterAll, describe, expect, it } from "vitest";
import { queryServer } from "../../helpers/query-server.js";

const value = {
  rows: Array.from({ length: 60 }, (_, i) => ({
    id: `T-${i}`,
    title: i % 4 === 0 ? `Printer ${i} jammed` : `Laptop ${i} slow`,
    status: i % 3 ? "open" : "closed",
  })),
};
const printers = value.rows.filter((row) => /printer/i.test(row.title));

describe("S25.1, S25.3 through a real client", async () => {
  const { client, fold, query, plugin } = await queryServer({ tickets: () => value }, { thresholdBytes: 2048 });
  afterAll(() => plugin.onShutdown());
  const { handle } = await fold("tickets");

  it("S25.1 a flag group is refused with the forms that work; each of them answers", async () => {
    for (const path of ["$.rows[?match(@.title, '(?i)printer.*')]", "$.rows[?search(@.title, '(?i:printer)')]"]) {
      const refused = await query({ handle, path });
      expect(refused.code, path).toBe("INVALID_INPUT");
      expect(refused.message).toContain("which I-Regexp (RFC 9485) does not have");
      expect(refused.message).toContain("[Pp]rinter");
      expect(refused.message).toContain("search argument");
    }
    const classed = await query({ handle, path: "$.rows[?search(@.title, '[Pp]rinter')]", limit: 1 });
    expect(classed.ok.total).toBe(printers.length);
    const searched = await query({ handle, path: "$.rows", search: "printer" });
    expect(searched.ok.total).toBe(printers.length);
    // A class holding "(?i)" is a valid I-Regexp: never refused.
    expect((await query({ handle, path: "$.rows[?search(@.title, '[(?i)]')]" })).code).toBeUndefined();
  });

  it("S25.3 = for == is named in words, with the query that works, and no parser internals", async () => {
    const refused = await query({ handle, path: "$.rows[?@.status = 'open']" });
    expect(refused.code).toBe("RESULT_PATH_NOT_FOUND");
    expect(refused.message).toBe(
      `Path "$.rows[?@.status = 'open']" is not a valid query: a filter ` +
        `compares with ==, not =. Write "$.rows[?@.status == 'open']".`,
    );
    expect((await query({ handle, path: "$.rows[?@.status === 'open']" })).message).toContain(
      "not ===. Write \"$.rows[?@.status == 'open']\"",
    );
    expect((await query({ handle, path: "$.rows[?@.status == 'open']", limit: 1 })).ok.total).toBe(
      value.rows.filter((row) => row.status === "open").length,
    );
    // A "=" inside a string is no comparison; other syntax errors say where, in words.
    const other = await query({ handle, path: "$.rows[?@.title == 'a=b' && ]" });
    expect(other.message).not.toMatch(/\('.*':\d+\)/);
    expect(other.message).toMatch(/at character \d+/);
  });

  it("S25.3 search with fields names the filter that returns those fields; that filter answers them", async () => {
    const refused = await query({ handle, path: "$.rows", search: "printer", fields: ["id", "status"] });
    expect(refused.code).toBe("INVALID_INPUT");
    // The filter searches where the hits are (the titles), not the fields asked for.
    expect(refused.message).toContain("The text is in @.title of the items of $.rows");
    const call = JSON.parse(/filter: (\{.*\})$/.exec(refused.message!)![1]!) as Record<string, unknown>;
    const answer = await query({ handle, ...call, limit: 100 });
    expect(answer.ok.value).toEqual(printers.map((row) => ({ id: row.id, status: row.status })));
    // Nothing found: no filter to name, but the way to find one.
    expect((await query({ handle, path: "$.rows", search: "zzz", fields: ["id"] })).message).toContain(
      "Search without fields first",
    );
  });

  it("S25.3 a first page of a longer nodelist says limit 1 gives the count; limit 1 does", async () => {
    const open = value.rows.filter((row) => row.status === "open").length;
    const first = await query({ handle, path: "$.rows[?@.status == 'open'].id" });
    expect(first.ok.total).toBe(open);
    expect(first.ok.note).toBe(
      `total is the count of all ${open} nodes: a call with limit 1 answers it without reading them`,
    );
    const count = await query({ handle, path: "$.rows[?@.status == 'open'].id", limit: 1 });
    expect(count.ok).toMatchObject({ total: open, value: [value.rows.find((row) => row.status === "open")!.id] });
    expect(count.ok).not.toHaveProperty("note");
    expect((await query({ handle, path: "$.rows[?@.status == 'open'].id", offset: 20 })).ok).not.toHaveProperty("note");
  });

  it('S25.3 the description does not present path "$" as the first call, and says limit 1 counts', async () => {
    const { tools } = await client.listTools();
    const description = tools.find((tool) => tool.name === "result_query")!.description!;
    expect(description).not.toMatch(/path: "\$" \(the whole answer, default\)/);
    expect(description).toContain("(limit 1: the count)");
  });
});
