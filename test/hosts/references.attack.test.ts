// S15.1, S15.2, S16.1 attacked from the outside: a real McpServer over real HTTP, users by bearer token, and
// a bystander client whose tools/list is timed meanwhile. Figures are printed for the hardening report.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  figures,
  startAttackBench,
  whileServing,
  handleOf,
  textOf,
  round,
  type AttackBench,
} from "../helpers/attack-bench.js";

let bench: AttackBench;
beforeAll(async () => {
  bench = await startAttackBench();
});
afterAll(async () => {
  await bench.close();
});
const rowsOf = (n: number) => ({ rows: Array.from({ length: n }, (_, i) => ({ id: i, title: `Row number ${i}` })) });
async function folded(answer: unknown): Promise<string> {
  bench.answer.next = answer;
  return handleOf(await bench.alice("report"));
}
/** A `tools/call` as raw JSON text over HTTP (a client library cannot even build arguments a million levels deep). */
async function rawCall(token: string, name: string, argsJson: string): Promise<{ status: number; text: string }> {
  const response = await fetch(bench.http.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
      "mcp-protocol-version": "2025-11-25",
    },
    body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${name}","arguments":${argsJson}}}`,
  });
  return { status: response.status, text: await response.text() };
}

describe("S16.1 one reference repeated many times cannot multiply the work of the tool's input check", () => {
  it(
    "1000 places naming one 10,000-row list (a 50 KB request): refused " +
      "at once, nothing run; 1000 small items still pass",
    async () => {
      const handle = await folded(rowsOf(10_000));
      const before = bench.runs.lists;
      const lists = Array.from({ length: 1000 }, () => ({ $result: handle, path: "$.rows" }));
      const rss = process.memoryUsage().rss;
      const attack = await whileServing(bench.bystander, () => bench.alice("merge_lists", { lists }));
      const grew = (process.memoryUsage().rss - rss) / 2 ** 20;
      console.log(
        `1000 x a 10,000-row list by reference: ${figures(attack)}, rss ` +
          `+${round(grew)} MiB; answer ${textOf(attack.value).length} chars`,
      );
      expect(textOf(attack.value)).toMatch(/^INVALID_INPUT: This call repeats \{ "\$result": … \} references/);
      expect(textOf(attack.value).length).toBeLessThan(500);
      expect(bench.runs.lists).toBe(before);
      expect(attack.ms).toBeLessThan(1000);
      // Repeats that stay small are data like any other: ten copies of the list, and 1000 of one row.
      const ten = await bench.alice("merge_lists", {
        lists: Array.from({ length: 10 }, () => ({ $result: handle, path: "$.rows" })),
      });
      expect(textOf(ten)).toBe("100000");
      const rows = await bench.alice("count_items", {
        items: Array.from({ length: 1000 }, () => ({ $result: handle, path: "$.rows[7]" })),
      });
      expect(rows.structuredContent).toMatchObject({ count: 1000, idSum: 7000 });
    },
  );

  it("one reference whose union names one list 500 times is counted as 500 places: refused, nothing run", async () => {
    const handle = await folded(rowsOf(10_000));
    const before = bench.runs.lists;
    const path = "$['rows'" + ",'rows'".repeat(499) + "]"; // a 3.5 KB path, one reference
    const attack = await whileServing(bench.bystander, () =>
      bench.alice("merge_lists", { lists: { $result: handle, path } }),
    );
    console.log(`a union naming a 10,000-row list 500 times: ${figures(attack)}`);
    expect(textOf(attack.value)).toMatch(/^INVALID_INPUT: This call repeats \{ "\$result": … \} references/);
    expect(bench.runs.lists).toBe(before);
    expect(attack.ms).toBeLessThan(1000);
  });
});

describe("S15.2 references that must not resolve, and cannot hurt", () => {
  it("another user's handle: RESULT_HANDLE_NOT_FOUND, exactly result_query's text, the tool not run", async () => {
    const handle = await folded(rowsOf(300));
    const before = bench.runs.count;
    const refused = await bench.bob("count_items", { items: { $result: handle, path: "$.rows" } });
    const direct = await bench.bob("result_query", { handle, path: "$.rows" });
    expect(textOf(refused)).toMatch(/^RESULT_HANDLE_NOT_FOUND: /);
    expect(textOf(refused)).toBe(textOf(direct));
    expect(bench.runs.count).toBe(before);
  });

  it(
    "a reference 10,000 to 1,000,000 lists deep, or 10,000 to " +
      "100,000 objects deep: resolved or refused, never a hang",
    async () => {
      const handle = await folded(rowsOf(300));
      const reference = `{"$result":"${handle}","path":"$.rows[0]"}`;
      // The same 2 MB request with a number where the reference stands, first: the SDK's own parse and check of it
      // hold the thread in one go, reference or not (0.6-0.8 s on a loaded 2-core machine)
      const plainBody = `{"data":${"[".repeat(1_000_000)}7${"]".repeat(1_000_000)}}`;
      const plain = await whileServing(bench.bystander, () => rawCall("alice", "depth_of", plainBody));
      console.log(`1,000,000 lists deep without a reference: ${figures(plain)}`);
      expect(plain.value.text).toContain(`\\"depth\\":1000000`);
      for (const depth of [10_000, 100_000, 1_000_000]) {
        const lists = await whileServing(bench.bystander, () =>
          rawCall("alice", "depth_of", `{"data":${"[".repeat(depth)}${reference}${"]".repeat(depth)}}`),
        );
        console.log(`reference ${depth} lists deep: HTTP ${lists.value.status} in ${figures(lists)}`);
        expect(lists.value.status).toBe(200);
        expect(lists.value.text).toContain(`\\"depth\\":${depth}`);
        expect(lists.ms).toBeLessThan(3000);
        if (depth === 1_000_000) {
          // S21.4: the walks of the arguments yield: the bystander is served while they run (7 of its calls went
          // through; 2 with the walks made not to yield, the second 1.7 s late), and the longest hold is the SDK's,
          // with room for a collection of the two million lists landing in it. (The bar was half the call's time:
          // once the walks were faster, the call took 1.8 s and the SDK's hold of 0.9 s alone passed it.)
          expect(lists.lists).toBeGreaterThanOrEqual(4);
          expect(lists.stallMs).toBeLessThan(plain.stallMs * 2 + 250);
        }
      }
      for (const depth of [10_000, 100_000]) {
        const ran = bench.runs.echo;
        const objects = await whileServing(bench.bystander, () =>
          rawCall("alice", "echo_shape", `{"data":${'{"a":'.repeat(depth)}${reference}${"}".repeat(depth)}}`),
        );
        console.log(
          `reference ${depth} objects deep: HTTP ${objects.value.status} in ` +
            `${figures(objects)}: ${objects.value.text.slice(0, 160).replace(/\s+/g, " ")}`,
        );
        expect(objects.value.status).toBe(200);
        // resolved and run: a stack overflow here is echo_shape's own recursive describe()
        expect(bench.runs.echo).toBe(ran + 1);
        expect(objects.ms).toBeLessThan(3000);
      }
    },
  );

  it(
    "a 1 MB path (refused before it is parsed, S21.2) or a 1 MB handle: the " +
      "refusal is a few hundred bytes (S7.10), the server stays responsive",
    async () => {
      const handle = await folded(rowsOf(300));
      const path = "$.rows" + ".x".repeat(500_000);
      const longPath = await whileServing(bench.bystander, () =>
        bench.alice("echo_shape", { data: { $result: handle, path } }),
      );
      const longHandle = await whileServing(bench.bystander, () =>
        bench.alice("echo_shape", { data: { $result: "h".repeat(1_000_000), path: "$.rows" } }),
      );
      console.log(
        `1 MB path: ${figures(longPath)}, answer ${textOf(longPath.value).length} chars; 1 MB ` +
          `handle: ${figures(longHandle)}, ${textOf(longHandle.value).length} chars`,
      );
      expect(textOf(longPath.value)).toMatch(
        /^INVALID_INPUT: Path .* is 1000006 characters, over the 65536 a path may have/,
      ); // S21.2, before any parse
      expect(textOf(longHandle.value)).toMatch(/^RESULT_HANDLE_NOT_FOUND: /);
      expect(textOf(longPath.value).length).toBeLessThan(1000);
      expect(textOf(longHandle.value).length).toBeLessThan(1000);
    },
  );

  it("references inside result_query's own arguments are not resolved", async () => {
    const handle = await folded(rowsOf(300));
    const asHandle = await bench.alice("result_query", { handle: { $result: handle } });
    const asPath = await bench.alice("result_query", { handle, path: { $result: handle, path: "$.rows[0].title" } });
    const asField = await bench.alice("result_query", {
      handle,
      path: "$.rows[0]",
      fields: [{ $result: handle, path: "$.rows[0].title" }],
    });
    expect(textOf(asHandle)).toMatch(/^INVALID_INPUT: handle must be a string/);
    expect(textOf(asPath)).toMatch(/^INVALID_INPUT: path must be a string/);
    expect(textOf(asField)).toMatch(/^INVALID_INPUT: fields must be a list/);
  });

  it("a 10 MB answer passed to a tool whose schema refuses every item: a bounded error text", async () => {
    const handle = await folded({
      rows: Array.from({ length: 200_000 }, (_, i) => ({ id: `x${i}`, title: `Row number ${i} padded out a little` })),
    });
    const before = bench.runs.count;
    const refused = await whileServing(bench.bystander, () =>
      bench.alice("count_items", { items: { $result: handle, path: "$.rows" } }),
    );
    const bytes = JSON.stringify(refused.value).length;
    console.log(`10 MB by reference into a refusing schema: ${figures(refused)}, reply ${bytes} bytes`);
    expect(refused.value.isError).toBe(true);
    expect(textOf(refused.value)).toMatch(/^Input validation error/);
    expect(bytes).toBeLessThan(4000);
    expect(bench.runs.count).toBe(before);
  }, 60_000);

  it("__proto__ and constructor around and inside references: own data, Object.prototype untouched", async () => {
    const rows = JSON.stringify(rowsOf(100).rows);
    const handle = await folded(
      JSON.parse(`{"rows":${rows},"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}`),
    );
    const args = JSON.parse(
      `{"data":{"__proto__":{"$result":"${handle}","path":"/__proto__"},` +
        `"constructor":{"prototype":{"$result":"${handle}","path":"$.constructor"}},"whole":{"$result":"${handle}"}}}`,
    );
    const result = await bench.alice("echo_shape", args);
    const got = (result.structuredContent as { got: { keys: string[]; __proto__: unknown } }).got;
    expect(got.keys).toEqual(["__proto__", "constructor", "whole"]);
    expect(Object.getOwnPropertyDescriptor(got, "__proto__")?.value).toEqual({ keys: ["polluted"], polluted: "yes" });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
    // A path through an answer without such own keys names nothing (S7.2).
    const plain = await folded(rowsOf(100));
    for (const path of ["$.__proto__", "/constructor/prototype", "$.rows[0].constructor"]) {
      expect(textOf(await bench.alice("echo_shape", { data: { $result: plain, path } }))).toMatch(
        /^RESULT_PATH_NOT_FOUND: /,
      );
    }
  });
});
