// S18.6 a threshold in tokens: thresholdTokens folds an answer whose JSON text tokenx estimates at more
// tokens than it, knows non-Latin scripts (the same bytes of Chinese are more tokens than of English),
// decides by bytes alone where they suffice, gives `tokens` in _meta, and is refused beside thresholdBytes.
import { McpServer } from "@modelcontextprotocol/server";
import { RESULT_HANDLE_META_KEY, ResultHandlesConfigurationError, ResultHandlesPlugin } from "mcp-result-handles";
import { estimateTokenCount } from "tokenx";
import { afterAll, describe, expect, it } from "vitest";
import { linkInMemory } from "../helpers/in-memory.js";
import type { Result } from "../helpers/query-server.js";

const english = {
  rows: Array.from({ length: 60 }, (_, i) => ({ id: i, note: "the printer on the third floor jams again" })),
};
const chinese = { rows: Array.from({ length: 60 }, (_, i) => ({ id: i, note: "三楼的打印机又卡纸了请尽快处理" })) };
const tokensOf = (value: unknown) => estimateTokenCount(JSON.stringify(value));
const bytesOf = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).byteLength;

describe("S18.6 thresholdTokens", async () => {
  const threshold = 1000;
  const plugin = ResultHandlesPlugin.init({ thresholdTokens: threshold, storage: { type: "memory" } });
  const answers: Record<string, unknown> = {
    english,
    chinese,
    small: { rows: [1, 2, 3] },
    huge: { rows: Array.from({ length: 4000 }, (_, i) => ({ id: i, note: "printer" })) },
  };
  const server = new McpServer({ name: "tokens", version: "1" });
  plugin.install(server);
  for (const [name, value] of Object.entries(answers)) {
    server.registerTool(name, { description: name }, async () => ({
      content: [{ type: "text" as const, text: JSON.stringify(value) }],
      structuredContent: value as Record<string, unknown>,
    }));
  }
  const client = await linkInMemory(server, "session-tokens");
  afterAll(async () => {
    await client.close();
    await plugin.onShutdown();
  });
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as Result;

  it("the same bytes fold in Chinese and not in English, by tokenx's estimate", async () => {
    // The premise, from tokenx itself: both are over the threshold in bytes, only the Chinese one in tokens.
    expect(bytesOf(english)).toBeGreaterThan(threshold);
    expect(tokensOf(english)).toBeLessThanOrEqual(threshold);
    expect(tokensOf(chinese)).toBeGreaterThan(threshold);
    expect((await call("english")).structuredContent).toEqual(english);
    const folded = await call("chinese");
    expect(folded._meta?.[RESULT_HANDLE_META_KEY]).toEqual({
      handle: (folded.structuredContent as { handle: string }).handle,
      bytes: bytesOf(chinese),
      ttlSeconds: 600,
      tokens: tokensOf(chinese),
    });
  });

  it("fewer bytes than the threshold keep the answer whole; far more fold it, tokens extrapolated", async () => {
    expect((await call("small")).structuredContent).toEqual(answers.small);
    const huge = answers.huge;
    expect(bytesOf(huge)).toBeGreaterThan(16 * threshold); // decided by bytes alone
    const meta = (await call("huge"))._meta?.[RESULT_HANDLE_META_KEY] as { tokens: number };
    expect(meta.tokens).toBeGreaterThan(threshold);
    expect(Math.abs(meta.tokens - tokensOf(huge)) / tokensOf(huge)).toBeLessThan(0.1); // a fair extrapolation
  });

  it("the slice limit of result_query is 4 bytes a token", async () => {
    expect(plugin.config).toMatchObject({ foldTokens: threshold, sliceLimitBytes: 4 * threshold });
    expect(plugin.config.foldBytes).toBeUndefined(); // the fold is by tokens alone
    const { handle } = (await call("huge")).structuredContent as { handle: string };
    const refused = await call("result_query", { handle, path: "$.rows", limit: 1000 });
    expect(refused.structuredContent).toMatchObject({ error: { code: "RESULT_SLICE_TOO_LARGE" } });
    expect((refused.structuredContent as { error: { message: string } }).error.message).toContain(
      "over the 4000-byte limit",
    );
  });
});

describe("S18.6 S3.1 init refuses thresholdTokens beside thresholdBytes, with every other problem", () => {
  it("one typed configuration error naming both", () => {
    let error: unknown;
    try {
      ResultHandlesPlugin.init({ thresholdTokens: 5000, thresholdBytes: 20_000, ttlSeconds: -1 });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ResultHandlesConfigurationError);
    const issues = (error as ResultHandlesConfigurationError).issues.map((issue) => issue.path);
    expect(issues).toEqual(expect.arrayContaining(["thresholdTokens", "ttlSeconds"]));
    expect((error as Error).message).toContain("give thresholdTokens or thresholdBytes, not both");
  });

  it.each([0, -5, 2.5, "1000"])("thresholdTokens %j is not a positive whole number", (value) => {
    expect(() => ResultHandlesPlugin.init({ thresholdTokens: value as number })).toThrow(
      ResultHandlesConfigurationError,
    );
  });
});
