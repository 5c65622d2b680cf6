/** Page build: WebCrypto store in memory; Redis, SQLite, Upstash and Vercel KV are refused at init (S9.4). */
import { ResultHandlesPluginCore } from "../../plugin-with-hosts.js";
import { storeOpener } from "../entry.js";
import { browserRuntime } from "./runtime.js";

export * from "../../public-api.js";
export class ResultHandlesPlugin extends ResultHandlesPluginCore {
  protected static override runtime = browserRuntime;
}
export const createResultHandleStore = storeOpener(browserRuntime);
export default ResultHandlesPlugin;
