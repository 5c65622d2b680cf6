// S15.1-S15.3 in the WebMCP host, in Chromium: a folded answer passed by reference to another tool
// registered through the plugin, on the draft's document.modelContext (@mcp-b/webmcp-polyfill).
import { initializeWebMCPPolyfill } from "@mcp-b/webmcp-polyfill";
import { beforeAll, describe, expect, it } from "vitest";
import { ResultHandlesPlugin } from "mcp-result-handles";

interface Testing {
  executeTool(name: string, argsJson: string): Promise<string | null>;
}
const testing = () => (navigator as unknown as { modelContextTesting: Testing }).modelContextTesting;
const call = async (name: string, args: Record<string, unknown> = {}) =>
  JSON.parse((await testing().executeTool(name, JSON.stringify(args)))!);
const rows = (n: number) => ({ rows: Array.from({ length: n }, (_, i) => ({ id: `T-${i}`, title: `Ticket ${i}` })) });

let counted = 0;
beforeAll(async () => {
  initializeWebMCPPolyfill({ installTestingShim: true });
  const host = ResultHandlesPlugin.init({ thresholdBytes: 4096, namespace: "webmcp-references" }).webmcp();
  await host.registerTool({ name: "tickets", description: "Every ticket", execute: () => rows(200) });
  await host.registerTool({
    name: "count_tickets",
    description: "Counts tickets",
    inputSchema: { type: "object", properties: { tickets: { type: "array" } }, required: ["tickets"] },
    execute: ({ tickets }) => {
      counted++;
      const list = tickets as { id: string }[];
      return { content: [{ type: "text", text: JSON.stringify({ count: list.length, last: list.at(-1)?.id }) }] };
    },
  });
});

describe("S15 references through plugin.webmcp()", () => {
  it("the hint shows the reference; the other tool receives the whole list", async () => {
    const folded = await call("tickets");
    const handle = folded.structuredContent.handle as string;
    expect(folded.content[1].text).toContain(JSON.stringify({ $result: handle, path: "$.rows" }));
    const answer = await call("count_tickets", { tickets: { $result: handle, path: "$.rows" } });
    expect(JSON.parse(answer.content[0].text)).toEqual({ count: 200, last: "T-199" });
    const mixed = await call("count_tickets", { tickets: [{ $result: handle, path: "/rows/7" }, { id: "mine" }] });
    expect(JSON.parse(mixed.content[0].text)).toEqual({ count: 2, last: "mine" });
  });

  it(
    "S15.2 an unknown handle or a path naming nothing: result_query's code and text, and the tool " + "does not run",
    async () => {
      const handle = (await call("tickets")).structuredContent.handle as string;
      const before = counted;
      for (const [reference, query, code] of [
        [
          { $result: "00000000-0000-4000-8000-000000000000" },
          { handle: "00000000-0000-4000-8000-000000000000" },
          "RESULT_HANDLE_NOT_FOUND",
        ],
        [{ $result: handle, path: "$.rows[500]" }, { handle, path: "$.rows[500]" }, "RESULT_PATH_NOT_FOUND"],
      ] as const) {
        const refused = await call("count_tickets", { tickets: reference });
        expect(refused.isError).toBe(true);
        expect(refused.content[0].text).toMatch(new RegExp(`^${code}: `));
        expect(refused.content[0].text).toBe((await call("result_query", query)).content[0].text);
      }
      expect(counted).toBe(before);
    },
  );

  it("references: false: the tool sees the object as sent, and the hint does not mention it", async () => {
    const declared: { name: string; execute(input: Record<string, unknown>): Promise<unknown> }[] = [];
    const modelContext = { registerTool: (tool: Record<string, unknown>) => void declared.push(tool as never) };
    const host = ResultHandlesPlugin.init({ thresholdBytes: 4096, namespace: "webmcp-references-off" }).webmcp({
      modelContext,
      references: false,
    });
    await host.registerTool({ name: "tickets", description: "Every ticket", execute: () => rows(200) });
    await host.registerTool({
      name: "echo",
      description: "Echoes",
      execute: (input) => ({ content: [{ type: "text", text: JSON.stringify(input) }] }),
    });
    const folded = (await declared.find((tool) => tool.name === "tickets")!.execute({})) as {
      content: { text: string }[];
      structuredContent: { handle: string };
    };
    expect(folded.content[1]!.text).not.toContain("$result");
    const input = { data: { $result: folded.structuredContent.handle } };
    const echoed = (await declared.find((tool) => tool.name === "echo")!.execute(input)) as {
      content: { text: string }[];
    };
    expect(JSON.parse(echoed.content[0]!.text)).toEqual(input);
  });
});
