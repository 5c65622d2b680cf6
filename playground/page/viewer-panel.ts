/**
 * The playground's folded-answer panel is the result viewer (S19.4): the same HTML page an MCP Apps host
 * shows (`loadViewerHtml()`), in a sandboxed iframe, driven by the ext-apps `AppBridge` as a host drives
 * it. Its `result_view` reads go to the page's own MCP server on the connection of whoever made the call
 * (alice or anonymous), so the owner rules hold here too; "Tell the model" lands in the note below it.
 */
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
import { loadViewerHtml } from "mcp-result-handles";
import type { CallResult } from "./in-page-mcp.js";

type Call = (name: string, args: Record<string, unknown>) => Promise<CallResult>;

export class ViewerPanel {
  private bridge: AppBridge | undefined;

  constructor(
    private readonly slot: HTMLElement,
    private readonly told: (text: string) => void,
  ) {}

  /** Shows one tool result in a fresh viewer; resolves once the viewer has it. */
  async show(result: CallResult, call: Call): Promise<void> {
    await this.bridge?.close().catch(() => {});
    const frame = document.createElement("iframe");
    frame.setAttribute("sandbox", "allow-scripts");
    frame.title = "Result viewer";
    frame.dataset.testid = "viewer";
    frame.srcdoc = await loadViewerHtml();
    this.slot.replaceChildren(frame);
    const theme = matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
    const bridge = new AppBridge(
      null,
      { name: "mcp-result-handles playground", version: "1.0.0" },
      { serverTools: {}, message: { text: {} } },
      { hostContext: { theme } },
    );
    this.bridge = bridge;
    bridge.oncalltool = async (params) => (await call(params.name, params.arguments ?? {})) as never;
    bridge.onmessage = async (params) => {
      this.told(params.content.map((block) => ("text" in block ? block.text : "")).join(" "));
      return {};
    };
    const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
    await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
    await initialized;
    await bridge.sendToolInput({ arguments: {} });
    await bridge.sendToolResult(result as never);
  }
}
