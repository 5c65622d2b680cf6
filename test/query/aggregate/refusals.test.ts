// S24.1 S24.3 S7.6 what an aggregate refuses, and how: INVALID_INPUT naming the call that works, before
// anything is read (search beside it, fields beside it, a path naming one value, a member of no form, by
// and distinct together); more distinct groups than it may hold; a page of groups over the size limit
// (RESULT_SLICE_TOO_LARGE with how many fit); paging past the groups; a member read leniently (S18.4).
import { describe, expect, it } from "vitest";
import { MemoryStorage, ResultQueryError, type Owner } from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { AGGREGATE_LIMITS } from "../../../src/defaults.js";
import { countedQueries } from "../../helpers/store-queries.js";

const owner: Owner = { session: "s-aggregate-refusals", caller: "reader" };
const config = { sliceLimitBytes: 4096, preview: { chars: 500 } } as ResultHandlesConfig;
const rows = Array.from({ length: 500 }, (_, i) => ({
  id: i,
  owner: `user${i % 7}`,
  status: i % 3 ? "open" : "closed",
  priority: 1 + (i % 5),
  long: `${"x".repeat(300)}${i % 40}`,
}));

async function setUp() {
  const setup = countedQueries(new MemoryStorage("aggregate-refusals"), { config, owner });
  const handle = await setup.fold({ rows });
  const call = (args: Record<string, unknown>) => setup.tool.query({ handle, ...args }, owner);
  const refusal = async (args: Record<string, unknown>) => {
    const gets = setup.counted.gets;
    const error = await call(args).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error, JSON.stringify(args)).toBeInstanceOf(ResultQueryError);
    return {
      code: (error as ResultQueryError).code,
      message: (error as ResultQueryError).message,
      read: setup.counted.gets - gets,
    };
  };
  return { call, refusal };
}

describe("S24.1 refusals name what works", () => {
  it(
    "search with aggregate, fields with aggregate, a single value, a bad member: INVALID_INPUT, " + "nothing read",
    async () => {
      const { refusal } = await setUp();
      const search = await refusal({ path: "$.rows[*]", search: "user", aggregate: { by: "owner" } });
      expect(search).toMatchObject({ code: "INVALID_INPUT", read: 0 });
      expect(search.message).toContain("search(@.title, 'printer')"); // the filter that finds text in the nodes
      const fields = await refusal({ path: "$.rows[*]", fields: ["id"], aggregate: { by: "owner" } });
      expect(fields).toMatchObject({ code: "INVALID_INPUT", read: 0 });
      const single = await refusal({ path: "$.rows", aggregate: { by: "owner" } });
      expect(single).toMatchObject({ code: "INVALID_INPUT", read: 0 });
      expect(single.message).toContain('"$.rows[*]"');
      const dotted = await refusal({ path: "rows", aggregate: { count: true } });
      expect(dotted.message).toContain('"$.rows[*]"');
      for (const aggregate of [
        { by: "$.owner" },
        { by: "@.rows[*]" },
        { by: 3 },
        { by: "" },
        { avg: ["a"] },
        { group: "owner" },
        { count: "yes" },
        [1],
        "by owner",
      ]) {
        const bad = await refusal({ path: "$.rows[*]", aggregate });
        expect(bad, JSON.stringify(aggregate)).toMatchObject({ code: "INVALID_INPUT", read: 0 });
        expect(bad.message).toMatch(/aggregate/);
      }
      const both = await refusal({ path: "$.rows[*]", aggregate: { by: "owner", distinct: "status" } });
      expect(both.message).toContain("give by or distinct, not both");
    },
  );

  it(
    "S24.2: a sum past the largest JSON number is null and the note says why (null alone means " + "no number)",
    async () => {
      const setup = countedQueries(new MemoryStorage("aggregate-overflow"), { config, owner });
      const huge = [
        { g: "a", v: 1e308 },
        { g: "a", v: 1e308 },
        { g: "b", v: 1 },
      ];
      const handle = await setup.fold({ rows: huge });
      const whole = await setup.tool.query(
        { handle, path: "$.rows[*]", aggregate: { sum: "v", avg: "v", max: "v" } },
        owner,
      );
      expect(whole.value).toEqual({ count: 3, sum: null, avg: null, max: 1e308, skipped: { v: 0 } });
      expect(whole.note).toBe(
        'sum of "v", avg of "v" passed the largest JSON number (about 1.8e308) and are given as null',
      );
      const grouped = await setup.tool.query({ handle, path: "$.rows[*]", aggregate: { by: "g", sum: "v" } }, owner);
      expect(grouped.groups!.map((group) => group.sum)).toEqual([null, 1]);
      expect(grouped.note).toBe('sum of "v" passed the largest JSON number (about 1.8e308) and is given as null');
      const plain = await setup.tool.query({ handle, path: "$.rows[2:]", aggregate: { sum: "v" } }, owner);
      expect(plain.note).toBeUndefined();
    },
  );

  it("the answer runs the call that the refusals name", async () => {
    const { call } = await setUp();
    const groups = await call({ path: "$.rows[*]", aggregate: { by: "owner" } });
    expect(groups.groupCount).toBe(7);
    const read = await call({ path: "$.rows[*]", aggregate: '{"by":"status"}' }); // S18.4: a JSON text of the object
    expect(read.groups!.map((group) => group.key)).toEqual(["open", "closed"]);
    expect(read.note).toContain("was read as the object it spells");
  });
});

describe("S24.3 bounds: groups held, the page's size, paging", () => {
  it("a page of groups over the size limit is refused with how many fit, and that many fit", async () => {
    const { refusal, call } = await setUp();
    const tooLarge = await refusal({ path: "$.rows[*]", aggregate: { by: "long" }, limit: 40 });
    expect(tooLarge.code).toBe("RESULT_SLICE_TOO_LARGE");
    const fit = Number(/At most (\d+) groups from offset 0 fit/.exec(tooLarge.message)![1]);
    expect(fit).toBeGreaterThan(0);
    const page = await call({ path: "$.rows[*]", aggregate: { by: "long" }, limit: fit });
    expect(page.groups).toHaveLength(fit);
    expect(JSON.stringify(page).length).toBeLessThanOrEqual(config.sliceLimitBytes);
  });

  it("paging: nextOffset until the last page, and past the groups an empty page that still counts them", async () => {
    const { call } = await setUp();
    const seen: unknown[] = [];
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const page = await call({ path: "$.rows[*]", aggregate: { by: "owner" }, offset, limit: 3 });
      expect(page.groups!.length).toBeLessThanOrEqual(3);
      seen.push(...page.groups!.map((group) => group.key));
      offset = page.nextOffset;
    }
    expect(new Set(seen).size).toBe(7);
    const past = await call({ path: "$.rows[*]", aggregate: { by: "owner" }, offset: 50 });
    expect(past).toMatchObject({ groups: [], total: 500, groupCount: 7 });
    // S18.2: not an unexplained empty page
    expect(past.note).toBe("offset 50 is past the 7 groups: offset 0 gives the first");
    expect((await call({ path: "$.rows[*]", aggregate: { by: "owner" }, offset: 6 })).note).toBeUndefined();
    expect(await call({ path: "$.rows[*]", aggregate: { by: "owner" }, page: 3, limit: 3 })).toMatchObject({
      groups: [{ key: "user6" }],
      groupCount: 7,
    });
  });

  it(
    `more than ${AGGREGATE_LIMITS.groups} distinct values are refused naming a narrower call, ` + `never held`,
    async () => {
      const many = Array.from({ length: AGGREGATE_LIMITS.groups + 10 }, (_, i) => ({ id: i }));
      const setup = countedQueries(new MemoryStorage("aggregate-groups"), { config, owner });
      const handle = await setup.fold({ rows: many });
      const error = await setup.tool
        .query({ handle, path: "$.rows[*]", aggregate: { by: "id" } }, owner)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ResultQueryError);
      expect((error as ResultQueryError).code).toBe("INVALID_INPUT");
      expect((error as ResultQueryError).message).toContain(`more than ${AGGREGATE_LIMITS.groups} distinct values`);
      expect((error as ResultQueryError).message).toContain("[?@.status == 'open']");
      const counted = await setup.tool.query({ handle, path: "$.rows[*]", aggregate: { count: true } }, owner);
      expect(counted).toMatchObject({ value: { count: many.length }, total: many.length });
    },
    60_000,
  );
});
