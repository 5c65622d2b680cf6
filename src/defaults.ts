/** `_meta` key of a folded answer: `{ handle, bytes, ttlSeconds }` (S5.3). Kept from the reference's wire form. */
export const RESULT_HANDLE_META_KEY = "frontmcp/result-handle";
/** Name of the tool that reads a folded answer back (S7). */
export const RESULT_QUERY_TOOL_NAME = "result_query";
/** URI scheme of a folded answer served as a resource: `result-handle://<handle>` (S15.4). */
export const RESULT_HANDLE_URI_SCHEME = "result-handle";
/**
 * Most distinct `{ "$result": … }` references one tool call may carry (S15.1): each is read whole, so a
 * call of thousands must not make the server read and hold thousands of answers (S16.1).
 */
export const MAX_REFERENCES_PER_CALL = 64;
/**
 * Lists in lists this deep list the reference among their items' schemas (S25.2); deeper ones are listed as they were.
 */
export const REFERENCE_ITEM_DEPTH = 4;
/**
 * Bytes one call's repeated references may add beyond each value's first place (S15.1, S16.1): a value is
 * read once but checked (and copied) by the tool's input schema at every place it stands.
 */
export const MAX_REPEATED_REFERENCE_BYTES = 16 * 1024 * 1024;
/**
 * References of a call read before their cost so far is projected over all of them (S26.2, S21.5): past the
 * call's cost limit, the call is refused then, not once the limit is met (64 references of count($.b[*]), each
 * a fiftieth of the limit, were refused after 3.6-6.6 s on a loaded machine).
 */
export const REFERENCES_BEFORE_PROJECTING = 8;
/**
 * `result_query` calls of one owner that read and query at the same time in this process (S21.3, S21.4, S21.5);
 * the rest wait, up to `waiting`, and past that are refused. Sixty concurrent filters of one owner over
 * a 10 MB answer on Redis queued 600 MB of reads on one connection: most were refused as a store that could not be
 * read, and another owner waited 2.2-3.6 s.
 */
export const QUERY_CALLS_PER_OWNER = Object.freeze({ running: 8, waiting: 64 });
/**
 * Memory store defaults (S9.3), the one place both a plugin's resolved config and a bare
 * `new MemoryStorage(namespace)` read them. Answers a memory store keeps unless `storage.memory.maxEntries`
 * (or the `maxEntries` option) says otherwise.
 */
export const DEFAULT_MEMORY_MAX_ENTRIES = 1000;
/**
 * Bytes a memory store keeps unless `storage.memory.maxBytes` says otherwise: 256 MiB in Node, 64 MiB in
 * a page, which has less to spare (S9.3), 32 MiB in an edge isolate (a Cloudflare Worker has 128 MB in all,
 * S17.1). A build's config passes its own figure; a bare
 * `new MemoryStorage(namespace)` takes the figure of the runtime it finds itself in.
 */
export const DEFAULT_MEMORY_MAX_BYTES = {
  node: 256 * 1024 * 1024,
  browser: 64 * 1024 * 1024,
  edge: 32 * 1024 * 1024,
} as const;
/** Smallest allowed `thresholdBytes` (S3). */
export const MIN_THRESHOLD_BYTES = 1024;

export const DEFAULT_THRESHOLD_BYTES = 16384;
/**
 * S18.6 with `thresholdTokens`: an answer of more than this many bytes per token of the threshold folds
 * without estimating its whole text (real text runs 2 to 8 bytes a token; only long runs of spaces, which a
 * model pays for as characters anyway, run more), and its `tokens` are extrapolated from a sample.
 */
export const TOKEN_BYTES_DECIDE = 16;
/**
 * Characters tokenx estimates at a time (about 2 ms of its work): the sample of a far larger answer, and the step of an
 * estimate that may stop early.
 */
export const TOKEN_SAMPLE_CHARS = 16 * 1024;
/**
 * With `thresholdTokens`, `result_query`'s slice limit in bytes per token of the threshold (Claude Code counts 4
 * characters a token).
 */
export const BYTES_PER_TOKEN = 4;
/**
 * What one host keeps of a tool's answer before it cuts or spills it, silently for the model (S23.1): a
 * limit in one or more units (bytes of UTF-8, characters as the host counts them, lines, tokens). `host`
 * is how the hint names it ("folded to fit Codex's 10 KiB limit").
 */
export interface HostLimit {
  readonly host?: string;
  readonly bytes?: number;
  readonly chars?: number;
  readonly lines?: number;
  readonly tokens?: number;
}
/**
 * The hosts `hostLimits: "auto"` knows (S23.1), keyed by the `clientInfo.name` each sends in `initialize`
 * (compared exactly: "Cline" and "Zed" are capitalised), each name and cut from the host's own source.
 * Copilot CLI cuts MCP text at 10 KB (github/copilot-cli #1732) but its source is closed and no client
 * name is published: add it with `hostLimits: { "<its name>": { bytes: 10000 } }`.
 */
export const KNOWN_HOST_LIMITS: Readonly<Record<string, HostLimit>> = Object.freeze({
  // openai/codex codex-rs/core/src/mcp_connection_manager.rs: `Implementation { name: "codex-mcp-client", title:
  // "Codex" }`;
  // the cut: codex-rs/core/src/context_manager/truncate.rs, MODEL_FORMAT_MAX_BYTES = 10 * 1024, MODEL_FORMAT_MAX_LINES
  // = 256
  // (openai/codex #6544, #7906).
  "codex-mcp-client": Object.freeze({ host: "Codex", bytes: 10 * 1024, lines: 256 }),
  // google-gemini/gemini-cli packages/core/src/tools/mcp-client.ts: `new Client({ name: "gemini-cli-mcp-client" })`;
  // the cut: packages/core/src/config/config.ts, DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD = 40_000 (#18446, #19365).
  "gemini-cli-mcp-client": Object.freeze({ host: "Gemini CLI", chars: 40_000 }),
  // Claude Code is closed source: "claude-code" is the name public MCP servers record from its sessions. Its cut
  // is MAX_MCP_OUTPUT_TOKENS, 25,000 tokens by default (its docs), counted as characters / 4 (BYTES_PER_TOKEN).
  "claude-code": Object.freeze({ host: "Claude Code", tokens: 25_000 }),
  // cline/cline apps/vscode/src/services/mcp/McpHub.ts: `new Client({ name: "Cline" })`; the cut, 100 KB, as
  // issue 38 reports it (the constant was not located in its source).
  Cline: Object.freeze({ host: "Cline", bytes: 100_000 }),
  // block/goose crates/goose/src/agents/mcp_client.rs: `Implementation { name: "goose" }`; it spills an answer
  // past 200,000 characters to a file.
  goose: Object.freeze({ host: "Goose", chars: 200_000 }),
  // zed-industries/zed crates/context_server/src/client.rs: client info name "Zed"; it cuts at 64 KiB.
  Zed: Object.freeze({ host: "Zed", bytes: 64 * 1024 }),
});
/**
 * The part of a host's cut kept for what surrounds the answer (S23.1: the envelope, the host's own framing):
 * an answer folds once over the cut less this fraction of it, in the host's unit (Codex: past 9,600 bytes
 * or 240 lines).
 */
export const HOST_CUT_MARGIN = 1 / 16;
export const DEFAULT_TTL_SECONDS = 600;
export const DEFAULT_PREVIEW = Object.freeze({ items: 5, chars: 500 });
export const DEFAULT_NAMESPACE = "result-handles";
/** A store call slower than this counts as failed (S9.1). */
export const DEFAULT_STORE_TIMEOUT_MS = 3000;
/**
 * How long one tool call may wait for its store in all (S26.3: a fold's writes, a query's reads of every
 * piece and instance, a call's references; not its own work in between), or the `timeoutMs` given when that
 * is longer: then the call stops waiting (a query answers `RESULT_STORE_UNAVAILABLE`, a fold sends the
 * answer whole). Short of the 2 s in which S21.5 has every call answered: 3000 (the store timeout's default)
 * answered a read from a frozen Redis after 3.1 s.
 */
export const DEFAULT_STORE_DEADLINE_MS = 1500;

// What follows is internal: bounds and timings the rules fix or the code tunes, kept here so every
// default of the package is read in one place. None is an option; the public ones are above.

/**
 * What `result_query` returns unless `limit` says otherwise (S7.1): list items, object keys, string characters,
 * nodelist nodes (S14.2).
 */
export const DEFAULT_LIMITS = Object.freeze({ items: 20, keys: 20, chars: 2000, nodes: 20 });
/**
 * What one aggregate may hold while it counts (S24.3): distinct groups, the characters of their keys' JSON
 * together, and of their example paths together (up to three a group; paths of 13-30 characters for 100,000
 * groups are 4-9 M). The answer holds at most `limit` groups; these bound what is counted to sort them.
 */
export const AGGREGATE_LIMITS = Object.freeze({
  groups: 100_000,
  keyChars: 8 * 1024 * 1024,
  exampleChars: 16 * 1024 * 1024,
});
/**
 * `_meta` key of `result_query`'s `tools/list` entry: the largest answer it returns, in characters (S18.5). Claude Code
 * reads it.
 */
export const MAX_RESULT_SIZE_META_KEY = "anthropic/maxResultSizeChars";
/** The most Claude Code accepts in `anthropic/maxResultSizeChars` (S18.5). */
export const CLAUDE_CODE_MAX_RESULT_CHARS = 500_000;
/** Characters of a `result_query` answer around its slice and paths: `path`, `total`, `offset`, `note` (S18.5). */
export const RESULT_ENVELOPE_CHARS = 2000;
/** Largest `limit` a `result_query` call may ask for (S7.1). */
export const MAX_LIMIT = 100_000;
/** Longest `search` text (S14.4). */
export const MAX_SEARCH_CHARS = 200;
/** Bounds of a shape (S6.3): levels deep, keys per object, list items inspected for widening. */
export const SHAPE_LIMITS = Object.freeze({ depth: 8, keys: 50, items: 1000 });
/** IndexedDB database a page's store opens unless `storage.indexeddb.database` names another (S9.1). */
export const DEFAULT_INDEXEDDB_DATABASE = "mcp-result-handles";
/** Shortest pause after a failed store open before the next attempt (the store's `timeoutMs` if longer). */
export const MIN_OPEN_RETRY_MS = 1000;
/** An answer in one piece gets an index from this size on (two batches of a list, `serializeAnswerYielding`; S8.5). */
export const INDEXED_BYTES = 64 * 1024;
/** How often a store without native expiry sweeps its expired records (S9.3): memory, SQLite, IndexedDB. */
export const SWEEP_INTERVAL_MS = Object.freeze({ memory: 30_000, sqlite: 60_000, indexeddb: 60_000 });
/**
 * SQLite never waits for another process's lock on the calling thread (S26.4): a call that finds the
 * database locked tries again after `first` ms, then twice as long each time up to `longest`, until the
 * store's `timeoutMs`.
 */
export const SQLITE_BUSY_RETRY_MS = Object.freeze({ first: 2, longest: 50 });
/**
 * Page size of a SQLite file this package creates (SQLite's largest): pieces of 256–512 KB are read in few pages
 * (S26.4).
 */
export const SQLITE_PAGE_BYTES = 65_536;
/**
 * A Redis that has answered nothing for this long while a command waits is taken as frozen (S26.3): new
 * commands fail at once (the answer goes out whole) instead of each waiting its whole timeout, until a
 * probe is answered. A live Redis answers something every few milliseconds, even under load.
 */
export const REDIS_SILENT_MS = 1000;
/** Longest pause between two attempts of ioredis to reconnect to a Redis that went away. */
export const REDIS_MAX_RETRY_DELAY_MS = 1000;
/**
 * Most parameters a `result-handle://` URI's query string may have (S15.4, S21.2): it takes six names, and
 * repeats or unknown ones are ignored; past this it is refused before it is parsed (`URLSearchParams` of
 * 300,000 parameters held the calling thread 70 ms and its garbage as long again).
 */
export const MAX_RESOURCE_QUERY_PARAMETERS = 64;
/** Longest JSONPath query `result_query` compiles (S14.3). */
export const MAX_QUERY_CHARS = 4096;
/**
 * Longest path of any form, refused before it is parsed (S21.2): the S7.2 forms parse in linear time, but
 * a 1 MB path of 500,000 names held the calling thread 100 ms. A name may be longer than a JSONPath query
 * (a quoted key of 10,000 characters), so this is far above MAX_QUERY_CHARS.
 */
export const MAX_PATH_CHARS = 65_536;
/**
 * Units of work one call may spend (S21.1, `CostMeter`), unless the `costLimit` option says otherwise:
 * about one second of work on a 2-core server (a unit is about a nanosecond). Honest queries over a
 * 10 MB answer spend a tenth of it; nested descendants (`$..*..*`), filters reading `$` per item and
 * patterns run over long texts are refused when they pass it, as they work.
 */
export const DEFAULT_COST_LIMIT = 1_000_000_000;
/**
 * Units each kind of work costs (S21.1), measured on Node 20 here: a JSONPath node visited or selected
 * (about 300 ns through json-p3's generators), a filter-expression node evaluated for one item, a byte
 * decrypted, a byte parsed, one character × one compiled regex instruction (RE2's worst case is their
 * product), a byte of a resolved `$result` reference (read, copied and checked by the tool's schema), a
 * character of the JSON text an aggregate makes of a list or object it groups by (keys sorted: 20-50 ns a
 * character; `by: "@"` over `$..*` made 460 M of them for a 3.2 MB answer, 22 s uncharged, S24.3).
 */
export const COST_WEIGHTS = Object.freeze({
  nodes: 300,
  expressions: 20,
  decrypted: 2,
  parsed: 8,
  regex: 5,
  references: 10,
  keyed: 20,
});
/** The calling thread yields after this long of one call's work (S21.4: never held much more than 50 ms). */
export const YIELD_AFTER_MS = 20;
/**
 * Work that cannot yield (a query from `@` inside a filter runs whole inside each
 * item it filters) is refused once it has held the thread this long without yielding (S21.4, S26.1: about
 * 50 ms; it was 200, and such a call held the loop 0.4-1.5 s under load): the meter's limit alone let one
 * such call hold everyone else up for a second. Above what the work that yields holds between two
 * yields (YIELD_AFTER_MS). A query from the root inside a filter yields: it runs once, beforehand.
 */
export const MAX_HOLD_MS = 50;
/**
 * ... and has done at least this much evaluation meanwhile (units of COST_WEIGHTS): the time alone counts
 * a hold that only waited for the processor on a loaded machine (a 20,000-row filter was refused at 258 ms
 * under a full test run). About 15 ms of work idle; on a machine several times slower, the refusal comes
 * when that work is done (50 M let such a hold last 0.3-1.7 s under load, S26.1). Work that
 * yields charges at most about a million units between two looks at the clock (`yield-points.ts`).
 */
export const MAX_HOLD_UNITS = 15_000_000;
/**
 * A page's entry is measured exactly up to this many times the size limit, and past it only until it is
 * known to be larger (S26.1: one member of a million keys was measured whole, 0.3 s without yielding, only to
 * refuse it); the refusal then says "more than".
 */
export const EXACT_SIZE_FACTOR = 4;
/**
 * Static limits, checked before any work (S21.2): a filter expression's nodes and nesting, a compiled
 * regex program's instructions (`.{1000}` is about 1000), and the units one regex run may cost at once
 * (a run cannot stop halfway, so one run holds the thread at most about 50 ms).
 */
export const STATIC_LIMITS = Object.freeze({
  filterNodes: 300,
  filterNesting: 40,
  regexInstructions: 5000,
  regexRunUnits: 50_000_000,
});
/**
 * Bytes the compiled-pattern cache may hold (S21.3), by the program's size (about 100 bytes an
 * instruction, measured), within the memory cap of S16.3 (the recent answers get the rest).
 */
export const PATTERN_CACHE_BYTES = 4 * 1024 * 1024;
/**
 * Bytes the `$result` references of one call may resolve to in all (S21.3); each is read in turn, and the call is
 * refused past it.
 */
export const MAX_REFERENCE_BYTES_PER_CALL = 32 * 1024 * 1024;
/**
 * A whole-answer `resources/read` (no query string) of more bytes than this is refused with the ranged
 * form that works (S21.3): parsing and writing 100 MB held the thread 2 s.
 */
export const MAX_WHOLE_RESOURCE_BYTES = 8 * 1024 * 1024;
/**
 * A batch worker holding jobs that has said nothing for this long is stopped and replaced, and the job it was
 * counting is refused (S21.4). A worker says it is alive after each batch it counts, so only one batch that costs
 * far more than a short hold (or a worker that hangs) meets this. What a job may do is bounded by its units
 * (`BATCH_JOB_UNITS`), not by time: on a busy machine a job takes longer and is still answered (a deadline of 2 ×
 * 400 ms on the whole job refused `by "@"` aggregates at a load of 9-11, and calling again did not help).
 */
export const BATCH_WORKER_SILENT_MS = 800;
/**
 * Units one batch worker's job may spend (S21.1, S21.4): an eighth of the default limit, so a job is one
 * short hold. A job past it stops at once and the call is refused; what jobs spent is charged to the
 * call's own meter on the calling thread, against its `costLimit`.
 */
export const BATCH_JOB_UNITS = DEFAULT_COST_LIMIT / 8;
/**
 * Batch workers (S14.6, `WorkerPool`): a filter over a list of at least `minBytes` counts its
 * batches on up to `threads` other threads (never more than the machine's cores), which stop
 * after `idleMs` without work, and are not used for `retryMs` after one failed. Below 1 MB the hand-over
 * costs more than it saves.
 */
export const BATCH_WORKERS = Object.freeze({ minBytes: 1024 * 1024, threads: 2, idleMs: 30_000, retryMs: 5 * 60_000 });
/**
 * A wide object's filter waits for the batch workers to start (50-200 ms, once a pause) when none runs, from `bytes`
 * on (S26.1: a million keys, 17 MB, took 1.1-2 s on the calling thread, 0.4-0.9 s on two workers), at most `ms`
 * (workers that load no sooner are not waited for); below it, and for lists, the call counts on its own thread
 * meanwhile.
 */
export const WAIT_FOR_WORKERS = Object.freeze({ bytes: 8 * 1024 * 1024, ms: 1000 });
/**
 * The largest JSON size of the values a query's queries from the root inside filters were read to (S26.1) that go
 * with each batch job of the query (every job is handed them, and a worker binds them again): past it, the list is
 * read on the calling thread alone.
 */
export const ROOT_SUMMARY_JOB_BYTES = 64 * 1024;
/**
 * A fold's serialisation yields once it has held the calling thread this long since it last
 * yielded (S21.4: about 50 ms at most), between batches of a list, batches of a long string or members of a
 * wide object. A 10 MB list of rows serialises in about 35 ms here, in one go.
 */
export const SERIALISE_HOLD_MS = 40;
/**
 * Long work yields at its next step once the loop has been held this long since it last came round, by it and
 * by other calls together (S21.4, `loopHeld`): calls that go on in one pass, or requests that come in together,
 * do not add their pieces up. One piece of YIELD_AFTER_MS: the work of a pass is one call's piece.
 */
export const LOOP_HOLD_MS = 20;
/**
 * An answer sent whole from this size on waits for its turn of the loop first (S21.4): the host writes it in
 * one go, one `JSON.stringify` of it (about 1 ms per 100 KB).
 */
export const WHOLE_ANSWER_TURN_BYTES = 256 * 1024;
/**
 * The seal thread (S21.7, `SealAhead`): a fold seals pieces on it while it serialises, under a piece count
 * settled from a guess of the answer's size times SEAL_AHEAD_MARGIN (a guess short by more than that
 * seals as without a thread). A job that has not answered within `deadlineMs` fails (its piece is sealed on
 * the calling thread); the thread stops after `idleMs` without work, and is not used for `retryMs` after
 * it failed.
 */
export const SEAL_AHEAD_MARGIN = 1.5;
/**
 * A guess that needs more pieces than this (2 GB at Node's 512 KB: a list whose first items are far larger than the
 * rest) seals nothing ahead.
 */
export const SEAL_AHEAD_MAX_COUNT = 4096;
export const SEAL_THREAD = Object.freeze({ deadlineMs: 2000, idleMs: 30_000, retryMs: 5 * 60_000 });
/**
 * Memory every store's cache of recently read answers may hold together, in one process (S16.3): by what
 * the parsed answers hold in memory (`heapEstimate`), not their JSON length. Shared by all stores and
 * plugin instances; least recently used goes first, an answer larger than this is not kept.
 */
export const DEFAULT_RECENT_ANSWERS_BYTES = 64 * 1024 * 1024 - PATTERN_CACHE_BYTES;

/*
 * How the work of S26.1 and S21.4 is cut into pieces that each hold the thread briefly.
 */

/** A batch at most this many times BATCH_CHARS is kept as it was made; a larger one is cut again. */
export const OVERSIZED_BATCHES = 4;

/** Batches parsed as one text at most (S26.1): one `JSON.parse` of about 8 batches' members, 15-30 ms here. */
export const RUN_BATCHES = 8;

/** Runs read (decrypted and decoded) in one turn when sifting every batch: about 1 MB of members (S26.1). */
export const SIFTED_RUNS = 4;

/**
 * Names looked up in the index one by one at most: more (100,000 `fields`) read every batch, since each
 * lookup in a Bloom-filtered index tests every batch's filter, and that many names would take every batch anyway.
 */
export const NAMES_LOOKED_UP = 256;

/** More `fields` than this: the call yields once they are read, before its reads (S21.4). */
export const MANY_FIELDS = 10_000;

/**
 * Every how many values walked a list or object of one item is kept among those seen. The walks of a call's
 * arguments (`hasReferences`, `copyWithSlots` in plugin/references.ts) keep the lists and objects of the arguments
 * they have been through, so one shared or in a cycle (an in-process client may pass one) is walked once; a list or
 * object of several items is always kept, one of a single item only every this many values. A chain of single items
 * a million deep (a reference at its bottom) kept a million of them, which cost more than the walks themselves (0.65
 * of the 1 s they took); now a few thousand. A cycle still ends: it passes a kept list or object within this many
 * values and comes back to it; and a shared chain is walked again at most this far.
 */
export const SINGLES_KEPT_EVERY = 64;
