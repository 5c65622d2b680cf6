/** The tokens `ResultHandlesPlugin.get` answers (S2): its store, opened on first use, and its resolved config. */
export const ResultHandleStoreToken: unique symbol = Symbol.for("mcp-result-handles/store");
export const ResultHandlesConfigToken: unique symbol = Symbol.for("mcp-result-handles/config");
