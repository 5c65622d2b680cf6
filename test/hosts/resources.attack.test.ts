// S15.4 and S16.1 attacked from the outside: resources/read with foreign, unknown and malformed URIs, odd
// encodings, huge query strings and 100,000 fields, over real HTTP (the 2025 era: the 2026-07-28 client
// carries the URI in a header, which Node caps at 16 KB); a bystander's tools/list is timed meanwhile.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import { connect } from "../helpers/mcp-client.js";
import { figures, startAttackBench, whileServing, handleOf, type AttackBench } from "../helpers/attack-bench.js";

let bench: AttackBench;
let alice2025: Client;
let bob2025: Client;
let handle: string;
beforeAll(async () => {
  bench = await startAttackBench({}, { resources: true });
  alice2025 = await connect(bench.http.url, { era: "2025", token: "alice" });
  bob2025 = await connect(bench.http.url, { era: "2025", token: "bob" });
  bench.answer.next = { rows: Array.from({ length: 100_000 }, (_, i) => ({ id: i, title: `Row number ${i}` })) };
  handle = handleOf(await bench.alice("report"));
});
afterAll(async () => {
  await Promise.allSettled([alice2025.close(), bob2025.close()]);
  await bench.close();
});
type Outcome = { text?: string; code?: number; message?: string };
const read = (client: Client, uri: string): Promise<Outcome> =>
  client.readResource({ uri }, { timeout: 60_000 }).then(
    (result) => ({ text: (result.contents[0] as { text?: string }).text }),
    (error: { code?: number; message: string }) => ({ code: error.code, message: error.message }),
  );

describe("S15.4 resources/read under attack", () => {
  it("foreign, unknown and malformed URIs: one not-found error, identical apart from the URI", async () => {
    const base = `result-handle://${handle}`;
    const refused: [Client, string][] = [
      [bob2025, base],
      [bob2025, `${base}?path=%24.rows&fields=id`],
      [alice2025, "result-handle://00000000-0000-4000-8000-000000000000"],
      [alice2025, "result-handle://"],
      [alice2025, `${base}/x`],
      [alice2025, `${base}%00`],
      [alice2025, `${base}%3Fpath=x`],
      [alice2025, `result-handle://${handle.toUpperCase()}`],
      [alice2025, `result-handle://${handle.replace("-", "%2D")}`],
    ];
    const shapes = new Set<string>();
    for (const [client, uri] of refused) {
      const outcome = await read(client, uri);
      expect(outcome.code, uri).toBe(-32602);
      expect(outcome.message, uri).toMatch(/^Resource not found: /);
      shapes.add(
        `${outcome.code} ${outcome.message!.replace(/^Resource not found: .*$/, "Resource not found: <uri>")}`,
      );
    }
    expect([...shapes]).toEqual(["-32602 Resource not found: <uri>"]);
  });

  it("odd encodings in the query reach result_query as text, and are refused with its code", async () => {
    const base = `result-handle://${handle}`;
    for (const [query, code] of [
      ["?path=%ZZ", "RESULT_PATH_NOT_FOUND"],
      ["?path=%2524.rows", "RESULT_PATH_NOT_FOUND"], // encoded twice: the path is the text "%24.rows"
      ["?path=%00", "RESULT_PATH_NOT_FOUND"],
      ["?limit=1e3", "INVALID_INPUT"],
      ["?limit=%2B5", "INVALID_INPUT"],
      ["?offset=99999999999999999999", "INVALID_INPUT"],
    ] as const) {
      const outcome = await read(alice2025, base + query);
      expect(outcome.code, query).toBe(-32602);
      expect(outcome.message, query).toMatch(new RegExp(`^${code}: `));
      expect(outcome.message!.length, query).toBeLessThan(400);
    }
    expect(
      JSON.parse((await read(alice2025, `${base}?path=%24.rows%5B1%5D&path=%24.rows%5B2%5D`)).text!),
    ).toMatchObject({ path: "$.rows[1]" });
  });

  it(
    "a 1.5 MB query string and 300,000 parameters: short refusals " +
      "before parsing (S21.2), the server stays responsive",
    async () => {
      const base = `result-handle://${handle}`;
      const longPath = await whileServing(bench.bystander, () =>
        read(alice2025, `${base}?path=%24${".rows".repeat(300_000)}`),
      );
      const manyParams = await whileServing(bench.bystander, () =>
        read(alice2025, `${base}?${"a=1&".repeat(300_000)}path=%24.rows%5B0%5D`),
      );
      console.log(`resources/read, 1.5 MB path: ${figures(longPath)}, message ${longPath.value.message?.length} chars`);
      console.log(`resources/read, 300,000 parameters: ${figures(manyParams)}`);
      // S21.2: refused before it is parsed
      expect(longPath.value.message).toMatch(/^INVALID_INPUT: Path .* over the 65536 a path may have/);
      expect(longPath.value.message!.length).toBeLessThan(600);
      // S21.2: counted, not parsed; the refusal names the limit and the parameters there are.
      expect(manyParams.value.code).toBe(-32602);
      expect(manyParams.value.message).toBe(
        "INVALID_INPUT: The query string has 300001 parameters, over the 64 a result-handle URI may have " +
          "(S21.2): it takes path, search, offset, limit, page and fields (the arguments of result_query), each once",
      );
      // At the limit, unknown names are still ignored (S15.4).
      expect(
        JSON.parse((await read(alice2025, `${base}?${"a=1&".repeat(63)}path=%24.rows%5B0%5D`)).text!),
      ).toMatchObject({ value: { id: 0 } });
      expect((await read(alice2025, `${base}?${"a=1&".repeat(64)}path=%24.rows%5B0%5D`)).message).toMatch(
        /^INVALID_INPUT: The query string has 65 parameters, over the 64/,
      );
      expect(Math.max(longPath.stallMs, manyParams.stallMs)).toBeLessThan(1000);
    },
  );
});

describe("S16.1 100,000 fields over 100,000 items cost what the items cost", () => {
  const fields = Array.from({ length: 100_000 }, (_, i) => `f${i}`);
  it("as resources/read fields=…: refused with the keys there, in well under a second", async () => {
    const uri = `result-handle://${handle}?path=%24.rows&limit=100000&fields=${fields.join(",")}`;
    const attack = await whileServing(bench.bystander, () => read(alice2025, uri));
    console.log(
      `resources/read with 100,000 fields over 100,000 items: ` +
        `${figures(attack)}; ${attack.value.message?.slice(0, 120)}`,
    );
    expect(attack.value.message).toMatch(
      /^RESULT_PATH_NOT_FOUND: fields "f0", "f1", "f2", "f3", "f4" and 99995 more name no key/,
    );
    expect(attack.ms).toBeLessThan(2000);
    expect(attack.stallMs).toBeLessThan(1500);
  }, 20_000);

  it(
    "as result_query arguments, with the real keys among them and duplicated: each once, in the " + "order asked",
    async () => {
      const asked = [...fields.slice(0, 50_000), "title", ...fields.slice(50_000), "id", "title", "id"];
      const attack = await whileServing(bench.bystander, () =>
        bench.alice("result_query", { handle, path: "$.rows", limit: 100_000, fields: asked }),
      );
      console.log(
        `result_query with 100,004 fields over 100,000 items: ` +
          `${figures(attack)}; ${attack.value.content?.[0]?.text?.slice(0, 100)}`,
      );
      expect(attack.value.content?.[0]?.text).toMatch(/^RESULT_SLICE_TOO_LARGE: /);
      expect(attack.ms).toBeLessThan(2000);
      const page = await bench.alice("result_query", { handle, path: "$.rows", offset: 5, limit: 2, fields: asked });
      expect(JSON.stringify(page.structuredContent)).toBe(
        JSON.stringify({
          path: "$.rows",
          value: [
            { title: "Row number 5", id: 5 },
            { title: "Row number 6", id: 6 },
          ],
          total: 100_000,
          offset: 5,
          nextOffset: 7,
        }),
      );
    },
    20_000,
  );
});
