import { McpServer } from "@modelcontextprotocol/server";
import { RESULT_HANDLE_META_KEY, ResultHandlesPlugin } from "mcp-result-handles";
import { linkInMemory } from "./in-memory.js";

export type Result = {
  structuredContent?: Record<string, unknown>;
  content?: { type: string; text?: string }[];
  _meta?: Record<string, unknown>;
  isError?: boolean;
};

/**
 * A real SDK server with the plugin installed and one tool per answer (a string answers as plain text,
 * anything else as structuredContent), linked to a real SDK client in one session.
 */
export async function queryServer(
  answers: Record<string, () => unknown>,
  options: Parameters<typeof ResultHandlesPlugin.init>[0] = {},
) {
  const server = new McpServer({ name: "t", version: "1" });
  const warnings: string[] = [];
  const plugin = ResultHandlesPlugin.init({
    thresholdBytes: 16384,
    preview: { chars: 40 },
    storage: { type: "memory" },
    ...options,
  });
  plugin.install(server, { logger: { warn: (message: string) => warnings.push(message) } });
  for (const [name, answer] of Object.entries(answers)) {
    server.registerTool(name, { description: name }, async () => {
      const value = answer();
      if (typeof value === "string") return { content: [{ type: "text" as const, text: value }] };
      return {
        content: [{ type: "text" as const, text: JSON.stringify(value) }],
        structuredContent: value as Record<string, unknown>,
      };
    });
  }
  const client = await linkInMemory(server, "session-s");
  /** Calls a tool; its folded answer's handle and byte size. */
  async function fold(name: string): Promise<{ handle: string; bytes: number }> {
    const result = (await client.callTool({ name, arguments: {} })) as Result;
    const meta = result._meta?.[RESULT_HANDLE_META_KEY] as { handle: string; bytes: number } | undefined;
    if (!meta) throw new Error(`tool ${name} was not folded: ${warnings.join("; ")}`);
    return meta;
  }
  /** A result_query call as the model makes it: the structuredContent, and the text when refused. */
  async function query(
    args: Record<string, unknown>,
  ): Promise<{ ok: Record<string, any>; code?: string; message?: string; result: Result }> {
    const result = (await client.callTool({ name: "result_query", arguments: args })) as Result;
    const error = result.structuredContent?.error as { code: string; message: string } | undefined;
    return { ok: result.structuredContent as Record<string, any>, code: error?.code, message: error?.message, result };
  }
  return { client, plugin, warnings, fold, query };
}
