/**
 * The page's MCP side: one plugin instance (threshold 4096, as the demo's "reports" instance), an in-page
 * `McpServer` per connection with the `report` example and `count_tickets` (which takes a list, so a
 * folded report can be passed to it by reference), and an MCP client linked to it in memory. The
 * same plugin also exposes `report` and `result_query` through WebMCP when the page has a model context.
 */
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import {
  ResultHandlesPlugin,
  defaultOwner,
  findModelContext,
  type Logger,
  type ResultHandlesOptions,
} from "mcp-result-handles";
import { registerCountTickets, registerReport, reportRows } from "../demo-tools.js";

export type StoreKind = "memory" | "indexeddb";
export type Identity = "anonymous" | "alice";

export interface CallResult {
  structuredContent?: Record<string, unknown>;
  content?: unknown[];
  _meta?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * In this page the sign-in decides who owns a call: the caller from the connection's auth. The in-process
 * connection itself is left out (S8.1 would count it as a session of its own), so "anonymous" stays
 * anonymous, like an HTTP request without a session, and alice's handles outlive a reload when the store
 * is IndexedDB.
 */
function signedInCaller(ctx: Parameters<typeof defaultOwner>[0]) {
  const { caller } = defaultOwner(ctx);
  return caller ? { caller } : {};
}

export class InPageMcp {
  readonly plugin: ResultHandlesPlugin;
  private readonly clients = new Map<Identity, Promise<Client>>();

  constructor(
    readonly store: StoreKind,
    private readonly logger: Logger,
  ) {
    const storage: ResultHandlesOptions["storage"] =
      store === "indexeddb"
        ? { type: "indexeddb", indexeddb: { database: "mcp-result-handles-playground" } }
        : { type: "memory" };
    this.plugin = ResultHandlesPlugin.init({ thresholdBytes: 4096, storage, namespace: "playground" });
  }

  /** Calls a tool as `identity`; each identity has its own connection to its own in-page server. */
  async call(identity: Identity, name: string, args: Record<string, unknown> = {}): Promise<CallResult> {
    const client = await this.client(identity);
    return (await client.callTool({ name, arguments: args })) as CallResult;
  }

  private client(identity: Identity): Promise<Client> {
    let client = this.clients.get(identity);
    if (!client) {
      client = this.connect(identity);
      this.clients.set(identity, client);
    }
    return client;
  }

  private async connect(identity: Identity): Promise<Client> {
    const server = new McpServer({ name: "playground", version: "1.0.0" });
    // result_view for the viewer panel (S19.4)
    this.plugin.install(server, { owner: signedInCaller, logger: this.logger, viewer: true });
    registerReport(server);
    registerCountTickets(server); // takes a folded report's rows by reference (S15.1)
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    if (identity !== "anonymous") {
      // The in-memory transport forwards auth only when the sender passes it: sign every message as alice.
      const authInfo = { token: "page-token-alice", clientId: "playground", scopes: [], extra: { sub: identity } };
      const send = clientTransport.send.bind(clientTransport);
      clientTransport.send = (message, options) => send(message, { ...options, authInfo });
    }
    await server.connect(serverTransport);
    // It renders MCP Apps (the viewer panel, S19.4), and says so: the server lists result_view to such clients.
    const client = new Client(
      { name: `playground-${identity}`, version: "1.0.0" },
      { capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } } },
    );
    await client.connect(clientTransport);
    await client.listTools(); // the client checks structuredContent against the schemas it listed
    return client;
  }

  /** Registers `report` (and, beside it, `result_query`) on the page's WebMCP model context, if there is one. */
  async exposeThroughWebMcp(): Promise<"registered" | "absent"> {
    if (!findModelContext()) return "absent";
    const host = this.plugin.webmcp({ logger: this.logger });
    await host.registerTool({
      name: "report",
      title: "Open tickets",
      description:
        "Every open ticket (200 rows). Large answers fold into { " +
        "preview, shape, handle }: read them with result_query.",
      inputSchema: { type: "object", properties: {} },
      annotations: { readOnlyHint: true },
      execute: () => reportRows(),
    });
    return "registered";
  }
}
