/**
 * What a search or a JSONPath query found (S14.2, S14.4), as a list beside the JSON: one line per hit
 * (its path, line number and text, the match marked) or per selected node (its path and value).
 */
interface Hit {
  path: string;
  text: string;
  key?: boolean;
  line?: number;
}

/** Fills `target` with the hits or nodes of `result`, or hides it when the result is a plain slice. */
export function renderFound(target: HTMLElement, result: unknown, search: string | undefined): void {
  const found = result as { value?: unknown; paths?: unknown } | undefined;
  const items: HTMLElement[] = [];
  if (search && Array.isArray(found?.value)) {
    for (const hit of found.value as Hit[]) items.push(hitItem(hit, search));
  } else if (Array.isArray(found?.paths) && Array.isArray(found?.value)) {
    found.paths.forEach((path, i) => items.push(nodeItem(String(path), (found.value as unknown[])[i])));
  }
  target.replaceChildren(...items);
  target.hidden = items.length === 0;
}

function hitItem(hit: Hit, search: string): HTMLElement {
  const item = document.createElement("li");
  item.append(code(hit.path));
  if (hit.key) item.append(tag("key"));
  if (hit.line !== undefined) item.append(tag(`line ${hit.line}`));
  item.append(" ", ...marked(hit.text, search));
  return item;
}

function nodeItem(path: string, value: unknown): HTMLElement {
  const item = document.createElement("li");
  const text = JSON.stringify(value) ?? "null";
  item.append(code(path), " ", text.length > 120 ? `${text.slice(0, 120)}…` : text);
  return item;
}

/** The text with each case-insensitive occurrence of `search` in a <mark> (indexOf: no regex from input). */
function marked(text: string, search: string): (string | HTMLElement)[] {
  const parts: (string | HTMLElement)[] = [];
  const lower = text.toLowerCase();
  const needle = search.toLowerCase();
  let from = 0;
  for (let at = lower.indexOf(needle); at >= 0 && lower.length === text.length; at = lower.indexOf(needle, from)) {
    parts.push(text.slice(from, at));
    const mark = document.createElement("mark");
    mark.textContent = text.slice(at, at + needle.length);
    parts.push(mark);
    from = at + needle.length;
  }
  parts.push(text.slice(from));
  return parts;
}

function code(text: string): HTMLElement {
  const element = document.createElement("code");
  element.textContent = text;
  return element;
}

function tag(text: string): HTMLElement {
  const element = document.createElement("span");
  element.className = "tag";
  element.textContent = text;
  return element;
}
