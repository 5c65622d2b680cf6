// S14.5 refusals that say what would work, through result_query on a real SDK server and client: each
// hint names real paths of the answer, and the call it proposes is then made and answers.
import { afterAll, describe, expect, it } from "vitest";
import { answerWhole } from "../../helpers/query-shortcuts.js";
import { ResultQueryError } from "../../../src/errors.js";
import { wideObject } from "../../helpers/hostile-answers.js";
import { queryServer } from "../../helpers/query-server.js";

const tickets = (n: number) => ({
  rows: Array.from({ length: n }, (_, i) => ({
    id: `T-${i}`,
    title: `Ticket ${i}`,
    priority: i % 5,
    owner: `user${i % 7}`,
  })),
});
const dashboard = () => ({
  meta: { name: "dashboard", version: 3 },
  users: Array.from({ length: 300 }, (_, i) => ({ id: i, name: `user ${i}` })),
  events: Array.from({ length: 1200 }, (_, i) => ({ at: i, kind: i % 2 ? "click" : "view" })),
  notes: "n".repeat(3000),
});
const heavyRows = () => ({
  rows: Array.from({ length: 40 }, (_, i) => ({ id: i, body: "b".repeat(6000), tags: ["x", "y"] })),
});

describe("S14.5 refusals name the next call", async () => {
  const { fold, query, plugin } = await queryServer(
    { tickets: () => tickets(500), dashboard, heavy: heavyRows },
    { thresholdBytes: 4096 },
  );
  afterAll(() => plugin.onShutdown());
  const { handle } = await fold("tickets");

  it("a misspelt key names the key that exists, and where it is; that path answers", async () => {
    const { code, message } = await query({ handle, path: "$.rows[3].priorty" });
    expect(code).toBe("RESULT_PATH_NOT_FOUND");
    expect(message).toContain('Path "$.rows[3].priorty" names nothing');
    expect(message).toContain('$.rows[3] is an object of 4 keys ("id", "title", "priority", "owner")');
    expect(message).toContain('did you mean "priority", at $.rows[3].priority?');
    expect((await query({ handle, path: "$.rows[3].priority" })).ok).toEqual({ path: "$.rows[3].priority", value: 3 });
    // Case, a swap of two letters and a missing letter are one edit; a key far from every key gets none.
    expect((await query({ handle, path: "/rows/0/Title" })).message).toContain('did you mean "title"');
    expect((await query({ handle, path: "rows.0.onwer" })).message).toContain('did you mean "owner"');
    expect((await query({ handle, path: "$.row" })).message).toContain('did you mean "rows", at $.rows?');
    expect((await query({ handle, path: "$.rows[0].zzzzzz" })).message).not.toContain("did you mean");
  });

  it("an index past the end names the list's length", async () => {
    for (const path of ["$.rows[500]", "/rows/900", "$.rows[-501]"]) {
      const { code, message } = await query({ handle, path });
      expect(code).toBe("RESULT_PATH_NOT_FOUND");
      expect(message, path).toMatch(/\$\.rows is a list of 500 items, so \[-?\d+\] is past its end \(indexes 0 to 499/);
    }
  });

  it("a name or a step into a scalar says what is there", async () => {
    expect((await query({ handle, path: "$.rows.title" })).message).toContain(
      'keep "title" of every item with path "$.rows" and fields ["title"]',
    );
    expect((await query({ handle, path: "$.rows[0].id.length" })).message).toContain(
      "$.rows[0].id is a string of 3 characters, with nothing under it",
    );
  });

  it(
    "$ on a one-key answer names the list and a limit that fits; " + "that call answers and one more item does not fit",
    async () => {
      const { code, message } = await query({ handle });
      expect(code).toBe("RESULT_SLICE_TOO_LARGE");
      expect(message).not.toContain("Not even one key fits:");
      expect(message).toContain("a list of 500 items at $.rows");
      const limit = Number(/path "\$\.rows" and limit (\d+)/.exec(message!)?.[1]);
      expect(limit).toBeGreaterThan(10);
      const next = await query({ handle, path: "$.rows", limit });
      expect(next.ok).toMatchObject({ path: "$.rows", total: 500, offset: 0, nextOffset: limit });
      expect(next.ok.value).toHaveLength(limit);
      expect((await query({ handle, path: "$.rows", limit: limit + 1 })).code).toBe("RESULT_SLICE_TOO_LARGE");
    },
  );

  it("a large object names its largest lists and long strings with their paths and lengths", async () => {
    const dash = await fold("dashboard");
    const { code, message } = await query({ handle: dash.handle });
    expect(code).toBe("RESULT_SLICE_TOO_LARGE");
    expect(message).toContain(
      "Its largest parts: a list of 1200 items at $.events; a list of 300 " +
        "items at $.users; a string of 3000 characters at $.notes.",
    );
    const limit = Number(/path "\$\.events" and limit (\d+)/.exec(message!)?.[1]);
    expect((await query({ handle: dash.handle, path: "$.events", limit })).ok.value).toHaveLength(limit);
  });

  it("a list whose one item is over the limit names that item and its largest parts", async () => {
    const heavy = await fold("heavy");
    const { message } = await query({ handle: heavy.handle, path: "$.rows", offset: 7 });
    expect(message).toContain('Item $.rows[7] alone is over the limit: read it with path "$.rows[7]".');
    expect(message).toContain("a string of 6000 characters at $.rows[7].body");
    const limit = Number(/path "\$\.rows\[7\]\.body" and limit (\d+)/.exec(message!)?.[1]);
    expect((await query({ handle: heavy.handle, path: "$.rows[7].body", limit })).ok.value).toBe("b".repeat(limit));
  });

  it("fields [] (as form-filling clients send) means all fields", async () => {
    const all = await query({ handle, path: "$.rows", limit: 5, fields: [] });
    expect(all.ok).toEqual((await query({ handle, path: "$.rows", limit: 5 })).ok);
    expect(all.ok.value[0]).toEqual({ id: "T-0", title: "Ticket 0", priority: 0, owner: "user0" });
    expect((await query({ handle, path: "$.rows[2]", fields: [] })).ok.value).toEqual(tickets(3).rows[2]);
  });

  it("fields naming no key of any item say so and list the keys there (RESULT_PATH_NOT_FOUND)", async () => {
    const { code, message } = await query({ handle, path: "$.rows", fields: ["titel", "nope"] });
    expect(code).toBe("RESULT_PATH_NOT_FOUND");
    expect(message).toBe(
      'fields "titel", "nope" name no key of the 20 object items of $.rows from offset 0; the ' +
        'keys there are "id", "title", "priority", "owner"; did you mean "title"?',
    );
    expect((await query({ handle, path: "$.rows[1]", fields: ["zzz"] })).message).toMatch(
      /^fields "zzz" name no key of \$\.rows\[1\]; the keys there are "id", "title"/,
    );
    // Objects with no keys at all have nothing to choose from: empty objects are the exact answer.
    expect((await answerWhole({ rows: [{}, {}] }, { handle: "h", path: "$.rows", fields: ["a"] }, 4096)).value).toEqual(
      [{}, {}],
    );
    // One field that exists is enough: the others are left out, as before.
    expect((await query({ handle, path: "$.rows", limit: 2, fields: ["id", "nope"] })).ok.value).toEqual([
      { id: "T-0" },
      { id: "T-1" },
    ]);
  });

  it("messages stay short whatever the arguments (S7.10)", async () => {
    const huge = "p".repeat(60_000); // a path of it stays under MAX_PATH_CHARS: parsed, and not found
    const cases: [Record<string, unknown>, string][] = [
      [{ path: `$.rows[0].${huge}` }, "RESULT_PATH_NOT_FOUND"],
      [{ path: "$.rows", fields: [huge, huge] }, "RESULT_PATH_NOT_FOUND"],
      [{ path: `$.${huge}` }, "RESULT_PATH_NOT_FOUND"],
      [{ path: `$.${huge}${huge}` }, "INVALID_INPUT"], // over MAX_PATH_CHARS: refused before it is parsed (S21.2)
    ];
    for (const [args, expected] of cases) {
      const { code, message } = await query({ handle, ...args });
      expect(code).toBe(expected);
      expect(message!.length).toBeLessThan(1000);
    }
  });
});

describe("S14.5 the nearest key of an object of a million keys, in bounded work", () => {
  it("names a misspelt key far beyond the first keys compared, and says how many keys there are", async () => {
    const wide = wideObject(1_000_000);
    const refusal = async (path: string) => {
      const started = performance.now();
      try {
        await answerWhole(wide, { handle: "h", path }, 16384);
      } catch (error) {
        return { message: (error as ResultQueryError).message, ms: performance.now() - started };
      }
      throw new Error("not refused");
    };
    // For scale: listing the keys, which the refusal does once, to count and show them.
    const keysMs = (() => {
      const started = performance.now();
      Object.keys(wide);
      return performance.now() - started;
    })();
    for (const [path, near] of [
      ["$.key_000007x", "key_000007"],
      ["$.key_9999999", "key_999999"],
      ["$.kye_987654", "key_987654"],
      ["$.KEY_555555", "key_555555"],
    ] as const) {
      const { message, ms } = await refusal(path);
      console.log(
        `nearest key of ${path} among 1,000,000 keys: ${ms.toFixed(0)} ms (Object.keys alone: ${keysMs.toFixed(0)} ms)`,
      );
      expect(message).toContain("$ is an object of 1000000 keys (");
      expect(message).toContain(", and 999980 more)");
      expect(message).toContain(`did you mean "${near}"`);
      expect(ms).toBeLessThan(Math.max(2000, keysMs * 4));
    }
    const far = await refusal(`$.${"q".repeat(60)}`);
    expect(far.message).not.toContain("did you mean");
    console.log(`a 60-character name near no key: ${far.ms.toFixed(0)} ms`);
  }, 60_000);
});
