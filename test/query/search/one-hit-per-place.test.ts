// S14.4 one hit per place (review): a union naming the same leaf twice ($['t','t'], $.a[0,0], $[*,*])
// searched it twice, answering the same path twice and counting it twice in total; a leaf is one place,
// whether under a container searched before or named before itself.
import { describe, expect, it } from "vitest";
import { MemoryStorage, ResultHandleStore, ResultQueryTool, type Owner } from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../../src/plugin/options.js";
import { answered, wholeAnswer } from "../../helpers/store-queries.js";

const config = { sliceLimitBytes: 16_384, preview: { chars: 500 } } as ResultHandlesConfig;
const owner: Owner = { session: "s-places", caller: "reader" };
const value = { t: "hello", a: ["hello", { x: "hello" }, "hello"], o: { k: "hello", m: "HELLO there" }, n: 5 };

describe("S14.4 a search under a nodelist answers each place once", () => {
  it.each([
    ["$['t','t']", ["$.t"]],
    ["$.a[0,0,-3]", ["$.a[0]"]],
    ["$.a[0,2,0]", ["$.a[0]", "$.a[2]"]],
    ["$[*,*]", ["$.t", "$.a[0]", "$.a[1].x", "$.a[2]", "$.o.k", "$.o.m"]],
    ["$.o['k','m','k']", ["$.o.k", "$.o.m"]],
    ["$..*", ["$.t", "$.a[0]", "$.a[1].x", "$.a[2]", "$.o.k", "$.o.m"]],
    ["$..[?@ == 'hello', ?@ == 'hello']", ["$.t", "$.a[0]", "$.a[2]", "$.a[1].x", "$.o.k"]],
  ])("%s", async (path, places) => {
    const args = { path, search: "hello" };
    const whole = (await wholeAnswer(value, args, config)) as { value: { path: string }[]; total: number };
    expect(whole.value.map((hit) => hit.path)).toEqual(places);
    expect(whole.total).toBe(places.length);
    // The same through the tool over a stored answer.
    const store = new ResultHandleStore(new MemoryStorage("places"), 60);
    const tool = new ResultQueryTool(() => [{ config, store: async () => store }]);
    const handle = store.newHandle();
    await store.save(handle, value, owner);
    expect(await answered(tool, handle, args, owner)).toEqual(whole);
    await store.onShutdown();
  });
});
