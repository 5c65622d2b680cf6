import { ResultHandlesPluginCore, type NamespacedStorage, type ResultHandlesOptions, type Runtime } from "mcp-result-handles";

/** A storage that works until told otherwise: pass the methods that should fail or hang. */
export function brokenStorage(overrides: Partial<NamespacedStorage>): NamespacedStorage {
  const data = new Map<string, Uint8Array>();
  return {
    get: async (key) => data.get(key),
    set: async (key, value) => void data.set(key, value),
    delete: async (key) => void data.delete(key),
    close: async () => {},
    ...overrides,
  };
}

export const rejects = (message: string) => async () => Promise.reject(new Error(message));
export const hangs = () => new Promise<never>(() => {});

/**
 * A plugin whose storage factory opens `storage`: a build of its own, so the plugin's real open path,
 * timeouts and warnings stay in front of the broken storage. Warnings are collected in `warnings`.
 */
export function pluginOver(storage: NamespacedStorage, options: ResultHandlesOptions = {}) {
  class BrokenStorePlugin extends ResultHandlesPluginCore {
    protected static override runtime: Runtime = { kind: "node", env: () => undefined, openStorage: async () => storage };
  }
  const plugin = BrokenStorePlugin.init(options);
  const warnings: string[] = [];
  const logger = { warn: (message: string) => void warnings.push(message) };
  plugin.logger = logger;
  return { plugin, warnings, logger };
}
