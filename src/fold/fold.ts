import { RESULT_HANDLE_META_KEY, RESULT_QUERY_TOOL_NAME } from "../plugin/defaults.js";
import type { Owner } from "../records/crypto/keys.js";
import { describeError, StorageClientMissingError } from "../errors.js";
import { fitFoldedAnswer, type FoldedAnswer } from "./fit.js";
import { hasOwn, isPlainObject, KeyLists } from "../util/json.js";
import type { ResultHandlesConfig } from "../plugin/options.js";
import { formatPath } from "../query/path.js";
import { serializeAnswer, type SerializedAnswer } from "../records/serialize.js";
import type { ResultHandleStore } from "../records/store.js";
import type { ContentBlock, ToolResult } from "../util/tool-result.js";

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
  /** Piece size its store's crypto backend seals fastest (S8.5): the fold serialises once, at that size. */
  readonly pieceBytes?: number;
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
 * `_meta[RESULT_HANDLE_META_KEY]`. It never throws (S4.7): a store that fails or hangs, a missing
 * WebCrypto, an answer JSON cannot write (too deep, a bigint) or any other failure of the fold leaves the
 * answer whole, with a warning.
 */
export async function foldToolResult(context: FoldContext, input: FoldInput): Promise<ToolResult> {
  try {
    return await foldOrKeep(context, input);
  } catch (error) {
    context.warn(`result-handles: could not fold the answer of tool "${input.toolName}" (${describeError(error)}); sent it whole`);
    return input.result;
  }
}

async function foldOrKeep(context: FoldContext, input: FoldInput): Promise<ToolResult> {
  const { result, toolName, owner } = input;
  const { config } = context;
  if (result.isError || rendersWidget(input.toolMeta)) return result;
  const keyLists = new KeyLists(); // one key listing per object for the serialisation, preview and shape
  const data = foldableData(result, { keyLists, pieceBytes: context.pieceBytes });
  if (data === NOT_FOLDABLE) return result;

  // The serialisation's buffers go back for the next answer on every way out, but only once nothing can
  // read them: at once if encryption never started, else once it has succeeded (never on its failure,
  // while other pieces may still be encrypting from them).
  const json = data.json;
  let sealing: ReturnType<ResultHandleStore["seal"]> | undefined;
  try {
    // S4.3 in bytes: the serialisation wrote them as UTF-8 pieces, ready to encrypt (S8.5).
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
    const answer = data.value;

    try {
      const fold = await config.foldPolicy(toolName, answer, { bytes, fullName: input.fullName ?? toolName, request: input.request });
      if (fold !== true) return result;
    } catch (error) {
      context.warn(`result-handles: foldPolicy threw for tool "${toolName}" (${describeError(error)}); sent its answer whole`);
      return result;
    }

    let store: ResultHandleStore;
    try {
      store = await context.store();
    } catch (error) {
      warnOpenFailure(context, toolName, error);
      return result;
    }
    // newHandle (crypto.randomUUID), seal and the fit may throw too: foldToolResult sends the answer whole then.
    const handle = store.newHandle();
    // Sealing starts now but encrypts only once the keys are derived, after the synchronous fit below:
    // it overlaps the output schema check at most. Anything it throws is caught where it is awaited.
    sealing = store.seal(handle, json, owner);
    sealing.catch(() => {}); // its failure is handled where it is awaited, or irrelevant if we stop first
    const folded = fitFoldedAnswer(answer, handle, config.preview, Math.floor(config.thresholdBytes / 2), keyLists);

    if (input.outputSchema && !(await admits(input.outputSchema, folded))) {
      context.warnOnce(
        `schema:${toolName}`,
        `result-handles: tool "${toolName}" has an output schema that does not admit { preview, shape, handle }; ` +
          `its large answers are sent whole. Add foldedAnswerSchema to a union in its outputSchema.`,
      );
      return result;
    }

    try {
      const sealed = await sealing;
      await store.put(sealed);
    } catch (error) {
      context.warn(`result-handles: the store could not keep the answer of tool "${toolName}" (${describeError(error)}); sent it whole`);
      return result;
    }
    return foldedResult(result, folded, bytes, config.ttlSeconds, examplePath(answer, keyLists));
  } finally {
    if (sealing) sealing.then(() => json.release(), () => {});
    else json.release();
  }
}

const NOT_FOLDABLE = Symbol("not foldable");

/** The answer's data (S4.3) and its one serialisation: compared with a repeating text, measured, encrypted. */
interface FoldableData {
  value: unknown;
  json: SerializedAnswer;
}

/** S4.2 and S4.3: the answer's data, when it is one text or structuredContent with at most one text repeating it. */
function foldableData(result: ToolResult, pieces: { keyLists: KeyLists; pieceBytes?: number }): FoldableData | typeof NOT_FOLDABLE {
  const content = result.content ?? [];
  const structured = result.structuredContent;
  if (structured !== undefined) {
    if (content.length > 1 || (content.length === 1 && content[0]!.type !== "text")) return NOT_FOLDABLE;
    const text = content.length === 1 ? content[0]!.text : undefined;
    const json = serializeAnswer(structured, { ...pieces, ...(typeof text === "string" ? { repeatedBy: text } : {}) });
    if (content.length === 1 && !repeats(text, json, structured)) {
      json.release(); // nothing will encrypt it
      return NOT_FOLDABLE;
    }
    return { value: structured, json };
  }
  if (content.length !== 1 || content[0]!.type !== "text" || typeof content[0]!.text !== "string") return NOT_FOLDABLE;
  const text = content[0]!.text;
  const first = text.trimStart()[0];
  let value: unknown = text;
  if (first === "{" || first === "[") {
    try {
      value = JSON.parse(text) as unknown;
    } catch {
      // not JSON: counts as a string
    }
  }
  return { value, json: serializeAnswer(value, pieces) };
}

/** Whether `text` is the same JSON as `structured`, whose compact serialisation is `serialized`. */
function repeats(text: string | undefined, serialized: SerializedAnswer, structured: unknown): boolean {
  if (typeof text !== "string") return false;
  if (serialized.repeated) return true; // the usual MCP answer: compared while serialising
  // Pretty-printed by JSON.stringify: printing again with its indent is native, faster than a scan in JS.
  const indent = prettyIndent(text);
  if (indent && text === JSON.stringify(structured, null, indent)) return true;
  const json = serialized.text;
  if (text.length > json.length && sameButLayout(text, json)) return true; // any other layout
  try {
    return sameJson(JSON.parse(text), JSON.parse(json));
  } catch {
    return false;
  }
}

/** The indent of a text that `JSON.stringify(value, null, indent)` may have written: what follows `{\n` or `[\n`. */
function prettyIndent(text: string): string | undefined {
  if ((text[0] !== "{" && text[0] !== "[") || text[1] !== "\n") return undefined;
  const unit = text[2];
  if (unit !== " " && unit !== "\t") return undefined;
  let end = 3;
  while (end < 12 && text[end] === unit) end++;
  return text.slice(2, end); // JSON.stringify indents by at most 10
}

/**
 * Whether `text` is the compact JSON text `json` with whitespace between its tokens, for layouts that
 * `JSON.stringify` does not write (CRLF, other separators): one pass over the text, without parsing it.
 */
function sameButLayout(text: string, json: string): boolean {
  let at = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!inString && (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09)) continue;
    if (code !== json.charCodeAt(at++)) return false;
    if (!inString) inString = code === 0x22;
    else if (code === 0x5c) {
      if (text.charCodeAt(++i) !== json.charCodeAt(at++)) return false; // the escaped character
    } else if (code === 0x22) inString = false;
  }
  return at === json.length;
}

/** Deep equality of two parsed JSON values, in any key order; iterative, so depth cannot overflow the stack. */
function sameJson(a: unknown, b: unknown): boolean {
  const pending: unknown[] = [a, b];
  while (pending.length > 0) {
    const y = pending.pop();
    const x = pending.pop();
    if (x === y) continue;
    if (typeof x !== "object" || typeof y !== "object" || x === null || y === null) return false;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) pending.push(x[i], y[i]);
      continue;
    }
    if (Array.isArray(y)) return false;
    const keys = Object.keys(x);
    if (keys.length !== Object.keys(y).length) return false;
    for (const key of keys) {
      if (!hasOwn(y, key)) return false;
      pending.push((x as Record<string, unknown>)[key], (y as Record<string, unknown>)[key]);
    }
  }
  return true;
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

function foldedResult(original: ToolResult, folded: FoldedAnswer, bytes: number, ttlSeconds: number, path: string): ToolResult {
  const example = { handle: folded.handle, path, limit: 20 };
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

/**
 * The first list under the root, in the canonical path form `result_query` answers with (S7.5), so the
 * example call reads rows rather than the whole answer. Only the first keys are looked at: an object of
 * 48,000 keys and no list is not worth a scan (S4.8); a very long key would make a long hint.
 */
function examplePath(data: unknown, keyLists: KeyLists): string {
  if (isPlainObject(data)) {
    const keys = keyLists.of(data);
    for (let i = 0; i < Math.min(keys.length, EXAMPLE_KEYS_SCANNED); i++) {
      const key = keys[i]!;
      if (Array.isArray(data[key]) && key.length <= EXAMPLE_KEY_MAX_CHARS) return formatPath([key]);
    }
  }
  return "$";
}

const EXAMPLE_KEYS_SCANNED = 1000;
const EXAMPLE_KEY_MAX_CHARS = 100;

/**
 * A plugin remembers a failed store open for a while and rejects every call in that window with the same
 * error, so each failure is warned once, not once per call; a missing client package, once per instance.
 */
const warnedOpenFailures = new WeakSet<object>();

function warnOpenFailure(context: FoldContext, toolName: string, error: unknown): void {
  const message = `result-handles: could not open the store for tool "${toolName}" (${describeError(error)}); sent its answer whole`;
  if (error instanceof StorageClientMissingError) return context.warnOnce("store-client-missing", `${message}, as every large answer will be`);
  if (typeof error === "object" && error !== null) {
    if (warnedOpenFailures.has(error)) return;
    warnedOpenFailures.add(error);
  }
  context.warn(message);
}
