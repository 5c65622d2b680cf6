import { StorageClientMissingError } from "../errors.js";

/**
 * Loads a Node store's client library on first use (S9.5): ioredis, better-sqlite3 and @upstash/redis are
 * optional peers, installed only by those who use their store. `load` must be `() => import("<name>")`
 * written out, so bundlers see the name and keep it external. A missing package becomes a coded error
 * naming it and the command that installs it; any other failure passes through as it is.
 */
export async function loadClient<T>(packageName: string, storageType: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isMissingPackage(error, packageName)) throw new StorageClientMissingError(packageName, storageType);
    throw error;
  }
}

function isMissingPackage(error: unknown, packageName: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const notFound =
    code === "ERR_MODULE_NOT_FOUND" ||
    code === "MODULE_NOT_FOUND" ||
    /cannot find (package|module)|failed to load url/i.test(String(message));
  return notFound && String(message).includes(packageName);
}
