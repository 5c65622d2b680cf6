import type { NamespacedStorage } from "./types.js";

export function namespacedKey(namespace: string, key: string): string {
  return `${namespace}:${key}`;
}

/**
 * The one place the namespace is applied (S9.0, S17.3): every store a build opens, custom ones included,
 * sees `<namespace>:<key>`, so several apps can share one store and never read each other's records.
 */
export function withNamespace(storage: NamespacedStorage, namespace: string): NamespacedStorage {
  const key = (k: string) => namespacedKey(namespace, k);
  const setTogether = storage.setTogether;
  return {
    get: (k) => storage.get(key(k)),
    set: (k, value, ttl) => storage.set(key(k), value, ttl),
    delete: (k) => storage.delete(key(k)),
    close: () => storage.close(),
    ...(setTogether && {
      setTogether: (records, ttl, owner) =>
        setTogether.call(
          storage,
          records.map((r) => ({ key: key(r.key), value: r.value })),
          ttl,
          owner,
        ),
    }),
  };
}
