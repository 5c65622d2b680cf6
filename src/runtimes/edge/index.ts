/**
 * Edge build (Cloudflare Workers, Vercel Edge; S17.1): WebCrypto, memory per isolate, Upstash and Vercel KV over
 * fetch. Same API as the other builds.
 */
import { ResultHandlesPluginCore } from "../../plugin-with-hosts.js";
import { storeOpener } from "../entry.js";
import { edgeRuntime } from "./runtime.js";

export * from "../../public-api.js";
export class ResultHandlesPlugin extends ResultHandlesPluginCore {
  protected static override runtime = edgeRuntime;
}
export const createResultHandleStore = storeOpener(edgeRuntime);
export default ResultHandlesPlugin;
