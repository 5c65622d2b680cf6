/**
 * A small MCP Apps host for the viewer's e2e test (S19.5), built on the ext-apps `AppBridge`: an MCP
 * client over Streamable HTTP (same origin, bearer token), the tool's `ui://` resource read from the
 * server and shown in a sandboxed iframe, the tool result handed to it, and its `tools/call` requests
 * forwarded to the server on this client's connection. Messages the view sends are kept for the test.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { AppBridge, PostMessageTransport, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/app-bridge";

type ToolResult = Record<string, unknown>;

const clients = new Map<string, Promise<Client>>();
function client(token: string): Promise<Client> {
  let connected = clients.get(token);
  if (!connected) {
    connected = (async () => {
      // An MCP Apps host says so in its capabilities; servers list the viewer to such clients (S19.1).
      const c = new Client(
        { name: "viewer-test-host", version: "1.0.0" },
        { capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } } },
      );
      await c.connect(
        new StreamableHTTPClientTransport(new URL("/mcp", location.href), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      return c;
    })();
    clients.set(token, connected);
  }
  return connected;
}

const messages: unknown[] = [];
const hostToken = new URLSearchParams(location.search).get("token") ?? "demo-alice";

async function show(toolName: string, result: ToolResult, theme: "light" | "dark" = "light"): Promise<void> {
  const c = await client(hostToken);
  const tool = (await c.listTools()).tools.find((candidate) => candidate.name === toolName);
  const uri = (tool?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
  if (!uri) throw new Error(`${toolName} names no UI resource`);
  const read = await c.readResource({ uri });
  const page = read.contents[0] as { text: string; mimeType: string };
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts");
  frame.dataset.testid = "viewer-frame";
  frame.title = "Result viewer";
  frame.srcdoc = page.text;
  document.getElementById("slot")!.replaceChildren(frame);
  const bridge = new AppBridge(
    c,
    { name: "viewer-test-host", version: "1.0.0" },
    { serverTools: {}, openLinks: {}, logging: {} },
    {
      hostContext: { theme, displayMode: "inline", availableDisplayModes: ["inline"] },
    },
  );
  bridge.onmessage = async (params) => {
    messages.push(params);
    return {};
  };
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  await initialized;
  await bridge.sendToolInput({ arguments: {} });
  timings.resultSent = performance.now();
  await bridge.sendToolResult(result as never);
}

/** When the last result was handed to the view (performance.now()), for the test's timings. */
const timings = { resultSent: 0 };

async function callTool(name: string, args: Record<string, unknown> = {}, token = hostToken): Promise<ToolResult> {
  return (await (await client(token)).callTool({ name, arguments: args })) as ToolResult;
}

/** Anything the frame posts that is not the bridge's JSON-RPC: an injected script would post here. */
const stray: unknown[] = [];
window.addEventListener("message", (event) => {
  const data = event.data as { jsonrpc?: string } | undefined;
  if (data?.jsonrpc !== "2.0") stray.push(event.data);
});

Object.assign(window, { testHost: { show, callTool, messages, stray, timings } });
document.body.dataset.ready = "true";
