/**
 * The viewer as an MCP App (S19): it reads the tool result the host hands it (`ontoolresult`), reads
 * folded answers through the app-only `result_view` tool (`callServerTool`), and sends "Tell the model"
 * through `sendMessage`. Opened alone in a tab (no host around it), it requests nothing and says so.
 */
import {
  App,
  applyDocumentTheme,
  applyHostFonts,
  applyHostStyleVariables,
  type McpUiHostContext,
} from "@modelcontextprotocol/ext-apps";
import { h } from "./dom.js";
import { Viewer, type ToolResultLike } from "./viewer.js";
import "./style.css";

const root = document.getElementById("viewer")!;

function applyContext(context: Partial<McpUiHostContext> | undefined): void {
  if (context?.theme) applyDocumentTheme(context.theme);
  if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
  if (context?.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
}

if (window.parent === window) {
  root.replaceChildren(
    h(
      "p",
      { class: "alone", "data-testid": "standalone" },
      "This page shows tool answers inside an MCP Apps host (Claude, ChatGPT, VS Code…); " +
        "opened on its own it has nothing to show.",
    ),
  );
} else {
  const app = new App({ name: "result-handles-viewer", version: "1.0.0" }, {});
  const viewer = new Viewer(root, {
    callTool: async (name, args) => (await app.callServerTool({ name, arguments: args })) as ToolResultLike,
    tell: async (text) => !(await app.sendMessage({ role: "user", content: [{ type: "text", text }] })).isError,
  });
  app.ontoolresult = (result) => viewer.show(result as ToolResultLike);
  app.onhostcontextchanged = (context) => applyContext(context);
  app.connect().then(
    () => applyContext(app.getHostContext()),
    (error: unknown) => viewer.showError(error),
  );
}
