/**
 * The filter box (any JSONPath of S14.1) and the search box (S14.4): their nodes and hits as a list,
 * each linked to where it is in the answer.
 */
import { fill, formatNumber, h, textOf } from "./dom.js";
import type { ReadArgs, Slice } from "./source.js";

const SHOWN = 100;

export interface FindOptions {
  read(args: ReadArgs): Promise<Slice>;
  goTo(path: string, line?: number): void;
  onError(error: unknown): void;
}

export function findPanel(options: FindOptions) {
  const filter = h("input", { type: "search", "aria-label": "JSONPath filter", placeholder: "Filter (JSONPath), e.g. $..title", spellcheck: "false", "data-testid": "filter-input" });
  const search = h("input", { type: "search", "aria-label": "Text to find", placeholder: "Search text", spellcheck: "false", "data-testid": "search-input" });
  const status = h("p", { class: "note", role: "status", "data-testid": "found-status" });
  const list = h("ol", { class: "found", "data-testid": "found" });
  // No <form>: a host's sandbox without allow-forms would drop its submit event; Enter and the button do it.
  const form = (input: HTMLInputElement, label: string, args: (text: string) => ReadArgs) => {
    const button = h("button", { type: "button" }, label);
    const go = () => input.value.trim() !== "" && void run(args(input.value));
    button.addEventListener("click", go);
    input.addEventListener("keydown", (event) => event.key === "Enter" && go());
    return h("div", { class: "find", role: "search" }, input, button);
  };
  async function run(args: ReadArgs): Promise<void> {
    fill(status, "Reading…");
    list.replaceChildren();
    try {
      const slice = await options.read({ ...args, limit: SHOWN });
      show(slice, args.search !== undefined);
    } catch (error) {
      fill(status);
      options.onError(error);
    }
  }
  function show(slice: Slice, hits: boolean): void {
    const values = Array.isArray(slice.value) ? slice.value : [slice.value];
    const total = slice.total ?? values.length;
    const unit = hits ? "hit" : "node";
    fill(status, `${formatNumber(total)} ${unit}${total === 1 ? "" : "s"}${total > values.length ? `, the first ${values.length} shown` : ""}${slice.note ? ` · ${slice.note}` : ""}`);
    values.forEach((value, at) => {
      const hit = hits ? (value as { path: string; text: string; line?: number }) : undefined;
      const path = hit ? hit.path : (slice.paths?.[at] ?? slice.path);
      const link = h("button", { type: "button", class: "link", "data-testid": "found-path" }, path + (hit?.line ? ` line ${hit.line}` : ""));
      link.addEventListener("click", () => options.goTo(path, hit?.line));
      list.append(h("li", { "data-testid": "found-item" }, link, h("span", { class: "summary" }, textOf(hit ? hit.text : value, 300))));
    });
  }
  const element = h(
    "section",
    { class: "finders", "aria-label": "Find" },
    form(filter, "Filter", (text) => ({ path: text.trim() })),
    form(search, "Search", (text) => ({ path: "$", keys: [], search: text })),
    status,
    list,
  );
  return { element };
}
