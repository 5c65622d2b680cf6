import {
  ResultHandlesPluginCore,
  type NamespacedStorage,
  type ResultHandlesOptions,
  type Runtime,
} from "mcp-result-handles";

/**
 * The one storage test double: keeps copies of values in a Map, records every key and value the store
 * hands it (an observer: it stores for real), and fails or hangs the methods it is given overrides for.
 */
export class StorageDouble implements NamespacedStorage {
  readonly data = new Map<string, Uint8Array>();
  readonly sets: { key: string; value: Uint8Array; ttlSeconds: number }[] = [];
  readonly gets: string[] = [];

  constructor(private readonly overrides: Partial<NamespacedStorage> = {}) {}

  async get(key: string): Promise<Uint8Array | undefined> {
    this.gets.push(key);
    if (this.overrides.get) return this.overrides.get(key);
    return this.data.get(key);
  }

  async set(key: string, value: Uint8Array, ttlSeconds: number): Promise<void> {
    if (this.overrides.set) return this.overrides.set(key, value, ttlSeconds);
    this.sets.push({ key, value: value.slice(), ttlSeconds });
    this.data.set(key, value.slice());
  }

  async delete(key: string): Promise<void> {
    if (this.overrides.delete) return this.overrides.delete(key);
    this.data.delete(key);
  }

  async close(): Promise<void> {
    if (this.overrides.close) return this.overrides.close();
  }

  /** Every key and value the store handed over, as bytes: all that someone holding the store would see (S8.3). */
  seen(): Uint8Array[] {
    const utf8 = (text: string) => new TextEncoder().encode(text);
    return [...this.sets.flatMap((s) => [utf8(s.key), s.value]), ...this.gets.map(utf8)];
  }
}

/** A storage that works until told otherwise: pass the methods that should fail or hang. */
export const brokenStorage = (overrides: Partial<NamespacedStorage>) => new StorageDouble(overrides);

export const rejects = (message: string) => async () => Promise.reject(new Error(message));
export const hangs = () => new Promise<never>(() => {});

/**
 * A plugin whose storage factory opens `storage`: a build of its own, so the plugin's real open path,
 * timeouts and warnings stay in front of the given storage. Warnings are collected in `warnings`.
 */
export function pluginOver(storage: NamespacedStorage, options: ResultHandlesOptions = {}) {
  class DoubleStorePlugin extends ResultHandlesPluginCore {
    protected static override runtime: Runtime = {
      kind: "node",
      env: () => undefined,
      openStorage: async () => storage,
    };
  }
  const plugin = DoubleStorePlugin.init(options);
  const warnings: string[] = [];
  const logger = { warn: (message: string) => void warnings.push(message) };
  plugin.logger = logger;
  return { plugin, warnings, logger };
}
