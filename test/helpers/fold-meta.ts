/**
 * S5.3 from the outside: a folded answer's `_meta["frontmcp/result-handle"]` is exactly
 * `{ handle, bytes, ttlSeconds }`: the handle its `structuredContent` gives, the size in bytes of the
 * answer's data as UTF-8 JSON (S4.3: given by the test from the data it served, or at least the size the
 * text for the model states, over the threshold), and the handle's lifetime the server was configured with.
 */
import { expect } from "vitest";
import { RESULT_HANDLE_META_KEY } from "mcp-result-handles";
import { DEFAULT_TTL_SECONDS } from "../../src/defaults.js";

type Folded = { structuredContent?: unknown; content?: unknown; _meta?: Record<string, unknown> };

/** The size in bytes S4.3 measures for `data` (the answer's structuredContent, or its JSON text parsed). */
export const jsonBytes = (data: unknown) => Buffer.byteLength(JSON.stringify(data));

export function expectFoldMeta(
  result: Folded,
  expected: { bytes?: number; overBytes?: number; ttlSeconds?: number } = {},
): void {
  const handle = (result.structuredContent as { handle?: unknown } | undefined)?.handle;
  expect(typeof handle, "structuredContent.handle").toBe("string");
  const texts = ((result.content ?? []) as { type: string; text?: string }[])
    .map((block) => block.text ?? "")
    .join("\n");
  const stated = Number(/This answer \((\d+) bytes\)/.exec(texts)?.[1]);
  expect(stated, "the size the text for the model states").toBeGreaterThan(expected.overBytes ?? 1024);
  if (expected.bytes !== undefined) expect(stated).toBe(expected.bytes);
  expect(texts).toContain(handle);
  const ttlSeconds = expected.ttlSeconds ?? DEFAULT_TTL_SECONDS;
  expect(result._meta?.[RESULT_HANDLE_META_KEY]).toEqual({ handle, bytes: stated, ttlSeconds });
}

/** The handle a folded answer's `_meta` names (S5.3), or undefined for an answer that went out whole (S4.7). */
export const metaHandleOf = (result: { _meta?: Record<string, unknown> }) =>
  (result._meta?.[RESULT_HANDLE_META_KEY] as { handle: string } | undefined)?.handle;
