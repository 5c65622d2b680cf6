/**
 * What tests of queries over stored answers share: the three real Node stores (memory, a SQLite file, a
 * redis-server started for the file), a storage that counts its reads (and can fail from a given read
 * on), and the two sides compared: what `result_query` answers from the store, and what it answers for the
 * whole value read as one (the reference: S7.3, S7.5, S14.2, S14.4, S14.5), itself held to an oracle of
 * the tests' own (helpers/query-oracle.ts: json-p3 and plain code over the plain value).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import {
  MemoryStorage,
  ResultHandleStore,
  ResultQueryError,
  ResultQueryTool,
  type NamespacedStorage,
  type Owner,
} from "mcp-result-handles";
import type { ResultHandlesConfig } from "../../src/plugin/options.js";
import type { BatchWorkers } from "../../src/query/workers/pool.js";
import { answerPlanYielding, parseQueryArguments } from "../../src/query/query.js";
import { planPath } from "../../src/query/paths/plan.js";
import { searchQueryYielding, type SearchConfig } from "../../src/query/search/search-query.js";
import { CostMeter } from "../../src/query/cost.js";
import { redisDriver } from "../../src/storage/redis.js";
import { sqliteDriver } from "../../src/storage/sqlite.js";
import { openDriver } from "../storage/contract.js";
import { checkAnswer } from "./query-oracle.js";
import { startRedisServer, type RedisServer } from "./redis-server.js";

/**
 * Memory, SQLite and Redis, each opened on demand under `namespace`; Redis and the file live for the test
 * file. `timeoutMs`: each store call's timeout (S9.1), longer for answers of tens of MB on a loaded machine.
 */
export function everyStore(namespace: string, timeoutMs = 3000): [string, () => Promise<NamespacedStorage>][] {
  const dir = mkdtempSync(join(tmpdir(), `${namespace}-`));
  let redis: RedisServer | undefined;
  beforeAll(async () => {
    redis = await startRedisServer();
  }, 30_000);
  afterAll(async () => {
    await redis?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  return [
    ["memory", async () => new MemoryStorage(namespace, { maxBytes: 512 * 1024 * 1024 })],
    [
      "sqlite",
      () => openDriver(sqliteDriver, { sqlite: { path: join(dir, `${namespace}.sqlite`) } }, namespace, timeoutMs),
    ],
    ["redis", () => openDriver(redisDriver, { redis: { url: redis!.url } }, namespace, timeoutMs)],
  ];
}

/** A storage handing every call to `inner`: a test overrides what it watches or changes. */
export class PassThroughStorage implements NamespacedStorage {
  constructor(readonly inner: NamespacedStorage) {}
  get(key: string) {
    return this.inner.get(key);
  }
  set(key: string, value: Uint8Array, ttl: number) {
    return this.inner.set(key, value, ttl);
  }
  delete(key: string) {
    return this.inner.delete(key);
  }
  close() {
    return this.inner.close();
  }
}

/** Notes the key of every record read, in order, over a storage another store closes (it closes nothing itself). */
export class KeyWatchingStorage extends PassThroughStorage {
  readonly seen: string[] = [];
  override get(key: string) {
    this.seen.push(key);
    return this.inner.get(key);
  }
  override async close() {}
}

/** Counts the records read; from the `failAfter`-th read on (when set) it fails, as a store that went away. */
export class CountedStorage extends PassThroughStorage {
  gets = 0;
  failAfter: number | undefined;
  override async get(key: string) {
    this.gets++;
    if (this.failAfter !== undefined && this.gets > this.failAfter) throw new Error("store went away");
    return this.inner.get(key);
  }
}

/** `value` saved for `owner` in a store over a counting storage, and how long the save took. */
export async function savedCounted(storage: NamespacedStorage, value: unknown, owner: Owner) {
  const counted = new CountedStorage(storage);
  const store = new ResultHandleStore(counted, 60);
  const handle = store.newHandle();
  const started = performance.now();
  await store.save(handle, value, owner);
  return { counted, store, handle, foldMs: performance.now() - started };
}

/**
 * A store over `storage` that counts its reads (pieces of 16 KB, so lists read in batches of about 1 KB),
 * a `result_query` over it (with batch workers when given), and `fold`, which saves a value under a new
 * handle: `value` unless another is given.
 */
export function countedQueries(
  storage: NamespacedStorage,
  options: { config: ResultHandlesConfig; owner: Owner; value?: unknown; workers?: BatchWorkers },
) {
  const counted = new CountedStorage(storage);
  const store = new ResultHandleStore(counted, 60, { pieceBytes: 16 * 1024 });
  const tool = new ResultQueryTool(() => [
    { config: options.config, store: async () => store, workers: options.workers },
  ]);
  const fold = async (value: unknown = options.value) => {
    const handle = store.newHandle();
    await store.save(handle, value, options.owner);
    return handle;
  };
  return { counted, store, tool, fold };
}

/** Rows with escapes, non-ASCII, nested objects and lists, so batch and piece edges fall on them. */
export function ordersAnswer() {
  const rows = Array.from({ length: 6000 }, (_, i) => ({
    id: i,
    owner: `user${i % 13}`,
    status: ["open", "closed", "pending"][i % 3],
    amount: (i * 7919) % 100_000,
    note: i % 10 === 0 ? `say "hi"\\ ünï ${i}\nsecond line ${i % 7}` : `row ${i}`,
    tags: i % 4 === 0 ? ["a", "b"] : [],
    nested: { name: `n${i % 50}`, deep: { name: i % 2 ? "odd" : "even" } },
    flag: i % 5 === 0,
  }));
  return {
    meta: { title: "orders", rows: "not a list" },
    rows,
    events: Array.from({ length: 3000 }, (_, i) => ({ at: i, kind: i % 9 ? "tick" : "user5 logged in" })),
    total: rows.length,
  };
}

type Outcome = unknown;

/**
 * What `result_query` answers for `args` over the whole value read as one, or its refusal `{ code, message }`:
 * the evaluation a tool call runs over an answer held whole (`answerPlanYielding`, `searchQueryYielding`).
 */
export async function wholeAnswer(
  value: unknown,
  args: Record<string, unknown>,
  config: SearchConfig,
): Promise<Outcome> {
  const result = await outcome(() => {
    const parsed = parseQueryArguments({ handle: "h", ...args });
    const plan = planPath(parsed.path);
    if (parsed.search !== undefined)
      return searchQueryYielding(value, plan, { ...parsed, search: parsed.search }, config, new CostMeter());
    return answerPlanYielding(value, plan, parsed, config.sliceLimitBytes, new CostMeter());
  });
  // The reference is src's own query code over the whole value: an oracle of the tests' own holds it to
  // json-p3's evaluation and plain code first, so a fault both reads share does not pass unseen.
  checkAnswer(value, args, result, config.sliceLimitBytes);
  return result;
}

const references = new WeakMap<object, Map<string, Promise<Outcome>>>();

/**
 * `wholeAnswer`, computed once per value, config and query: where several stores (or runs) are held to the
 * same reference, it is worked out once. `value` must not change after its first use here.
 */
export function referenceAnswer(value: object, args: Record<string, unknown>, config: SearchConfig): Promise<Outcome> {
  const known = references.get(value) ?? references.set(value, new Map()).get(value)!;
  const key = JSON.stringify([config.sliceLimitBytes, config.preview.chars, args]);
  if (!known.has(key)) known.set(key, wholeAnswer(value, args, config));
  return known.get(key)!;
}

/** What the tool answers for `args` on `handle`, or its refusal `{ code, message }`. */
export async function answered(
  tool: ResultQueryTool,
  handle: string,
  args: Record<string, unknown>,
  owner: Owner,
): Promise<Outcome> {
  return outcome(() => tool.query({ handle, ...args }, owner));
}

/**
 * S18.2: the keys an empty nodelist's note lists are a sample of the objects each read visited (a batch left
 * unparsed is read from its text, and may add others): two reads are compared on which names the note says
 * are missing, and where, not on that sample.
 */
function sameNote<T>(result: T): T {
  if (typeof result !== "object" || result === null || typeof (result as { note?: unknown }).note !== "string")
    return result;
  const note = (result as unknown as { note: string }).note.replace(
    /; (its (items|members) have|they have|the keys there are|its keys are|@\S* there has) [^;]*/g,
    "; …",
  );
  return { ...result, note };
}

function outcome<T>(run: () => T): T | { code: string; message: string } {
  const refusal = (error: unknown) => {
    if (error instanceof ResultQueryError) return { code: error.code, message: error.message };
    throw error;
  };
  try {
    const result = run();
    return result instanceof Promise ? (result.then(sameNote, refusal) as T) : sameNote(result);
  } catch (error) {
    return refusal(error);
  }
}
