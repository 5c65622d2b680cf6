/**
 * `npm run host` (S25.4): a small MCP Apps host page, the e2e test host (e2e/viewer-host) with a form. It
 * connects to any MCP server on this machine over Streamable HTTP (the demo answers its CORS preflights for
 * loopback origins), calls the tool named with the arguments given, and shows the answer in the tool's
 * `ui://` view in a sandboxed iframe through the ext-apps `AppBridge`, forwarding the view's `tools/call`
 * requests (the viewer's `result_view`) on the same connection.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { AppBridge, PostMessageTransport, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/app-bridge";

const HOST_INFO = { name: "result-handles-host-page", version: "1.0.0" };
const form = document.getElementById("call") as HTMLFormElement;
const field = (name: string) => form.elements.namedItem(name) as HTMLInputElement;
const status = document.getElementById("status")!;
const slot = document.getElementById("slot")!;

// Fields from the query string, so a link (the docs' viewer page) can fill the form.
for (const [name, value] of new URLSearchParams(location.search))
  if (form.elements.namedItem(name)) field(name).value = value;

let connection: { key: string; client: Promise<Client> } | undefined;

/** One connection per server URL and token, opened on first use; an MCP Apps host says so in its capabilities. */
function connect(): Promise<Client> {
  const url = field("url").value.trim();
  const token = field("token").value.trim();
  const key = `${url} ${token}`;
  if (connection?.key !== key) {
    const previous = connection?.client;
    void previous?.then((client) => client.close()).catch(() => {});
    const client = (async () => {
      const c = new Client(HOST_INFO, {
        capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } },
      });
      const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
      await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
      return c;
    })();
    client.catch(() => (connection = undefined));
    connection = { key, client };
  }
  return connection.client;
}

function say(text: string, error = false): void {
  status.textContent = text;
  status.classList.toggle("error", error);
}

async function listTools(): Promise<void> {
  const tools = (await (await connect()).listTools()).tools;
  const list = document.getElementById("tools")!;
  list.replaceChildren(
    ...tools.map((tool) =>
      Object.assign(document.createElement("option"), {
        value: tool.name,
        label: tool.title ?? tool.description ?? "",
      }),
    ),
  );
  say(`${tools.length} tools: ${tools.map((tool) => tool.name).join(", ")}`);
}

async function callAndShow(): Promise<void> {
  const name = field("tool").value.trim();
  let args: Record<string, unknown>;
  try {
    args = JSON.parse(field("args").value || "{}") as Record<string, unknown>;
  } catch {
    return say('Arguments must be a JSON object, such as {} or { "n": 3 }', true);
  }
  const client = await connect();
  say(`Calling ${name}…`);
  const tool = (await client.listTools()).tools.find((candidate) => candidate.name === name);
  if (!tool) return say(`The server has no tool ${JSON.stringify(name)}: List tools shows those it has`, true);
  const result = await client.callTool({ name, arguments: args });
  const uri = (tool._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
  if (!uri) {
    // No view to show it in: the answer as the model would read it.
    const pre = Object.assign(document.createElement("pre"), { textContent: JSON.stringify(result, null, 2) });
    pre.dataset.testid = "host-raw";
    slot.replaceChildren(pre);
    return say(`${name} names no MCP Apps view: its answer as sent`);
  }
  const page = (await client.readResource({ uri })).contents[0] as { text?: string };
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts");
  frame.dataset.testid = "viewer-frame";
  frame.title = `${name}: ${uri}`;
  frame.srcdoc = page.text ?? "";
  slot.replaceChildren(frame);
  const bridge = new AppBridge(
    client,
    HOST_INFO,
    { serverTools: {}, openLinks: {}, logging: {} },
    {
      hostContext: {
        theme: matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light",
        displayMode: "inline",
        availableDisplayModes: ["inline"],
      },
    },
  );
  bridge.onmessage = async () => ({}); // a view's message to the conversation: this page has none
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result as never);
  say(`${name} answered; shown in ${uri}`);
}

const failed = (error: unknown) => say(`Failed: ${error instanceof Error ? error.message : String(error)}`, true);
form.addEventListener("submit", (event) => {
  event.preventDefault();
  callAndShow().catch(failed);
});
document.getElementById("list")!.addEventListener("click", () => void listTools().catch(failed));
document.body.dataset.ready = "true";
