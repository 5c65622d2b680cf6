import type { ClusterOptions, RedisOptions } from "ioredis";
import { StoreTimeoutError } from "../errors.js";
import { REDIS_MAX_RETRY_DELAY_MS, REDIS_SILENT_MS } from "../defaults.js";
import { loadClient } from "./load-client.js";
import { keySlot } from "./redis-slot.js";
import type { NamespacedStorage } from "./types.js";
import { unref } from "../util/unref.js";

/** Where Redis is: a URL, one server, or a cluster's masters to start from (S9.1, S17.2); `redisDriver` checks it. */
export type RedisConnection =
  | { url: string }
  | { host: string; port: number; password?: string; db?: number; tls?: boolean }
  | { cluster: { host: string; port: number }[]; password?: string; tls?: boolean };

/**
 * What the store asks of a client: ioredis's `Redis` and `Cluster` both have it. Only single-key
 * commands: in a cluster every record is a key of its own, on whichever master its slot lives (S17.2),
 * and nothing (no MGET, MULTI or pipeline) ever spans two keys.
 */
interface RedisClient {
  readonly status: string;
  /** A cluster's masters by slot (`host:port` first), as the client last learnt them. */
  readonly slots?: readonly (readonly string[])[];
  getBuffer(key: string): Promise<Buffer | null>;
  set(key: string, value: Buffer, px: "PX", ms: number): Promise<unknown>;
  del(key: string): Promise<number>;
  exists(key: string): Promise<number>;
  quit(): Promise<unknown>;
  disconnect(): void;
  connect(): Promise<unknown>;
  on(event: "error", listener: () => void): unknown;
}

/**
 * One connection per Redis server (or cluster) and timeout in a process, shared by every plugin instance that uses it.
 */
interface SharedConnection {
  readonly ready: Promise<RedisClient>;
  users: number;
  /** The server a key's command goes to: one lane for a single Redis, one per master in a cluster. */
  readonly laneOf: (client: RedisClient, key: string) => string;
  readonly lanes: Map<string, Lane>;
}

/** What one server's commands have been waiting for. */
interface Lane {
  /** Start times of commands sent and not yet answered. */
  readonly inFlight: Set<{ started: number }>;
  /** After a command went unanswered, new ones fail at once until then (epoch ms), or until a probe is answered. */
  failFastUntil: number;
  /** A command sent to learn whether a server that stopped answering answers again (one at a time). */
  probe?: Promise<unknown>;
  /** Keys whose SET was sent and not yet answered: a DEL of one goes out even while the lane fails fast. */
  readonly writing: Map<string, number>;
  /** When the server last answered a command of this lane (epoch ms). */
  answeredAt: number;
  /**
   * Ends the wait of each caller of a command in flight, once the lane stalls (`watch`); a caller's is dropped
   * when its command answers. (One promise of the lane's that every call raced kept a reaction per command, and
   * with it the command's answer, until the lane stalled: a healthy Redis's every piece read stayed in memory.)
   */
  readonly waiting: Set<(error: Error) => void>;
  /** The timer that looks whether the lane stalled, while commands are in flight. */
  watchdog?: ReturnType<typeof setTimeout>;
}
const connections = new Map<string, SharedConnection>();

/**
 * Redis through ioredis (S9): binary values, native expiry to the millisecond (`SET … PX`), and a client
 * that keeps reconnecting in the background, so folding resumes when the server returns. While it is
 * away, commands fail at once instead of queueing, and the store falls back to full answers (S4.7).
 */
export async function openRedisStorage(connection: RedisConnection, timeoutMs: number): Promise<NamespacedStorage> {
  const id = JSON.stringify([connection, timeoutMs]);
  let shared = connections.get(id);
  if (!shared) {
    const laneOf =
      "cluster" in connection
        ? (client: RedisClient, key: string) => client.slots?.[keySlot(key)]?.[0] ?? ""
        : () => "";
    shared = { ready: connect(connection, timeoutMs), users: 0, laneOf, lanes: new Map() };
    connections.set(id, shared);
    shared.ready.catch(() => connections.delete(id));
  }
  shared.users++;
  try {
    await shared.ready;
  } catch (error) {
    shared.users--;
    throw error;
  }
  return new RedisStorage(shared, timeoutMs, () => {
    if (--shared.users > 0) return Promise.resolve();
    connections.delete(id);
    return shared.ready.then(quit);
  });
}

async function connect(connection: RedisConnection, timeoutMs: number): Promise<RedisClient> {
  const { Redis, Cluster } = await loadClient("ioredis", "redis", () => import("ioredis"));
  const options: RedisOptions = {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Past the store's own timeout, so a command the store gave up on does not stay pending for ever.
    commandTimeout: 2 * timeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 100, REDIS_MAX_RETRY_DELAY_MS),
  };
  const tls = "tls" in connection && connection.tls ? {} : undefined;
  const client: RedisClient =
    "cluster" in connection
      ? new Cluster(connection.cluster, clusterOptions(options, connection.password, tls))
      : "url" in connection
        ? new Redis(connection.url, options)
        : new Redis({
            ...options,
            host: connection.host,
            port: connection.port,
            password: connection.password,
            db: connection.db,
            tls,
          });
  // Failures reach callers through the commands; without a listener an 'error' event would end the process.
  client.on("error", () => {});
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw error;
  }
  return client;
}

/**
 * The cluster client (S17.2), with the same timeouts per node as for a single Redis. It connects to each
 * master on the first command for it, so commands wait while that connection is being made (without the
 * queue, all but the first would fail); a master that refuses the connection fails its commands at once.
 * It keeps refreshing the slots in the background, so a master that comes back is used again.
 */
function clusterOptions(node: RedisOptions, password: string | undefined, tls: object | undefined): ClusterOptions {
  return {
    lazyConnect: true,
    enableOfflineQueue: true,
    clusterRetryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    // A command for a master that is down fails at once instead of being retried on other masters
    // (which answer MOVED back to it) until the redirections run out.
    retryDelayOnFailover: 0,
    redisOptions: {
      connectTimeout: node.connectTimeout,
      commandTimeout: node.commandTimeout,
      maxRetriesPerRequest: 0,
      password,
      tls,
    },
    // Asked of one master at a time, in random order: short enough that a hung one leaves time to ask
    // the others within the store's timeout when the store opens.
    // Its ready check asks one random master, which may be the hung one; the slots came from a live one.
    enableReadyCheck: false,
    slotsRefreshTimeout: Math.max(200, Math.floor((node.connectTimeout ?? 3000) / 3)),
  };
}

async function quit(client: RedisClient): Promise<void> {
  if (client.status === "ready") await client.quit().catch(() => client.disconnect());
  else client.disconnect();
}

class RedisStorage implements NamespacedStorage {
  private closed = false;

  constructor(
    private readonly shared: SharedConnection,
    private readonly timeoutMs: number,
    private readonly release: () => Promise<void>,
  ) {}

  async get(key: string): Promise<Uint8Array | undefined> {
    const buffer = await this.run(key, (client) => client.getBuffer(key));
    // A plain view of the same bytes, no copy: callers get a Uint8Array, not a Buffer.
    return buffer ? new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength) : undefined;
  }

  async set(key: string, value: Uint8Array, ttlSeconds: number): Promise<void> {
    const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    await this.run(key, (client) => client.set(key, bytes, "PX", ttlSeconds * 1000), "write");
  }

  async delete(key: string): Promise<void> {
    await this.run(key, (client) => client.del(key), "undo");
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.release();
  }

  /**
   * A server that is connected but does not answer (frozen, overloaded) would make every call wait the
   * whole store timeout, one after another, and a query that reads several instances' stores wait it
   * several times. Once a command has waited that long, or REDIS_SILENT_MS while the server answered
   * nothing at all, new ones fail at once; after the client gives up on it, one more timeout passes
   * before a command may try again. In a cluster this holds per master:
   * one that hangs stalls only the keys of its slots (S17.2).
   *
   * While it fails fast, one probe at a time (EXISTS of the key asked for, on the same server) learns
   * when the server answers again: its answer ends the wait at once, so reads work again as soon as a
   * frozen Redis resumes, not a timeout later (S26.3). A DEL of a key whose SET is still unanswered goes
   * out even then: on the same connection Redis runs it right behind that SET, so a write the store gave
   * up on (the answer was sent whole) does not stay once Redis resumes (S26.3).
   */
  private async run<T>(key: string, command: (client: RedisClient) => Promise<T>, kind?: "write" | "undo"): Promise<T> {
    const client = await this.shared.ready;
    const name = this.shared.laneOf(client, key);
    let lane = this.shared.lanes.get(name);
    if (!lane)
      this.shared.lanes.set(
        name,
        (lane = {
          inFlight: new Set(),
          failFastUntil: 0,
          writing: new Map(),
          answeredAt: Date.now(),
          waiting: new Set(),
        }),
      );
    const now = Date.now();
    // Waited out (a command older than the timeout), or silent (nothing answered for REDIS_SILENT_MS while
    // a command has waited that long: frozen, not busy).
    const silent = now - lane.answeredAt >= Math.min(REDIS_SILENT_MS, this.timeoutMs);
    const stalled =
      now < lane.failFastUntil ||
      [...lane.inFlight].some(
        (pending) => now - pending.started >= (silent ? Math.min(REDIS_SILENT_MS, this.timeoutMs) : this.timeoutMs),
      );
    const server = name ? `Redis master ${name}` : "Redis";
    if (stalled && !(kind === "undo" && lane.writing.has(key))) {
      this.probe(client, lane, key);
      throw new StoreTimeoutError(
        "command",
        this.timeoutMs,
        `${server} has not answered for ${this.timeoutMs} ms or more; not waiting again yet`,
      );
    }
    const pending = { started: now };
    lane.inFlight.add(pending);
    if (kind === "write") lane.writing.set(key, (lane.writing.get(key) ?? 0) + 1);
    // What the lane knows of the command follows the command itself, to its end; the caller may stop waiting
    // for it sooner, once the lane stalls (a SET given up on stays `writing` until Redis answers it).
    const sent = command(client)
      .then(
        (answer) => {
          lane.failFastUntil = 0; // it answers
          lane.answeredAt = Date.now();
          return answer;
        },
        (error: unknown) => {
          if (error instanceof Error && /timed out/i.test(error.message))
            lane.failFastUntil = Date.now() + this.timeoutMs;
          else if (isReply(error)) lane.answeredAt = Date.now(); // an error the server answered: it answers
          throw error;
        },
      )
      .finally(() => {
        lane.inFlight.delete(pending);
        if (kind === "write") {
          const left = lane.writing.get(key)! - 1;
          if (left > 0) lane.writing.set(key, left);
          else lane.writing.delete(key);
        }
      });
    this.watch(lane, server);
    return new Promise<T>((resolve, reject) => {
      lane.waiting.add(reject);
      void sent.then(resolve, reject).then(() => lane.waiting.delete(reject));
    });
  }

  /**
   * The commands already in flight when a server stops answering end as new ones would (S26.3, S21.5): once
   * one has waited REDIS_SILENT_MS while the server answered nothing at all, every command in flight stops
   * waiting (one that waits long while the server answers others is left to its call's deadline). Before,
   * only the commands sent after that failed at once; those sent just before waited their call's whole
   * deadline (a second caller's small query, 300 ms after a read began on a frozen Redis, waited 1.5 s).
   */
  private watch(lane: Lane, server: string): void {
    if (lane.watchdog) return;
    const silentMs = Math.min(REDIS_SILENT_MS, this.timeoutMs);
    const look = () => {
      lane.watchdog = undefined;
      if (lane.inFlight.size === 0) return;
      const now = Date.now();
      let oldest = now;
      for (const pending of lane.inFlight) oldest = Math.min(oldest, pending.started);
      const silentSince = Math.max(lane.answeredAt, oldest);
      if (now - silentSince >= silentMs) {
        const ending = [...lane.waiting];
        lane.waiting.clear();
        const error = new StoreTimeoutError(
          "command",
          this.timeoutMs,
          `${server} has answered nothing for ${now - silentSince} ms; not waiting longer`,
        );
        for (const end of ending) end(error);
        // the commands sent after wait on a stall of their own (and fail at once while these are unanswered)
        if (lane.inFlight.size > 0) this.watch(lane, server);
        return;
      }
      lane.watchdog = unref(setTimeout(look, Math.max(10, silentSince + silentMs - now)));
    };
    lane.watchdog = unref(setTimeout(look, silentMs));
  }

  /** Sends the lane's probe unless one is out: its answer means the server answers again (S26.3). */
  private probe(client: RedisClient, lane: Lane, key: string): void {
    if (lane.probe) return;
    const probe = client.exists(key).then(
      () => {
        lane.failFastUntil = 0;
        lane.answeredAt = Date.now();
        // Everything sent before it on this connection has been answered: the unanswered are lost ones.
        lane.inFlight.clear();
      },
      () => {},
    );
    lane.probe = probe.finally(() => {
      lane.probe = undefined;
    });
  }
}

/** An error Redis itself answered (ioredis's ReplyError), as opposed to a timeout or a lost connection. */
function isReply(error: unknown): boolean {
  return error instanceof Error && error.name === "ReplyError";
}
