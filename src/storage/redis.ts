import type { Redis as RedisClient, RedisOptions } from "ioredis";
import { StoreTimeoutError } from "../errors.js";
import { REDIS_MAX_RETRY_DELAY_MS } from "../plugin/defaults.js";
import type { RedisConnection } from "./config.js";
import { loadClient } from "./load-client.js";
import { namespacedKey, type NamespacedStorage } from "./types.js";

/** One connection per Redis server and timeout in a process, shared by every plugin instance that uses it. */
interface SharedConnection {
  readonly ready: Promise<RedisClient>;
  users: number;
  /** Start times of commands sent and not yet answered. */
  readonly inFlight: Set<{ started: number }>;
  /** After a command went unanswered, new ones fail at once until then (epoch ms). */
  failFastUntil: number;
}
const connections = new Map<string, SharedConnection>();

/**
 * Redis through ioredis (S9): binary values, native expiry to the millisecond (`SET … PX`), and a client
 * that keeps reconnecting in the background, so folding resumes when the server returns. While it is
 * away, commands fail at once instead of queueing, and the store falls back to full answers (S4.7).
 */
export async function openRedisStorage(connection: RedisConnection, namespace: string, timeoutMs: number): Promise<NamespacedStorage> {
  const id = JSON.stringify([connection, timeoutMs]);
  let shared = connections.get(id);
  if (!shared) {
    shared = { ready: connect(connection, timeoutMs), users: 0, inFlight: new Set(), failFastUntil: 0 };
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
  return new RedisStorage(shared, namespace, timeoutMs, () => {
    if (--shared.users > 0) return Promise.resolve();
    connections.delete(id);
    return shared.ready.then(quit);
  });
}

async function connect(connection: RedisConnection, timeoutMs: number): Promise<RedisClient> {
  const { Redis } = await loadClient("ioredis", "redis", () => import("ioredis"));
  const options: RedisOptions = {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Past the store's own timeout, so a command the store gave up on does not stay pending for ever.
    commandTimeout: 2 * timeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 100, REDIS_MAX_RETRY_DELAY_MS),
  };
  const client =
    "url" in connection
      ? new Redis(connection.url, options)
      : new Redis({ ...options, host: connection.host, port: connection.port, password: connection.password, db: connection.db, tls: connection.tls ? {} : undefined });
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

async function quit(client: RedisClient): Promise<void> {
  if (client.status === "ready") await client.quit().catch(() => client.disconnect());
  else client.disconnect();
}

class RedisStorage implements NamespacedStorage {
  private closed = false;

  constructor(
    private readonly shared: SharedConnection,
    private readonly namespace: string,
    private readonly timeoutMs: number,
    private readonly release: () => Promise<void>,
  ) {}

  async get(key: string): Promise<Uint8Array | undefined> {
    const buffer = await this.run((client) => client.getBuffer(namespacedKey(this.namespace, key)));
    // A plain view of the same bytes, no copy: callers get a Uint8Array, not a Buffer.
    return buffer ? new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength) : undefined;
  }

  async set(key: string, value: Uint8Array, ttlSeconds: number): Promise<void> {
    const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    await this.run((client) => client.set(namespacedKey(this.namespace, key), bytes, "PX", ttlSeconds * 1000));
  }

  async delete(key: string): Promise<void> {
    await this.run((client) => client.del(namespacedKey(this.namespace, key)));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.release();
  }

  /**
   * A server that is connected but does not answer (frozen, overloaded) would make every call wait the
   * whole store timeout, one after another, and a query that reads several instances' stores wait it
   * several times. Once a command has waited that long, new ones fail at once; after the client gives
   * up on it, one more timeout passes before a command may try again.
   */
  private async run<T>(command: (client: RedisClient) => Promise<T>): Promise<T> {
    const now = Date.now();
    const shared = this.shared;
    const stalled = now < shared.failFastUntil || [...shared.inFlight].some((pending) => now - pending.started >= this.timeoutMs);
    if (stalled) throw new StoreTimeoutError("command", this.timeoutMs, `Redis has not answered for ${this.timeoutMs} ms or more; not waiting again yet`);
    const pending = { started: now };
    shared.inFlight.add(pending);
    try {
      return await command(await shared.ready);
    } catch (error) {
      if (error instanceof Error && /timed out/i.test(error.message)) shared.failFastUntil = Date.now() + this.timeoutMs;
      throw error;
    } finally {
      shared.inFlight.delete(pending);
    }
  }
}
