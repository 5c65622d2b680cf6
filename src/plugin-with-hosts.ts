/**
 * The plugin class both entries build on: the host-free core (`PluginCore`) plus the sugar that
 * installs it on a host. It lives here, beside the entries, so the dependency arrow runs one way:
 * entries → hosts → plugin. The hosts are installers in their own right (`installOnMcpServer`,
 * `installOnWebMcp`, exported); these two methods only call them.
 */
import { installOnMcpServer, type McpHostOptions, type McpServerLike } from "./hosts/mcp.js";
import { installOnWebMcp, type WebMcpHost, type WebMcpHostOptions } from "./hosts/webmcp.js";
import { PluginCore } from "./plugin/plugin.js";

export class ResultHandlesPluginCore extends PluginCore {
  /** Folds this server's tool answers and registers `result_query` once per server (S10.1); see `McpHostOptions`. */
  install(server: McpServerLike, hostOptions?: McpHostOptions): this {
    installOnMcpServer(this, server, hostOptions);
    return this;
  }

  /**
   * Exposes tools through WebMCP (`document.modelContext`) with folding, and registers `result_query` beside
   * them (S10.2). Register the page's tools on the returned host: `await host.registerTool(tool, { signal })`.
   * Calls count as one verified session per page load unless `hostOptions.owner` says otherwise.
   */
  webmcp(hostOptions?: WebMcpHostOptions): WebMcpHost {
    return installOnWebMcp(this, hostOptions);
  }
}
