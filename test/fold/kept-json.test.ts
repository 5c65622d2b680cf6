// S26.6: preview and shape describe the JSON that is kept. Rows holding a Date (or any value with toJSON)
// showed `{}` in preview and shape while the store kept their ISO strings. The oracle is the same fold of
// the kept JSON itself (JSON.parse of JSON.stringify), plus the ISO strings written out by hand.
import { afterAll, describe, expect, it } from "vitest";
import { ResultHandlesPlugin, ResultQueryTool, foldToolResult } from "mcp-result-handles";

const owner = { session: "s-kept-json", caller: "alice@example.test" };
const plugin = ResultHandlesPlugin.init({ thresholdBytes: 2048, storage: { type: "memory" } });
const tool = new ResultQueryTool(() => [plugin]);
afterAll(() => plugin.onShutdown());

class Money {
  constructor(
    readonly cents: number,
    readonly currency: string,
  ) {}
  toJSON(key: string) {
    return { amount: (this.cents / 100).toFixed(2), currency: this.currency, under: key };
  }
}

const at = (i: number) => new Date(Date.UTC(2026, 0, 1 + (i % 28), 12, 0, i % 60));
const rows = (n: number) =>
  Array.from({ length: n }, (_, id) => ({ id, at: at(id), price: new Money(1000 + id, "EUR") }));

async function fold(value: Record<string, unknown>) {
  const folded = await foldToolResult(plugin, { toolName: "report", result: { structuredContent: value }, owner });
  return folded.structuredContent as { preview: unknown; shape: unknown; handle: string };
}

describe("S26.6 preview and shape from the kept JSON", () => {
  it(
    "a Date and a class with toJSON appear as their JSON, at every " + "depth, the same as the fold of the JSON itself",
    async () => {
      const value = { when: at(3), rows: rows(200), nested: { list: [[new Money(5, "USD")], [at(1)]] } };
      const live = await fold(value);
      const kept = await fold(JSON.parse(JSON.stringify(value)) as Record<string, unknown>);
      expect(live.preview).toEqual(kept.preview);
      expect(live.shape).toEqual(kept.shape);
      const preview = live.preview as {
        when: unknown;
        rows: { at: unknown; price: unknown }[];
        nested: { list: unknown[][] };
      };
      expect(preview.when).toBe("2026-01-04T12:00:03.000Z");
      expect(preview.rows[0]).toEqual({
        id: 0,
        at: "2026-01-01T12:00:00.000Z",
        price: { amount: "10.00", currency: "EUR", under: "price" },
      });
      // toJSON gets its index, as a string
      expect(preview.nested.list[0]).toEqual([{ amount: "0.05", currency: "USD", under: "0" }]);
      const shape = live.shape as { keys: { when: unknown; rows: { items: { keys: Record<string, unknown> } } } };
      expect(shape.keys.when).toEqual({ type: "string", length: 24 });
      expect(shape.keys.rows.items.keys.at).toEqual({ type: "string", length: 24 });
      expect(shape.keys.rows.items.keys.price).toMatchObject({
        type: "object",
        keys: { amount: { type: "string" }, currency: { type: "string" }, under: { type: "string" } },
      });
      // What the preview shows is what a query reads back.
      const read = await tool.handler({ handle: live.handle, path: "$.rows[0]" }, owner);
      expect(read.structuredContent).toMatchObject({ value: (preview.rows as unknown[])[0] });
    },
  );

  it("toJSON runs once per value in a fold, however many previews the fit tries", async () => {
    let calls = 0;
    const counted = { toJSON: () => (calls++, "counted") };
    await fold({ first: counted, rows: rows(300) });
    expect(calls).toBe(2); // once for the preview and shape, once for the kept JSON (the serialiser's own call)
  });

  it("a toJSON giving undefined leaves the member out, as JSON does", async () => {
    const value = { gone: { toJSON: () => undefined }, rows: rows(100) };
    const live = await fold(value);
    expect(Object.keys(live.preview as object)).toEqual(["rows"]);
    expect(Object.keys((live.shape as { keys: object }).keys)).toEqual(["rows"]);
  });

  it("a wide object's key count is that of its kept JSON, members JSON leaves out not counted (S26.1)", async () => {
    // The serialisation counts a wide object's members as it writes them, and the shape takes its count (it
    // counted them again, member by member): members left out by JSON (undefined, a function, a toJSON giving
    // undefined) anywhere among them, a Date among them, and the same fold of the kept JSON as the oracle.
    const map: Record<string, unknown> = {};
    for (let i = 0; i < 5000; i++)
      map[`m${i}`] =
        i % 7 === 0
          ? undefined
          : i % 11 === 0
            ? () => i
            : i % 13 === 0
              ? { toJSON: () => undefined }
              : i % 3
                ? i
                : at(i);
    const value = { map, rows: rows(20) };
    const live = await fold(value);
    const kept = await fold(JSON.parse(JSON.stringify(value)) as Record<string, unknown>);
    expect(live.shape).toEqual(kept.shape);
    const keyCount = Object.keys(JSON.parse(JSON.stringify(map)) as object).length;
    expect(keyCount).toBeLessThan(4500);
    expect(live.shape).toMatchObject({ keys: { map: { type: "object", keyCount } } });
  });
});
