import type { Owner } from "../records/crypto/keys.js";
import { describeError, StorageClientMissingError } from "../errors.js";
import { fitFoldedAnswer } from "./fit.js";
import type { FoldedAnswer } from "./folded-answer.js";
import { foldedResult } from "./hint.js";
import { hintExamples } from "./hint-examples.js";
import { overTokens } from "./tokens.js";
import { isPlainObject, KeyLists } from "../util/json.js";
import { repeats } from "./same-json.js";
import { callSliceLimit, foldAllowanceBytes, hostCutOf, type ResultHandlesConfig } from "../config.js";
import { serializeAnswerYielding, type PieceOptions, type SerializedAnswer } from "../records/format/serialize.js";
import { StoreCall, type ResultHandleStore } from "../records/store.js";
import type { SealAhead } from "../records/seal-ahead.js";
import type { ToolResult } from "../util/tool-result.js";
import { describeCut, lineCount, passedUnit, type HostMeasures } from "./host-cut.js";
import { utf8Length } from "../util/utf8.js";
import { yieldAlone } from "../util/yield.js";
import { WHOLE_ANSWER_TURN_BYTES } from "../defaults.js";

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
  /**
   * A sealer that seals pieces while the answer is serialised (S21.7), once `minBytes` are written, where
   * the store has a seal thread and is open.
   */
  sealAhead?(owner: Owner, minBytes: number): SealAhead | undefined;
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
  /**
   * The host resolves `{ "$result": handle }` references (S15.1): the hint then says how to pass this answer on
   * (S15.3).
   */
  references?: boolean;
  /** The host serves `result-handle://` resources (S15.4): the folded content then ends with a `resource_link`. */
  resourceLink?: boolean;
  /** The calling host's `clientInfo.name`, when known (S23.2): an answer over that host's cut folds too. */
  client?: string;
}

/**
 * Host-neutral fold (S4, S5): the original result, or `{ preview, shape, handle }` with a hint text and
 * `_meta[RESULT_HANDLE_META_KEY]`. It never throws (S4.7): a store that fails or hangs, a missing
 * WebCrypto, an answer JSON cannot write (too deep, a bigint) or any other failure of the fold leaves the
 * answer whole, with a warning. (Hosts then end a call whose answer cannot be sent at all, S16.7.)
 */
export async function foldToolResult(context: FoldContext, input: FoldInput): Promise<ToolResult> {
  const outcome = await foldOutcome(context, input);
  if (outcome.failed) warnFoldFailure(context, input.toolName, outcome.failure);
  return outcome.result;
}

/** What a fold did, for hosts: the result to send, the data it serialised without fault, and why it failed. */
export interface FoldOutcome {
  result: ToolResult;
  /** The `structuredContent` the fold serialised whole (so it is known to write as JSON), if any. */
  serialised?: unknown;
  failed: boolean;
  failure?: unknown;
}

/** `foldToolResult` without its warning on failure: a host says what the failure means for the call. */
export async function foldOutcome(context: FoldContext, input: FoldInput): Promise<FoldOutcome> {
  const progress: Progress = {};
  let outcome: FoldOutcome;
  try {
    outcome = { result: await foldOrKeep(context, input, progress), serialised: progress.serialised, failed: false };
  } catch (error) {
    outcome = { result: input.result, serialised: progress.serialised, failed: true, failure: error };
  }
  // S21.4: the host writes an answer sent whole in one go (one JSON.stringify of it, 10–25 ms at 1.4 MB). It
  // takes a pass of the loop of its own: twenty folds whose store gave up at once (S26.3) wrote twenty such
  // answers in one pass, and held it 0.5 s.
  if (outcome.result === input.result && (progress.bytes ?? 0) >= WHOLE_ANSWER_TURN_BYTES) await yieldAlone();
  return outcome;
}

/** What a fold got to before it ended: the data it serialised whole, and its size. */
interface Progress {
  serialised?: unknown;
  bytes?: number;
}

export function warnFoldFailure(context: FoldContext, toolName: string, error: unknown): void {
  context.warn(
    `result-handles: could not fold the answer of tool "${toolName}" (${describeError(error)}); sent it whole`,
  );
}

async function foldOrKeep(context: FoldContext, input: FoldInput, progress: Progress): Promise<ToolResult> {
  const { result, toolName, owner } = input;
  const { config } = context;
  if (result.isError || rendersWidget(input.toolMeta)) return result;
  const keyLists = new KeyLists(); // one key listing per object for the serialisation, preview and shape
  // A call nobody could read back never folds (below): nothing to seal ahead for it.
  // It seals nothing until the answer has passed the fold threshold in bytes: a small answer costs it nothing (a
  // threshold in tokens has none: it seals from the first piece).
  const ahead = owner.session || owner.caller ? context.sealAhead?.(owner, config.foldBytes ?? 0) : undefined;
  // A seal thread reads pieces in place: their buffers go back once it has let go of them too.
  const release = (json: SerializedAnswer) =>
    ahead ? void ahead.settled().then(() => json.release()) : json.release();
  const data = await foldableData(
    result,
    { keyLists, pieceBytes: context.pieceBytes, ...(ahead && { onPiece: ahead.piece }) },
    release,
  );
  if (data === NOT_FOLDABLE) return result;
  if (data.value === result.structuredContent) progress.serialised = data.value;
  progress.bytes = data.json.bytes;

  // The serialisation's buffers go back for the next answer on every way out, but only once nothing can
  // read them: at once if encryption never started, else once it has succeeded (never on its failure,
  // while other pieces may still be encrypting from them).
  const json = data.json;
  let sealing: ReturnType<ResultHandleStore["seal"]> | undefined;
  try {
    // S4.3 in bytes: the serialisation wrote them as UTF-8 pieces, ready to encrypt (S8.5).
    const bytes = json.bytes;
    const cut = hostCutOf(config, input.client);
    let tokens: number | undefined;
    let over: boolean;
    if (config.foldTokens !== undefined) {
      // S18.6: by estimated tokens, the estimate made only where the byte size does not decide alone.
      const counted = await overTokens(json, config.foldTokens);
      over = counted.fold;
      tokens = counted.tokens;
    } else over = bytes > config.foldBytes;
    // S23.1: under the threshold, an answer still folds when the calling host would cut it.
    const cutBy = over ? undefined : passedUnit(cut, hostMeasures(result, json));
    if (!over && cutBy === undefined) return result;
    if (!owner.session && !owner.caller) {
      // S4.4: nobody could read the handle back. Say why once per tool, or a user never learns it.
      context.warnOnce(
        `anonymous:${toolName}`,
        `result-handles: tool "${toolName}" answered ${bytes} bytes to an anonymous call (no session, no caller) ` +
          `and was sent whole; answers fold for calls with a session or an authenticated caller, ` +
          `or with hostOptions.owner`,
      );
      return result;
    }
    const answer = data.value;

    try {
      const fold = await config.foldPolicy(toolName, answer, {
        bytes,
        fullName: input.fullName ?? toolName,
        request: input.request,
      });
      if (fold !== true) return result;
    } catch (error) {
      context.warn(
        `result-handles: foldPolicy threw for tool "${toolName}" (${describeError(error)}); sent its answer whole`,
      );
      return result;
    }

    let store: ResultHandleStore;
    const storeCall = new StoreCall(); // the fold's store calls wait at most the storage's deadlineMs in all (S26.3)
    try {
      store = await context.store();
    } catch (error) {
      warnOpenFailure(context, toolName, error);
      return result;
    }
    // newHandle (crypto.randomUUID), seal and the fit may throw too: foldToolResult sends the answer whole then.
    // The sealer's handle where it sealed pieces ahead (S21.7): `seal` uses them for it, and only for it.
    const handle = ahead?.handle ?? store.newHandle();
    // Sealing starts now but encrypts only once the keys are derived, after the synchronous fit below:
    // it overlaps the output schema check at most (sealed ahead, what is left is the last pieces on the
    // thread and the index). Anything it throws is caught where it is awaited.
    sealing = store.seal(handle, json, owner, ahead);
    sealing.catch(() => {}); // its failure is handled where it is awaited, or irrelevant if we stop first
    const folded = fitFoldedAnswer(answer, handle, config.preview, foldAllowanceBytes(config, cut), keyLists);

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
      await store.put(sealed, storeCall);
    } catch (error) {
      context.warn(
        `result-handles: the store could not keep the answer of tool "${toolName}" (${describeError(error)}); ` +
          `sent it whole`,
      );
      return result;
    }
    // Examples sized to the slices this host's calls get (S23.2), so each works as written.
    const examples = hintExamples(answer, folded.preview, callSliceLimit(config, cut), keyLists);
    return foldedResult(result, folded, {
      bytes,
      ttlSeconds: config.ttlSeconds,
      examples,
      references: input.references === true,
      resourceLink: input.resourceLink === true,
      ...(tokens !== undefined ? { tokens } : {}),
      ...(cut && cutBy !== undefined ? { cut: describeCut(cut, cutBy) } : {}),
    });
  } finally {
    if (sealing)
      sealing.then(
        () => release(json),
        () => {},
      );
    else release(json);
  }
}

/**
 * The answer as the host counts it (S23.1): a text-only answer by its text, as sent; one with
 * `structuredContent` by its JSON too (hosts such as Codex show that), whichever is larger in each unit.
 * Asked only of an answer under the threshold, so decoding its JSON to count characters costs at most that.
 */
function hostMeasures(result: ToolResult, json: SerializedAnswer): HostMeasures {
  const only = result.content?.length === 1 ? result.content[0] : undefined;
  const text = only?.type === "text" && typeof only.text === "string" ? only.text : undefined;
  const structured = result.structuredContent !== undefined || text === undefined;
  let chars: number | undefined;
  return {
    bytes: Math.max(structured ? json.bytes : 0, text === undefined ? 0 : utf8Length(text)),
    chars: () => (chars ??= Math.max(structured ? json.text.length : 0, text?.length ?? 0)),
    // Compact JSON is one line; a text's newlines are the host's lines.
    lines: () => Math.max(1, text === undefined ? 1 : lineCount(text)),
  };
}

const NOT_FOLDABLE = Symbol("not foldable");

/** The answer's data (S4.3) and its one serialisation: compared with a repeating text, measured, encrypted. */
interface FoldableData {
  value: unknown;
  json: SerializedAnswer;
}

/** S4.2 and S4.3: the answer's data, when it is one text or structuredContent with at most one text repeating it. */
async function foldableData(
  result: ToolResult,
  pieces: Pick<PieceOptions, "keyLists" | "pieceBytes" | "onPiece">,
  release: (json: SerializedAnswer) => void,
): Promise<FoldableData | typeof NOT_FOLDABLE> {
  const content = result.content ?? [];
  const structured = result.structuredContent;
  if (structured !== undefined) {
    if (content.length > 1 || (content.length === 1 && content[0]!.type !== "text")) return NOT_FOLDABLE;
    const text = content.length === 1 ? content[0]!.text : undefined;
    const json = await serializeAnswerYielding(structured, {
      ...pieces,
      ...(typeof text === "string" ? { repeatedBy: text } : {}),
    });
    if (content.length === 1 && !repeats(text, json, structured)) {
      release(json); // nothing will encrypt it
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
  return { value, json: await serializeAnswerYielding(value, pieces) };
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

/**
 * A plugin remembers a failed store open for a while and rejects every call in that window with the same
 * error, so each failure is warned once, not once per call; a missing client package, once per instance.
 */
const warnedOpenFailures = new WeakSet<object>();

function warnOpenFailure(context: FoldContext, toolName: string, error: unknown): void {
  const message =
    `result-handles: could not open the store for tool "${toolName}" (${describeError(error)}); ` +
    `sent its answer whole`;
  if (error instanceof StorageClientMissingError)
    return context.warnOnce("store-client-missing", `${message}, as every large answer will be`);
  if (typeof error === "object" && error !== null) {
    if (warnedOpenFailures.has(error)) return;
    warnedOpenFailures.add(error);
  }
  context.warn(message);
}
