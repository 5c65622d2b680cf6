// S14.4 `search` through result_query on a real SDK server and client: rows, a 3000-line log, keys,
// paging, argument refusals, 3000-deep answers, answers stored in pieces (memory and SQLite), and hostile needles.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { serverLogText } from "../../../playground/demo-tools.js";
import { deepList, deepObject } from "../../helpers/hostile-answers.js";
import { queryServer } from "../../helpers/query-server.js";

const OWNERS = ["ana", "Bo", "cyd"];
const rows = (n: number) => ({
  rows: Array.from({ length: n }, (_, i) => ({
    id: `T-${i}`,
    title: `Ticket ${i}`,
    owner: OWNERS[i % 3],
    open: i % 2 === 0,
    amount: 1000 + i,
  })),
});

describe("S14.4 search over rows", async () => {
  const { fold, query, plugin } = await queryServer({ rows: () => rows(500) });
  afterAll(() => plugin.onShutdown());
  const { handle } = await fold("rows");
  const titles = rows(500).rows.map((row, i) => ({ path: `$.rows[${i}].title`, text: row.title }));

  it("finds every value containing the text, case-insensitively, as { path, text }, paged by 20", async () => {
    const expected = titles.filter((hit) => hit.text.toLowerCase().includes("ticket 4"));
    const { ok } = await query({ handle, search: "TICKET 4" });
    expect(ok).toEqual({ path: "$", value: expected.slice(0, 20), total: expected.length, offset: 0, nextOffset: 20 });
    const third = await query({ handle, search: "ticket 4", page: 3, limit: 20 });
    expect(third.ok).toMatchObject({ value: expected.slice(40, 60), total: expected.length, offset: 40 });
    const last = await query({ handle, search: "ticket 4", offset: expected.length - 3 });
    expect(last.ok.value).toEqual(expected.slice(-3));
    expect(last.ok).not.toHaveProperty("nextOffset");
  });

  it("searches under path only, and a path that names nothing is refused as without search", async () => {
    const { ok } = await query({ handle, path: "$.rows[42]", search: "42" });
    expect(ok.value).toEqual([
      { path: "$.rows[42].id", text: "T-42" },
      { path: "$.rows[42].title", text: "Ticket 42" },
      { path: "$.rows[42].amount", text: "1042" },
    ]);
    expect((await query({ handle, path: "$.rows[500]", search: "x" })).code).toBe("RESULT_PATH_NOT_FOUND");
  });

  it("matches keys (key: true, the path of the member), numbers and booleans by their JSON text", async () => {
    const keys = await query({ handle, search: "OWN", limit: 3 });
    expect(keys.ok.value).toEqual([
      { path: "$.rows[0].owner", text: "owner", key: true },
      { path: "$.rows[1].owner", text: "owner", key: true },
      { path: "$.rows[2].owner", text: "owner", key: true },
    ]);
    expect(keys.ok.total).toBe(500);
    const booleans = await query({ handle, path: "$.rows", search: "true", limit: 1 });
    expect(booleans.ok).toMatchObject({
      path: "$.rows",
      value: [{ path: "$.rows[0].open", text: "true" }],
      total: 250,
    });
    expect((await query({ handle, search: "1499" })).ok.value).toEqual([{ path: "$.rows[499].amount", text: "1499" }]);
  });

  it("nothing found is an empty result, not an error", async () => {
    expect((await query({ handle, search: "no such text" })).ok).toEqual({
      path: "$",
      value: [],
      total: 0,
      offset: 0,
      note: expect.stringContaining('contains "no such text"'),
    }); // S18.2
  });

  it("refuses a search that is not a string of 1 to 200 characters, or given with fields (INVALID_INPUT)", async () => {
    for (const search of [{ text: "a" }, "", "x".repeat(201), null, ["a"]]) {
      // a number is searched as its text (S18.4)
      const { code, message } = await query({ handle, search });
      expect(code, JSON.stringify(search)).toBe("INVALID_INPUT");
      expect(message).toMatch(/search must be a string of 1 to 200 characters/);
    }
    expect((await query({ handle, search: "a", fields: ["id"] })).code).toBe("INVALID_INPUT");
    // fields [] is what form-filling clients send: it means no choice of fields, so it may stand beside search.
    expect((await query({ handle, search: "T-7", fields: [] })).ok.total).toBe(11);
    expect((await query({ handle, search: "x".repeat(200) })).ok.total).toBe(0);
  });
});

describe("S14.7 where the model sees search", async () => {
  const { client, plugin } = await queryServer({ rows: () => rows(500) });
  afterAll(() => plugin.onShutdown());

  it("the tool lists search (1 to 200 characters) with an example in its description", async () => {
    const tool = (await client.listTools()).tools.find((t) => t.name === "result_query")!;
    expect(tool.description).toContain('search: "timeout"');
    expect(tool.inputSchema.properties).toMatchObject({ search: { type: "string", minLength: 1, maxLength: 200 } });
  });

  it("the folded answer's hint mentions filtering and search", async () => {
    const folded = (await client.callTool({ name: "rows", arguments: {} })) as { content: { text: string }[] };
    // S18.1: examples of this answer (its rows have owner, not status), each a call to copy.
    expect(folded.content[1]!.text).toMatch(
      /Filter with JSONPath: result_query \{"handle":"[^"]+","path":"\$\.rows\[\?@\.owner == 'ana'\]"\}\. Find text: result_query \{"handle":"[^"]+","search":"Ticket"\}/,
    );
  });
});

describe("S14.4 search over a multi-line log (3000 lines)", async () => {
  const log = serverLogText(3000);
  const lines = log.split("\n");
  const longLine = `${"lorem ipsum ".repeat(1000)}NEEDLE in the middle${" dolor sit".repeat(1000)}`;
  const { fold, query, plugin } = await queryServer({
    log: () => log,
    long: () => `short first line\n${longLine}\nlast`,
  });
  afterAll(() => plugin.onShutdown());
  const { handle } = await fold("log");

  it("one hit per matching line, with line (1-based) and the offset where its text starts", async () => {
    const warnLines = lines.flatMap((text, i) => (text.includes("WARN") ? [{ line: i + 1, text }] : []));
    expect(warnLines).toHaveLength(750);
    const { ok } = await query({ handle, search: "warn", limit: 5 });
    expect(ok).toMatchObject({ path: "$", total: 750, offset: 0, nextOffset: 5 });
    expect(ok.value.map((hit: { line: number; text: string }) => ({ line: hit.line, text: hit.text }))).toEqual(
      warnLines.slice(0, 5),
    );
    for (const hit of ok.value) {
      expect(hit.path).toBe("$");
      expect(log.slice(hit.offset, hit.offset + hit.text.length)).toBe(hit.text);
    }
    // Paging through hits: the last page, and the offset of a hit reads the log on from there.
    const end = await query({ handle, search: "warn", offset: 745, limit: 10 });
    expect(end.ok.value.map((hit: { line: number }) => hit.line)).toEqual(warnLines.slice(745).map((w) => w.line));
    expect(end.ok).not.toHaveProperty("nextOffset");
    const hit = end.ok.value[4];
    expect((await query({ handle, offset: hit.offset, limit: hit.text.length })).ok.value).toBe(hit.text);
  });

  it("a line that matches twice is one hit; a match on the first and the last line is found", async () => {
    expect((await query({ handle, search: "E" })).ok.total).toBe(3000);
    const request = await query({ handle, search: "request 1000 " });
    expect(request.ok.value).toEqual([{ path: "$", line: 1, text: lines[0], offset: 0 }]);
    const last = await query({ handle, search: lines[2999]!.slice(0, 30) });
    expect(last.ok.value).toEqual([
      { path: "$", line: 3000, text: lines[2999], offset: log.length - lines[2999]!.length },
    ]);
  });

  it("cuts a long line to 2 × preview.chars characters around the match", async () => {
    const long = await fold("long");
    const { ok } = await query({ handle: long.handle, search: "needle" });
    const [hit] = ok.value;
    expect(hit.line).toBe(2);
    expect(hit.text.length).toBeLessThanOrEqual(80); // preview.chars is 40 on this server
    expect(hit.text).toContain("NEEDLE in the middle");
    const whole = `short first line\n${longLine}\nlast`;
    expect(whole.slice(hit.offset, hit.offset + hit.text.length)).toBe(hit.text);
  });
});

describe("S14.4 search over answers 3000 levels deep (iterative: no stack overflow)", async () => {
  const { fold, query, plugin } = await queryServer(
    { object: () => deepObject(3000), list: () => deepList(3000) },
    { thresholdBytes: 262_144 },
  );
  afterAll(() => plugin.onShutdown());

  it("finds the deepest value of an object and of a list, with its canonical path", async () => {
    const object = await query({ handle: (await fold("object")).handle, search: "node 2999" });
    expect(object.ok.total).toBe(1);
    expect(object.ok.value[0]).toEqual({ path: `$${".child".repeat(2999)}.name`, text: "node 2999" });
    const list = await query({ handle: (await fold("list")).handle, search: "ITEM 2999 " });
    // The item's text (110 characters) is cut to 2 × preview.chars around the match; offset says where it starts.
    expect(list.ok.value).toEqual([
      { path: `$${"[2]".repeat(2999)}[1]`, text: `item 2999 ${"l".repeat(70)}`, offset: 0 },
    ]);
    expect((await query({ handle: (await fold("object")).handle, search: "level" })).ok.total).toBe(3000);
  });
});

describe("S14.4 S8.5 search over an answer stored in pieces", () => {
  const dir = mkdtempSync(join(tmpdir(), "search-pieces-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // About 3 MB: several pieces of 512 KB. The needle sits in the first, a middle and the last row.
  const answer = () => {
    const value = {
      meta: { note: "several pieces" },
      rows: Array.from({ length: 24_000 }, (_, i) => ({ id: i, text: `row ${i} ${"x".repeat(100)}` })),
    };
    for (const i of [3, 12_345, 23_999]) value.rows[i]!.text = `row ${i} has the Needle-7f3`;
    return value;
  };
  const expected = [3, 12_345, 23_999].map((i) => ({ path: `$.rows[${i}].text`, text: `row ${i} has the Needle-7f3` }));

  for (const storage of ["memory", "sqlite"] as const) {
    it(`${storage}: finds hits in every piece, under $ and under $.rows`, async () => {
      const path = join(dir, "answers.sqlite");
      const { fold, query, plugin } = await queryServer(
        { big: answer },
        { storage: storage === "memory" ? { type: "memory" } : { type: "sqlite", sqlite: { path } } },
      );
      try {
        const { handle, bytes } = await fold("big");
        expect(bytes).toBeGreaterThan(2_500_000);
        if (storage === "sqlite") {
          const db = new Database(path, { readonly: true });
          const records = (db.prepare("SELECT count(*) AS n FROM result_handles").get() as { n: number }).n;
          db.close();
          expect(records, "the answer is kept as several records").toBeGreaterThan(3);
        }
        expect((await query({ handle, search: "needle-7F3" })).ok).toEqual({
          path: "$",
          value: expected,
          total: 3,
          offset: 0,
        });
        expect((await query({ handle, path: "$.rows", search: "needle-7f3", offset: 1 })).ok).toEqual({
          path: "$.rows",
          value: expected.slice(1),
          total: 3,
          offset: 1,
        });
        expect((await query({ handle, path: "$.meta", search: "pieces" })).ok.value).toEqual([
          { path: "$.meta.note", text: "several pieces" },
        ]);
        // S14.5 on pieces: the planner reads no item for an index past the end, and the refusal still knows the length.
        expect((await query({ handle, path: "$.rows[24000]" })).message).toContain(
          "$.rows is a list of 24000 items, so [24000] is past its end",
        );
        expect((await query({ handle, path: "$.rows[7].txt" })).message).toContain(
          'did you mean "text", at $.rows[7].text?',
        );
      } finally {
        await plugin.onShutdown();
      }
    }, 30_000);
  }
});

describe("S14.4 S16 hostile searches answer in bounded time", () => {
  it("a 200-character needle over a 10 MB answer (rows, and one 10 MB text)", async () => {
    const { fold, query, plugin } = await queryServer({
      rows: () => ({ rows: Array.from({ length: 100_000 }, (_, i) => ({ id: i, text: "a".repeat(90) + (i % 10) })) }),
      text: () => "a".repeat(10_000_000),
    });
    try {
      const parseMs = (value: unknown) => {
        const text = JSON.stringify(value);
        const started = performance.now();
        JSON.parse(text);
        return performance.now() - started;
      };
      const tenMegabytes = {
        rows: Array.from({ length: 100_000 }, (_, i) => ({ id: i, text: "a".repeat(90) + (i % 10) })),
      };
      console.log(`for comparison, JSON.parse of the 10 MB rows: ${parseMs(tenMegabytes).toFixed(0)} ms`);
      for (const tool of ["rows", "text"]) {
        const { handle, bytes } = await fold(tool);
        expect(bytes).toBeGreaterThan(9_000_000);
        for (const needle of ["a".repeat(199) + "b", "b" + "a".repeat(199), "ab".repeat(100)]) {
          const started = performance.now();
          const { ok } = await query({ handle, search: needle });
          const ms = performance.now() - started;
          expect(ok.total).toBe(0);
          console.log(
            `search of ${needle.slice(0, 4)}… (200 chars) over ${tool} (${bytes} bytes): ${ms.toFixed(0)} ms`,
          );
          expect(ms).toBeLessThan(5000);
        }
      }
      const { handle } = await fold("rows");
      const started = performance.now();
      const every = await query({ handle, search: "A" });
      console.log(
        `search matching all 100,000 texts of 10 MB: ` +
          `${(performance.now() - started).toFixed(0)} ms, ${JSON.stringify(every.ok).length} bytes answered`,
      );
      expect(every.ok).toMatchObject({ total: 100_000, nextOffset: 20 }); // counted, but only a page of texts built
      expect(every.ok.value).toHaveLength(20);
    } finally {
      await plugin.onShutdown();
    }
  }, 60_000);
});
