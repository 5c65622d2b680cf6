import { RESULT_HANDLE_META_KEY, RESULT_QUERY_TOOL_NAME } from "./constants.js";
import type { Owner } from "./crypto.js";
import { fitFoldedAnswer, type FoldedAnswer } from "./fit.js";
import { isPlainObject } from "./json.js";
import type { ResultHandlesConfig } from "./options.js";
import { serializeAnswer, type ResultHandleStore } from "./store.js";
import type { ContentBlock, ToolResult } from "./tool-result.js";

/** Anything with a Standard Schema `validate` (zod 4, valibot, the MCP SDK's wrappers). */
export interface StandardSchemaLike {
  readonly "~standard": {
    validate(value: unknown): { issues?: readonly unknown[] } | Promise<{ issues?: readonly unknown[] }>;
  };
}

export interface Logger {
  warn(message: string): void;
}

/** What the fold needs from a plugin instance. */
export interface FoldContext {
  readonly config: ResultHandlesConfig;
  store(): Promise<ResultHandleStore>;
  /** Logs a warning once per key (S4.6: once per tool). */
  warnOnce(key: string, message: string): void;
  warn(message: string): void;
}

export interface FoldInput {
  toolName: string;
  /** Full name as the client called it; defaults to `toolName`. */
  fullName?: string;
  result: ToolResult;
  outputSchema?: StandardSchemaLike;
  /** The tool definition's `_meta`: a UI resource there means the answer renders a widget (S4.2). */
  toolMeta?: Record<string, unknown>;
  owner: Owner;
  /** Host request context, handed to `foldPolicy`. */
  request?: unknown;
}

/**
 * Host-neutral fold (S4, S5): the original result, or `{ preview, shape, handle }` with a hint text and
 * `_meta[RESULT_HANDLE_META_KEY]`. It never throws for the store's sake: a store that fails or hangs
 * leaves the answer whole, with a warning (S4.7).
 */
export async function foldToolResult(context: FoldContext, input: FoldInput): Promise<ToolResult> {
  const { result, toolName, owner } = input;
  const { config } = context;
  if (result.isError || rendersWidget(input.toolMeta)) return result;
  const data = foldableData(result);
  if (data === NOT_FOLDABLE) return result;

  const json = serializeAnswer(data);
  const bytes = json.bytes;
  if (bytes <= config.thresholdBytes) return result;
  if (!owner.session && !owner.caller) {
    // S4.4: nobody could read the handle back. Say why once per tool, or a user never learns it.
    context.warnOnce(
      `anonymous:${toolName}`,
      `result-handles: tool "${toolName}" answered ${bytes} bytes to an anonymous call (no session, no caller) and was sent whole; ` +
        `answers fold for calls with a session or an authenticated caller, or with hostOptions.owner`,
    );
    return result;
  }

  try {
    const fold = await config.foldPolicy(toolName, data, { bytes, fullName: input.fullName ?? toolName, request: input.request });
    if (fold !== true) return result;
  } catch (error) {
    context.warn(`result-handles: foldPolicy threw for tool "${toolName}" (${describe(error)}); sent its answer whole`);
    return result;
  }

  let store: ResultHandleStore;
  try {
    store = await context.store();
  } catch (error) {
    context.warn(`result-handles: could not open the store for tool "${toolName}" (${describe(error)}); sent its answer whole`);
    return result;
  }
  const handle = store.newHandle();
  // Encryption runs while the preview and shape are built (WebCrypto works off the main thread).
  const sealing = store.seal(handle, json, owner);
  sealing.catch(() => {}); // its failure is handled where it is awaited, or irrelevant if we stop first
  const folded = fitFoldedAnswer(data, handle, config.preview, Math.floor(config.thresholdBytes / 2));

  if (input.outputSchema && !(await admits(input.outputSchema, folded))) {
    context.warnOnce(
      `schema:${toolName}`,
      `result-handles: tool "${toolName}" has an output schema that does not admit { preview, shape, handle }; ` +
        `its large answers are sent whole. Add foldedAnswerSchema to a union in its outputSchema.`,
    );
    return result;
  }

  try {
    await store.put(await sealing);
  } catch (error) {
    context.warn(`result-handles: the store could not keep the answer of tool "${toolName}" (${describe(error)}); sent it whole`);
    return result;
  }
  return foldedResult(result, folded, bytes, config.ttlSeconds, data);
}

const NOT_FOLDABLE = Symbol("not foldable");

/** S4.2 and S4.3: the answer's data, when it is one text or structuredContent with at most one text repeating it. */
function foldableData(result: ToolResult): unknown {
  const content = result.content ?? [];
  if (result.structuredContent !== undefined) {
    if (content.length === 0) return result.structuredContent;
    if (content.length === 1 && content[0]!.type === "text" && repeats(content[0]!.text, result.structuredContent)) {
      return result.structuredContent;
    }
    return NOT_FOLDABLE;
  }
  if (content.length !== 1 || content[0]!.type !== "text" || typeof content[0]!.text !== "string") return NOT_FOLDABLE;
  const text = content[0]!.text;
  const first = text.trimStart()[0];
  if (first === "{" || first === "[") {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

function repeats(text: string | undefined, structured: unknown): boolean {
  if (typeof text !== "string") return false;
  const compact = JSON.stringify(structured);
  if (text === compact || text === JSON.stringify(structured, null, 2)) return true;
  try {
    return JSON.stringify(canonical(JSON.parse(text))) === JSON.stringify(canonical(structured));
  } catch {
    return false;
  }
}

/** Sorts object keys, so two JSON texts that differ only in key order compare equal. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = canonical(value[key]);
  return out;
}

/** MCP Apps (`_meta.ui.resourceUri`, `_meta["ui/resourceUri"]`) and OpenAI Apps (`openai/outputTemplate`) widgets. */
function rendersWidget(meta: Record<string, unknown> | undefined): boolean {
  if (!meta) return false;
  const ui = meta.ui;
  return (
    (isPlainObject(ui) && typeof ui.resourceUri === "string") ||
    typeof meta["ui/resourceUri"] === "string" ||
    typeof meta["openai/outputTemplate"] === "string"
  );
}

async function admits(schema: StandardSchemaLike, value: FoldedAnswer): Promise<boolean> {
  try {
    const outcome = await schema["~standard"].validate(value);
    return !outcome.issues || outcome.issues.length === 0;
  } catch {
    return false;
  }
}

function foldedResult(original: ToolResult, folded: FoldedAnswer, bytes: number, ttlSeconds: number, data: unknown): ToolResult {
  const example = { handle: folded.handle, path: examplePath(data), limit: 20 };
  const hint =
    `This answer (${bytes} bytes) was folded: above are its preview and shape. Read the parts you need with the ` +
    `${RESULT_QUERY_TOOL_NAME} tool and handle ${folded.handle}, valid for ${ttlSeconds} seconds. ` +
    `Example: ${RESULT_QUERY_TOOL_NAME} ${JSON.stringify(example)}`;
  const content: ContentBlock[] = [
    { type: "text", text: JSON.stringify(folded) },
    { type: "text", text: hint },
  ];
  const { content: _content, structuredContent: _structured, ...rest } = original;
  return {
    ...rest,
    content,
    structuredContent: folded as unknown as Record<string, unknown>,
    _meta: { ...original._meta, [RESULT_HANDLE_META_KEY]: { handle: folded.handle, bytes, ttlSeconds } },
  };
}

/** The first list under the root, so the example call reads rows rather than the whole answer. */
function examplePath(data: unknown): string {
  if (Array.isArray(data) || typeof data === "string") return "$";
  if (isPlainObject(data)) {
    const key = Object.keys(data).find((k) => Array.isArray(data[k]) && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k));
    if (key) return `$.${key}`;
  }
  return "$";
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
