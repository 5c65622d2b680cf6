/**
 * Any other JSON as a collapsible tree (S19.3). A node's children come from the value when it is here;
 * otherwise they are read when the node is opened, and when they are too large to read at once, the
 * shape names them and each is read when opened in turn.
 */
import { h, textOf } from "./dom.js";
import { pathOf, type Key } from "./paths.js";
import { ReadError, type Source } from "./source.js";
import type { Shape } from "./shape.js";

const CHILDREN = 200;

interface TreeOptions {
  source: Source;
  onSelect(keys: Key[], value: unknown): void;
  /** Opens a list of objects as a table. */
  onTable(keys: Key[]): void;
  onError(error: unknown): void;
}

interface Known {
  value?: unknown;
  has: boolean;
  shape?: Shape;
}

export function treeNode(options: TreeOptions, keys: Key[], label: string, known: Known): HTMLElement {
  const container = isContainer(known);
  const summary = summaryOf(known);
  const item = h("li", {
    role: "treeitem",
    "data-path": pathOf(keys),
    "aria-expanded": container ? "false" : undefined,
  });
  const name = h("button", { type: "button", class: "key", title: pathOf(keys) }, label);
  const line = h("div", { class: "node" }, name, h("span", { class: "summary" }, summary));
  item.append(line);
  name.addEventListener("click", () => {
    options.onSelect(keys, known.has ? known.value : undefined);
    if (container) void toggle();
  });
  if (isTable(known)) {
    const table = h("button", { type: "button", class: "link" }, "table");
    table.addEventListener("click", () => options.onTable(keys));
    line.append(table);
  }
  let group: HTMLElement | undefined;
  async function toggle(): Promise<void> {
    if (group) {
      group.hidden = !group.hidden;
      item.setAttribute("aria-expanded", String(!group.hidden));
      return;
    }
    group = h("ul", { role: "group" });
    item.append(group);
    item.setAttribute("aria-expanded", "true");
    try {
      group.append(...(await children(options, keys, known)));
    } catch (error) {
      options.onError(error);
    }
  }
  return item;
}

/** One page of a node's children (from `offset`), then a "more" item that reads the next page when pressed. */
async function children(options: TreeOptions, keys: Key[], known: Known, offset = 0): Promise<HTMLElement[]> {
  let entries: [Key, unknown][];
  let next: number | undefined;
  let total: number;
  if (known.has) {
    const all: [Key, unknown][] = Array.isArray(known.value)
      ? known.value.map((child, at) => [at, child])
      : Object.entries(known.value as object);
    entries = all.slice(offset, offset + CHILDREN);
    total = all.length;
    next = offset + CHILDREN < total ? offset + CHILDREN : undefined;
  } else {
    try {
      const slice = await options.source.read({ path: pathOf(keys), keys, offset, limit: CHILDREN });
      const value = slice.value;
      entries = Array.isArray(value) ? value.map((child, at) => [offset + at, child]) : Object.entries(value as object);
      total = slice.total ?? entries.length;
      next = slice.nextOffset;
    } catch (error) {
      if (!(error instanceof ReadError && error.code === "RESULT_SLICE_TOO_LARGE") || !known.shape || offset > 0)
        throw error;
      return fromShape(options, keys, known.shape);
    }
  }
  const items = entries.map(([key, child]) =>
    treeNode(options, [...keys, key], String(key), {
      value: child,
      has: true,
      shape: typeof key === "number" ? itemShape(known.shape) : known.shape?.keys?.[key],
    }),
  );
  if (next !== undefined) {
    const more = h("button", { type: "button", class: "link", "data-testid": "tree-more" }, `${total - next} more…`);
    const item = h("li", {}, more);
    more.addEventListener("click", () => {
      more.disabled = true;
      children(options, keys, known, next).then((page) => item.replaceWith(...page), options.onError);
    });
    items.push(item);
  }
  return items;
}

/** Children named by the shape, each read when opened. */
function fromShape(options: TreeOptions, keys: Key[], shape: Shape): HTMLElement[] {
  if (shape.type === "array") {
    const count = Math.min(shape.length ?? 0, CHILDREN);
    return Array.from({ length: count }, (_, at) =>
      treeNode(options, [...keys, at], String(at), { has: false, shape: itemShape(shape) }),
    );
  }
  return Object.entries(shape.keys ?? {}).map(([key, child]) =>
    treeNode(options, [...keys, key], key, { has: false, shape: child }),
  );
}

function itemShape(shape: Shape | undefined): Shape | undefined {
  return shape?.type === "array" && shape.items && !("anyOf" in shape.items) ? shape.items : undefined;
}

function isContainer(known: Known): boolean {
  if (known.has) return known.value !== null && typeof known.value === "object";
  return known.shape === undefined || known.shape.type === "array" || known.shape.type === "object";
}

export function isTable(known: { value?: unknown; has: boolean; shape?: Shape }): boolean {
  if (known.shape?.type === "array") return known.shape.items?.type === "object";
  return (
    known.has &&
    Array.isArray(known.value) &&
    known.value.length > 0 &&
    known.value.every((row) => row !== null && typeof row === "object" && !Array.isArray(row))
  );
}

function summaryOf(known: Known): string {
  if (known.has) {
    const value = known.value;
    if (Array.isArray(value)) return count(value.length, "item", "[]");
    if (value !== null && typeof value === "object") return count(Object.keys(value).length, "key", "{}");
    return textOf(value);
  }
  const shape = known.shape;
  if (!shape) return "…";
  if (shape.type === "array") return count(shape.length ?? 0, "item", "[]");
  if (shape.type === "object") return count(shape.keyCount ?? Object.keys(shape.keys ?? {}).length, "key", "{}");
  if (shape.type === "string") return `string, ${shape.length} characters`;
  return shape.type;
}

function count(n: number, unit: string, brackets: string): string {
  return `${brackets[0]}${n} ${unit}${n === 1 ? "" : "s"}${brackets[1]}`;
}
