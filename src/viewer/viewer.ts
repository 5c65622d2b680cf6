/**
 * What the person sees of one tool answer (S19.3): its size, whether it folded and when it expires; the
 * view that fits the data (a table, a tree, numbered lines) at a path chosen by breadcrumbs; a filter box
 * and a search box whose nodes and hits link to where they are; the chosen path, to copy or to tell the model.
 */
import { fill, formatNumber, h, textOf } from "./dom.js";
import { keysOf, pathOf, valueAt, type Key } from "./paths.js";
import { foldedSource, localSource, ReadError, type Source } from "./source.js";
import { shapeAt, shapeOfValue, type Shape } from "./shape.js";
import { TableView } from "./table.js";
import { LinesView } from "./lines.js";
import { isTable, treeNode } from "./tree.js";
import { findPanel } from "./find.js";

/** The plugin's `_meta` key on a folded answer (S5.3). */
const META_KEY = "frontmcp/result-handle";

export interface ToolResultLike {
  content?: unknown[];
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  isError?: boolean;
}

interface ViewerHost {
  callTool(name: string, args: Record<string, unknown>): Promise<ToolResultLike>;
  /** Sends a message to the conversation; resolves false when the host refused it. */
  tell(text: string): Promise<boolean>;
}

interface Answer {
  source: Source;
  shape: Shape | undefined;
  preview: unknown;
  local: boolean;
}

export class Viewer {
  private readonly header = h("header", { class: "top", "data-testid": "summary" });
  private readonly crumbs = h("nav", { class: "crumbs", "aria-label": "Path" });
  private readonly main = h("main", { class: "view" });
  private readonly error = h("p", { class: "error", role: "alert", "data-testid": "error", hidden: true });
  private readonly chosen = h("code", { "data-testid": "selected-path" }, "$");
  private readonly chosenValue = h("span", { class: "summary", "data-testid": "selected-value" });
  private readonly told = h("span", { class: "note", role: "status", "data-testid": "told" });
  private readonly find: ReturnType<typeof findPanel>;
  private answer: Answer | undefined;
  private table: { keys: Key[]; view: TableView } | undefined;
  private lines: { keys: Key[]; view: LinesView } | undefined;
  private selected: { keys: Key[]; value: unknown; line?: { number: number; offset: number; length: number } } = {
    keys: [],
    value: undefined,
  };

  constructor(
    readonly root: HTMLElement,
    private readonly host: ViewerHost,
  ) {
    this.find = findPanel({
      read: (args) => this.need().source.read(args),
      goTo: (path, line) => this.goTo(path, line),
      onError: (error) => this.showError(error),
      nodesInView: () => `${pathOf(this.table?.keys ?? [])}[*]`,
    });
    const copy = h("button", { type: "button", "data-testid": "copy-path" }, "Copy path");
    copy.addEventListener("click", () => void this.copyPath());
    const tell = h("button", { type: "button", "data-testid": "tell-model" }, "Tell the model");
    tell.addEventListener("click", () => void this.tellModel());
    const footer = h(
      "footer",
      { class: "chosen" },
      h("span", { class: "faint" }, "Chosen"),
      this.chosen,
      this.chosenValue,
      copy,
      tell,
      this.told,
    );
    root.replaceChildren(this.header, this.find.element, this.error, this.crumbs, this.main, footer);
    fill(this.header, h("p", { class: "note" }, "Waiting for the tool's answer…"));
  }

  private need(): Answer {
    if (!this.answer) throw new ReadError("NO_ANSWER", "No answer yet.");
    return this.answer;
  }

  /** Shows one tool result: folded (read through `result_view`) or whole (read from the result itself). */
  show(result: ToolResultLike): void {
    this.error.hidden = true;
    const meta = result._meta?.[META_KEY] as { handle: string; bytes: number; ttlSeconds: number } | undefined;
    const structured = result.structuredContent;
    const text = (
      result.content?.find((block) => (block as { type?: string }).type === "text") as { text?: string } | undefined
    )?.text;
    if (result.isError) {
      fill(this.header, h("strong", {}, "The tool answered with an error"));
      this.showError(new ReadError("TOOL_ERROR", text ?? "No text."));
      return;
    }
    if (meta && structured && typeof structured.handle === "string") {
      const handle = structured.handle;
      this.answer = {
        source: foldedSource(handle, (name, args) => this.host.callTool(name, args)),
        shape: structured.shape as Shape,
        preview: structured.preview,
        local: false,
      };
      const expires = new Date(Date.now() + meta.ttlSeconds * 1000);
      fill(
        this.header,
        h("strong", { "data-testid": "kind" }, "Folded answer"),
        h("span", {}, `${formatNumber(meta.bytes)} bytes kept on the server`),
        h(
          "span",
          { "data-testid": "expires", title: expires.toISOString() },
          `until ${expires.toLocaleTimeString("en-GB")}`,
        ),
        h("code", { class: "faint", "data-testid": "view-handle" }, handle),
      );
    } else {
      const data = structured ?? parseText(text);
      this.answer = { source: localSource(data), shape: shapeOfValue(data), preview: data, local: true };
      const bytes = new TextEncoder().encode(JSON.stringify(data) ?? "").byteLength;
      fill(
        this.header,
        h("strong", { "data-testid": "kind" }, "Whole answer"),
        h("span", {}, `${formatNumber(bytes)} bytes, not folded`),
      );
    }
    this.select([], undefined);
    this.open(startAt(this.answer.shape));
  }

  /** Opens the view that fits the value at `keys`. */
  open(keys: Key[]): void {
    const answer = this.need();
    this.drawCrumbs(keys);
    this.table = undefined;
    this.lines = undefined;
    const local = answer.local ? valueAt(answer.preview, keys) : undefined;
    const shape = answer.local ? shapeOfValue(local) : shapeAt(answer.shape, keys);
    const known = { has: answer.local, value: local, shape };
    const first = valueAt(answer.preview, keys);
    const onError = (error: unknown) => this.showError(error);
    if (shape && isTable(known) && shape.type === "array") {
      const columns = Object.keys(shape.items?.keys ?? {});
      const view = new TableView({
        source: answer.source,
        keys,
        total: shape.length ?? 0,
        columns,
        first: Array.isArray(first) ? first : [],
        onSelect: (k, v) => this.select(k, v),
        onError,
      });
      this.table = { keys, view };
      fill(this.main, view.element);
    } else if (shape?.type === "string" && (shape.length ?? 0) > 200) {
      const choose = (number: number, offset: number, length: number) =>
        this.select(keys, undefined, { number, offset, length });
      const view = new LinesView(
        answer.source,
        keys,
        shape.length ?? 0,
        typeof first === "string" ? first : "",
        onError,
        choose,
      );
      this.lines = { keys, view };
      fill(this.main, view.element);
    } else {
      const tree = h("ul", {
        class: "tree",
        role: "tree",
        "aria-label": `Tree of ${pathOf(keys)}`,
        "data-testid": "tree",
      });
      const node = treeNode(
        { source: answer.source, onSelect: (k, v) => this.select(k, v), onTable: (k) => this.open(k), onError },
        keys,
        pathOf(keys),
        known,
      );
      tree.append(node);
      fill(this.main, tree);
      node.querySelector("button")?.click();
    }
  }

  /** Goes to a found node or hit: its row in a table, its line in a text, or its place in a tree. */
  private goTo(path: string, line?: number): void {
    const keys = keysOf(path);
    if (!keys) return;
    const answer = this.need();
    for (let at = keys.length - 1; at >= 0; at--) {
      const index = keys[at];
      const list = keys.slice(0, at);
      if (typeof index !== "number") continue;
      const shape = answer.local ? shapeOfValue(valueAt(answer.preview, list)) : shapeAt(answer.shape, list);
      if (!isTable({ has: answer.local, value: answer.local ? valueAt(answer.preview, list) : undefined, shape }))
        continue;
      if (!this.table || pathOf(this.table.keys) !== pathOf(list)) this.open(list);
      this.table!.view.reveal(index, at < keys.length - 1 ? keys : undefined);
      return;
    }
    const shape = answer.local ? shapeOfValue(valueAt(answer.preview, keys)) : shapeAt(answer.shape, keys);
    if (line !== undefined && shape?.type === "string") {
      if (!this.lines || pathOf(this.lines.keys) !== path) this.open(keys);
      this.select(keys, undefined);
      this.lines!.view.reveal(line);
      return;
    }
    this.open(keys);
    this.select(keys, answer.local ? valueAt(answer.preview, keys) : undefined);
  }

  private select(keys: Key[], value: unknown, line?: { number: number; offset: number; length: number }): void {
    this.selected = { keys, value, ...(line ? { line } : {}) };
    fill(this.chosen, pathOf(keys) + (line ? ` line ${line.number}` : ""));
    fill(this.chosenValue, value === undefined ? "" : textOf(value, 300));
    fill(this.told);
  }

  private drawCrumbs(keys: Key[]): void {
    const parts: (HTMLElement | string)[] = [];
    for (let at = 0; at <= keys.length; at++) {
      const prefix = keys.slice(0, at);
      const button = h(
        "button",
        { type: "button", class: "link", "aria-current": at === keys.length ? "location" : undefined },
        at === 0 ? "$" : String(keys[at - 1]),
      );
      button.addEventListener("click", () => this.open(prefix));
      if (at > 0) parts.push(" › ");
      parts.push(button);
    }
    fill(this.crumbs, ...parts);
  }

  private async copyPath(): Promise<void> {
    const path = pathOf(this.selected.keys);
    try {
      await navigator.clipboard.writeText(path);
      fill(this.told, "Path copied");
    } catch {
      // A sandboxed frame may not reach the clipboard: leave the path selected for Ctrl+C.
      getSelection()?.selectAllChildren(this.chosen);
      fill(this.told, "Press Ctrl+C to copy the selected path");
    }
  }

  private async tellModel(): Promise<void> {
    const answer = this.need();
    const path = pathOf(this.selected.keys);
    const handle = answer.source.handle;
    const line = this.selected.line;
    const where = line ? `line ${line.number} of ${path}` : path;
    // A line is read back by its characters: offset and limit count them in a string (S7.3).
    const args = line ? { handle, path, offset: line.offset, limit: Math.max(1, line.length) } : { handle, path };
    const text = handle
      ? `Look at ${where} in the folded answer ${handle}: result_query ${JSON.stringify(args)}`
      : `Look at ${where} in the last answer: ` +
        textOf(this.selected.value ?? valueAt(answer.preview, this.selected.keys), 2000);
    fill(
      this.told,
      (await this.host.tell(text).catch(() => false))
        ? "Sent to the conversation"
        : "The host did not take the message",
    );
  }

  showError(error: unknown): void {
    const text =
      error instanceof ReadError
        ? `${error.code}: ${error.message}`
        : error instanceof Error
          ? error.message
          : String(error);
    fill(this.error, text);
    this.error.hidden = false;
  }
}

function parseText(text: string | undefined): unknown {
  if (text === undefined) return "";
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Where to start: the answer's largest list of objects within two levels (report's rows), else the whole. */
function startAt(shape: Shape | undefined): Key[] {
  if (!shape || shape.type !== "object") return [];
  let best: { keys: Key[]; length: number } | undefined;
  const visit = (at: Shape, keys: Key[], depth: number) => {
    for (const [key, child] of Object.entries(at.keys ?? {})) {
      if (child.type === "array" && child.items?.type === "object" && (child.length ?? 0) > (best?.length ?? 0))
        best = { keys: [...keys, key], length: child.length ?? 0 };
      if (child.type === "object" && depth < 2) visit(child, [...keys, key], depth + 1);
    }
  };
  visit(shape, [], 1);
  return best?.keys ?? [];
}
