import type { Redis as RedisClient, RedisOptions } from "ioredis";
import type { RedisConnection } from "./config.js";
import { loadClient } from "./load-client.js";
import { namespacedKey, type NamespacedStorage } from "./types.js";

/**
 * Redis through ioredis (S9): binary values, native expiry to the millisecond (`SET … PX`), and a client
 * that keeps reconnecting in the background, so folding resumes when the server returns. While it is
 * away, commands fail at once instead of queueing, and the store falls back to full answers (S4.7).
 */
export async function openRedisStorage(connection: RedisConnection, namespace: string, timeoutMs: number): Promise<NamespacedStorage> {
  const { Redis } = await loadClient("ioredis", "redis", () => import("ioredis"));
  const options: RedisOptions = {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
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
  return new RedisStorage(client, namespace);
}

class RedisStorage implements NamespacedStorage {
  constructor(
    private readonly client: RedisClient,
    private readonly namespace: string,
  ) {}

  async get(key: string): Promise<Uint8Array | undefined> {
    const buffer = await this.client.getBuffer(namespacedKey(this.namespace, key));
    // A plain view of the same bytes, no copy: callers get a Uint8Array, not a Buffer.
    return buffer ? new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength) : undefined;
  }

  async set(key: string, value: Uint8Array, ttlSeconds: number): Promise<void> {
    const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    await this.client.set(namespacedKey(this.namespace, key), bytes, "PX", ttlSeconds * 1000);
  }

  async delete(key: string): Promise<void> {
    await this.client.del(namespacedKey(this.namespace, key));
  }

  async close(): Promise<void> {
    if (this.client.status === "ready") await this.client.quit().catch(() => this.client.disconnect());
    else this.client.disconnect();
  }
}
