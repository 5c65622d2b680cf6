import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  RESULT_HANDLE_META_KEY,
  ResultHandlesPlugin,
  foldToolResult,
  foldedAnswerSchema,
  type FoldInput,
  type ToolResult,
} from "mcp-result-handles";
import { brokenStorage, hangs, pluginOver, rejects } from "../helpers/storage-double.js";

const alice = { session: "s-1", caller: "alice" };
const rows = (n: number) => ({ rows: Array.from({ length: n }, (_, i) => ({ id: `T-${i}`, title: `Ticket ${i}` })) });
const structured = (value: Record<string, unknown>): ToolResult => ({
  content: [{ type: "text", text: JSON.stringify(value) }],
  structuredContent: value,
});

function plugin(options: Parameters<typeof ResultHandlesPlugin.init>[0] = {}) {
  const warnings: string[] = [];
  const instance = ResultHandlesPlugin.init({ thresholdBytes: 4096, storage: { type: "memory" }, ...options });
  instance.logger = { warn: (message) => warnings.push(message) };
  return { instance, warnings };
}

async function fold(input: Partial<FoldInput> & { result: ToolResult }, options?: Parameters<typeof plugin>[0]) {
  const { instance, warnings } = plugin(options);
  const result = await foldToolResult(instance, { toolName: "report", owner: alice, ...input });
  return { result, warnings, instance };
}

const isFolded = (result: ToolResult) => RESULT_HANDLE_META_KEY in (result._meta ?? {});

describe("S5 the folded answer", () => {
  it("S5.1 S5.2 S5.3 structuredContent, two texts and _meta", async () => {
    const original = { ...structured(rows(200)), _meta: { "other/key": 1 } };
    const { result, instance } = await fold({ result: original });
    const folded = result.structuredContent as { preview: unknown; shape: unknown; handle: string };
    expect(Object.keys(folded)).toEqual(["preview", "shape", "handle"]);
    expect(result.content).toHaveLength(2);
    expect(JSON.parse(result.content![0]!.text!)).toEqual(folded);
    const hint = result.content![1]!.text!;
    const bytes = new TextEncoder().encode(JSON.stringify(rows(200))).byteLength;
    for (const part of ["result_query", folded.handle, String(bytes), "600 seconds"]) expect(hint).toContain(part);
    // the first example call (S18.1 adds more)
    const example = JSON.parse(hint.slice(hint.indexOf("{"), hint.indexOf("}") + 1));
    expect(example).toEqual({ handle: folded.handle, path: "$.rows", limit: 20 });
    expect(result._meta).toEqual({
      "other/key": 1,
      [RESULT_HANDLE_META_KEY]: { handle: folded.handle, bytes, ttlSeconds: 600 },
    });
    expect(await (await instance.store()).read(folded.handle, alice)).toEqual({ value: rows(200) });
  });

  it("S5.2 the example call names the first list in the canonical path form, whatever its key", async () => {
    const hintExample = (result: ToolResult) => {
      const hint = result.content![1]!.text!;
      return JSON.parse(hint.slice(hint.indexOf("{"), hint.indexOf("}") + 1)) as { path: string };
    };
    const { result } = await fold({ result: structured({ "open tickets": rows(200).rows }) });
    expect(isFolded(result)).toBe(true);
    expect(hintExample(result).path).toBe("$['open tickets']");
    const { result: long } = await fold({ result: structured({ ["k".repeat(101)]: rows(200).rows }) });
    expect(hintExample(long).path).toBe("$");
  });

  it("S5.4 the folded structuredContent is at most half the threshold", async () => {
    const { result } = await fold({
      result: structured({ rows: Array.from({ length: 300 }, (_, i) => ({ id: i, body: "b".repeat(900) })) }),
    });
    expect(new TextEncoder().encode(JSON.stringify(result.structuredContent)).byteLength).toBeLessThanOrEqual(2048);
  });
});

describe("S4 when an answer folds", () => {
  it("S4.2 folds one text: JSON object text as its value, other text as a string", async () => {
    const json = await fold({ result: { content: [{ type: "text", text: JSON.stringify(rows(200), null, 2) }] } });
    expect(isFolded(json.result)).toBe(true);
    expect((json.result.structuredContent as { shape: { type: string } }).shape.type).toBe("object");
    const log = "x".repeat(5000);
    const plain = await fold({ result: { content: [{ type: "text", text: log }] } });
    expect((plain.result.structuredContent as { shape: unknown }).shape).toEqual({ type: "string", length: 5000 });
    expect(plain.result._meta![RESULT_HANDLE_META_KEY]).toMatchObject({ bytes: 5002 });
  });

  it("S4.2 folds structuredContent alone, or with one text repeating it in any key order", async () => {
    const value = rows(200);
    expect(isFolded((await fold({ result: { structuredContent: value } })).result)).toBe(true);
    const reordered = {
      content: [{ type: "text", text: JSON.stringify({ rows: value.rows.map(({ title, id }) => ({ title, id })) }) }],
      structuredContent: value,
    };
    expect(isFolded((await fold({ result: reordered })).result)).toBe(true);
    for (const text of [
      JSON.stringify(value, null, 2),
      JSON.stringify(value, null, "\t"),
      JSON.stringify(value, null, 1).replaceAll("\n", "\r\n"),
    ]) {
      expect(
        isFolded((await fold({ result: { content: [{ type: "text", text }], structuredContent: value } })).result),
      ).toBe(true);
    }
    const oneOff = JSON.stringify(value).replace('"id":"T-7"', '"id":"T-8"');
    expect(
      isFolded(
        (await fold({ result: { content: [{ type: "text", text: oneOff }], structuredContent: value } })).result,
      ),
    ).toBe(false);
  });

  it.each<[string, ToolResult]>([
    ["an image", { content: [{ type: "image", data: "A".repeat(9000), mimeType: "image/png" }] }],
    ["audio", { content: [{ type: "audio", data: "A".repeat(9000), mimeType: "audio/wav" }] }],
    ["a resource", { content: [{ type: "resource", resource: { uri: "x:1", text: "y".repeat(9000) } }] }],
    ["a resource link", { content: [{ type: "resource_link", uri: "x:1", name: "y".repeat(9000) }] }],
    [
      "two texts",
      {
        content: [
          { type: "text", text: "a".repeat(5000) },
          { type: "text", text: "b" },
        ],
      },
    ],
    [
      "a text that says something else",
      { content: [{ type: "text", text: "Here are the rows" }], structuredContent: rows(200) },
    ],
    ["an error", { content: [{ type: "text", text: "e".repeat(9000) }], isError: true }],
  ])("S4.2 sends %s as it is", async (_, original) => {
    const { result } = await fold({ result: original });
    expect(result).toBe(original);
  });

  it("S4.2 sends a widget tool's answer as it is", async () => {
    const original = structured(rows(200));
    for (const toolMeta of [
      { ui: { resourceUri: "ui://w" } },
      { "ui/resourceUri": "ui://w" },
      { "openai/outputTemplate": "ui://w" },
    ]) {
      expect((await fold({ result: original, toolMeta })).result).toBe(original);
    }
  });

  it("S4.3 folds only above thresholdBytes, measured as UTF-8 JSON", async () => {
    // 4096 bytes exactly does not fold; one byte more does. "é" is 2 bytes in UTF-8.
    const at = (bytes: number) => ({ content: [{ type: "text", text: "é".repeat((bytes - 2) / 2) }] });
    expect(isFolded((await fold({ result: at(4096) })).result)).toBe(false);
    expect(isFolded((await fold({ result: at(4098) })).result)).toBe(true);
  });

  it("S4.4 an anonymous call without a session gets the full answer; a session or a caller alone folds", async () => {
    const original = structured(rows(200));
    expect((await fold({ result: original, owner: {} })).result).toBe(original);
    expect(isFolded((await fold({ result: original, owner: { session: "s" } })).result)).toBe(true);
    expect(isFolded((await fold({ result: original, owner: { caller: "c" } })).result)).toBe(true);
  });

  it("S4.5 foldPolicy decides, seeing the value, bytes, full name and request", async () => {
    const seen: unknown[] = [];
    const policy = async (tool: string, answer: unknown, context: unknown) => {
      seen.push({ tool, answer, context });
      return false;
    };
    const original = { content: [{ type: "text", text: JSON.stringify(rows(200)) }] };
    const { result } = await fold({ result: original, request: { id: 7 } }, { foldPolicy: policy });
    expect(result).toBe(original);
    const bytes = new TextEncoder().encode(JSON.stringify(rows(200))).byteLength;
    expect(seen).toEqual([
      { tool: "report", answer: rows(200), context: { bytes, fullName: "report", request: { id: 7 } } },
    ]);
  });

  it("S4.5 a foldPolicy that throws leaves the answer whole, with a warning", async () => {
    const original = structured(rows(200));
    const { result, warnings } = await fold(
      { result: original },
      {
        foldPolicy: () => {
          throw new Error("policy bug");
        },
      },
    );
    expect(result).toBe(original);
    expect(warnings.join()).toContain("policy bug");
  });

  it("S4.6 folds when the output schema admits the folded form", async () => {
    const outputSchema = z.union([
      z.object({ rows: z.array(z.object({ id: z.string(), title: z.string() })) }),
      foldedAnswerSchema,
    ]);
    const { result, warnings } = await fold({ result: structured(rows(200)), outputSchema });
    expect(isFolded(result)).toBe(true);
    expect(outputSchema.safeParse(result.structuredContent).success).toBe(true);
    expect(warnings).toEqual([]);
  });

  it("S4.6 sends the full answer and warns once per tool when the schema does not admit it", async () => {
    const { instance, warnings } = plugin();
    const outputSchema = z.object({ rows: z.array(z.unknown()) });
    const original = structured(rows(200));
    for (let i = 0; i < 3; i++) {
      expect(await foldToolResult(instance, { toolName: "report", result: original, outputSchema, owner: alice })).toBe(
        original,
      );
    }
    await foldToolResult(instance, { toolName: "other", result: original, outputSchema, owner: alice });
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('"report"');
    expect(warnings[1]).toContain('"other"');
  });

  it("S4.7 a store whose set rejects, or never answers, leaves the answer whole with a warning", async () => {
    for (const [set, reason] of [
      [rejects("disk full"), "disk full"],
      [hangs, "longer than 50 ms"],
    ] as const) {
      const { plugin: instance, warnings } = pluginOver(brokenStorage({ set }), {
        thresholdBytes: 4096,
        storage: { type: "memory", timeoutMs: 50 },
      });
      const original = structured(rows(200));
      const started = Date.now();
      expect(await foldToolResult(instance, { toolName: "report", result: original, owner: alice })).toBe(original);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(warnings.join()).toContain(reason);
    }
  });
});
