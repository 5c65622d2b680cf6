/** Node build: full storage (S9). Same API as the page build. */
import { ResultHandlesPluginCore } from "../../plugin-with-hosts.js";
import { storeOpener } from "../entry.js";
import { nodeRuntime } from "./runtime.js";

export * from "../../public-api.js";
export class ResultHandlesPlugin extends ResultHandlesPluginCore {
  protected static override runtime = nodeRuntime;
}
export const createResultHandleStore = storeOpener(nodeRuntime);
export default ResultHandlesPlugin;
