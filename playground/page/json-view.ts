/** Readable JSON for the page: syntax-coloured text, and a shape (S6.2) drawn as a collapsible tree. */
import type { Shape } from "mcp-result-handles";

const TOKEN = /("(?:\\.|[^"\\])*")(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;

/** Fills `target` with `value` as indented JSON, coloured by token; its textContent stays valid JSON. */
export function renderJson(target: HTMLElement, value: unknown): void {
  target.classList.remove("empty");
  const text = formatJson(value, "", columnsOf(target));
  target.replaceChildren();
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    if (match.index > last) target.append(text.slice(last, match.index));
    const [whole, string, colon, literal] = match;
    if (string !== undefined) {
      target.append(span(colon ? "key" : "str", string));
      if (colon) target.append(colon);
    } else {
      target.append(span(literal !== undefined ? "lit" : "num", whole));
    }
    last = match.index + whole.length;
  }
  target.append(text.slice(last));
}

const LINE = 78;

/**
 * How many characters fit on one line of `target` (a monospace panel), so that the JSON is laid out for
 * the panel it is shown in: a narrow panel gets a ticket per few lines rather than lines that wrap.
 */
function columnsOf(target: HTMLElement): number {
  const probe = document.createElement("span");
  probe.textContent = "0".repeat(20);
  target.replaceChildren(probe);
  const charWidth = probe.getBoundingClientRect().width / 20;
  const style = getComputedStyle(target);
  const inner = target.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  probe.remove();
  // A hidden panel measures nothing: lay out for the usual width. The scrollbar may take two characters.
  return charWidth > 0 && inner > 0 ? Math.max(20, Math.floor(inner / charWidth) - 2) : LINE;
}

/**
 * Indented JSON that keeps short lists and objects (a ticket, a slice's row) on one line of `width`.
 * `lead` counts what precedes the value on its first line after the indent (`"key": `).
 */
export function formatJson(value: unknown, indent = "", width = LINE, lead = 0): string {
  const inline = inlineJson(value);
  // One character to spare for the comma after an item.
  if (value === null || typeof value !== "object" || indent.length + lead + inline.length < width) return inline;
  const inner = `${indent}  `;
  if (Array.isArray(value))
    return `[\n${value.map((item) => inner + formatJson(item, inner, width)).join(",\n")}\n${indent}]`;
  const entries = Object.entries(value).filter(([, item]) => item !== undefined);
  const line = ([key, item]: [string, unknown]) =>
    `${inner}${JSON.stringify(key)}: ${formatJson(item, inner, width, JSON.stringify(key).length + 2)}`;
  return `{\n${entries.map(line).join(",\n")}\n${indent}}`;
}

function inlineJson(value: unknown): string {
  if (Array.isArray(value)) return value.length ? `[${value.map(inlineJson).join(", ")}]` : "[]";
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    return entries.length
      ? `{ ${entries.map(([key, item]) => `${JSON.stringify(key)}: ${inlineJson(item)}`).join(", ")} }`
      : "{}";
  }
  return JSON.stringify(value) ?? "null";
}

export function renderPlaceholder(target: HTMLElement, text: string): void {
  target.replaceChildren(text);
  target.classList.add("empty");
}

/** The shape as nested `<details>`: containers open to two levels, each line saying type and size. */
export function renderShape(target: HTMLElement, shape: Shape): void {
  target.replaceChildren(shapeNode("$", shape, 0));
  target.classList.remove("empty");
}

function shapeNode(name: string, shape: Shape, depth: number): HTMLElement {
  const children = childrenOf(shape);
  const label = document.createElement("span");
  label.className = "node";
  label.append(span("name", name), " ", span(`type t-${typeName(shape)}`, typeName(shape)));
  const size = sizeOf(shape);
  if (size) label.append(" ", span("size", size));
  if (shape.optional) label.append(" ", span("flag", "optional"));
  if (children.length === 0) {
    const leaf = document.createElement("div");
    leaf.className = "leaf";
    leaf.append(label);
    return leaf;
  }
  const details = document.createElement("details");
  details.open = depth < 3;
  const summary = document.createElement("summary");
  summary.append(label);
  details.append(summary, ...children.map(([childName, child]) => shapeNode(childName, child, depth + 1)));
  return details;
}

function childrenOf(shape: Shape): [string, Shape][] {
  if ("anyOf" in shape) return shape.anyOf.map((option, i) => [`option ${i + 1}`, option]);
  if (shape.type === "array" && shape.items) return [["[ ]", shape.items]];
  if (shape.type === "object" && shape.keys) return Object.entries(shape.keys);
  return [];
}

function typeName(shape: Shape): string {
  return "anyOf" in shape ? "any of" : shape.type;
}

function sizeOf(shape: Shape): string {
  if ("anyOf" in shape) return `${shape.anyOf.length} kinds`;
  if (shape.type === "array") return `${shape.length} item${shape.length === 1 ? "" : "s"}`;
  if (shape.type === "string") return `${shape.length} char${shape.length === 1 ? "" : "s"}`;
  if (shape.type === "object") {
    const count = shape.keyCount ?? Object.keys(shape.keys ?? {}).length;
    return `${count} key${count === 1 ? "" : "s"}`;
  }
  return "";
}

function span(className: string, text: string): HTMLSpanElement {
  const element = document.createElement("span");
  element.className = className;
  element.textContent = text;
  return element;
}
