import { customDriver } from "../storage/custom.js";
import { memoryDriver } from "../storage/memory.js";
import type { StorageCatalog } from "../storage/config.js";

/**
 * The storage a runtime made by hand (a `Runtime` of `kind`, `env` and `openStorage` only) is checked
 * against: the two that run in every build. Its own `openStorage` opens them.
 */
export const BARE_CATALOG: StorageCatalog = {
  drivers: [memoryDriver, customDriver],
  elsewhere: [],
  refuse: (type) => ({ path: "storage.type", message: `"${type}" does not run here` }),
};
