/**
 * The filter box (any JSONPath of S14.1) and the search box (S14.4): their nodes and hits as a list,
 * each linked to where it is in the answer; and "Count by" (S24.1): the filter's nodes (or the items of the
 * table in view) grouped by a member, as a small table of group, count and figures whose examples link
 * to their nodes.
 */
import { fill, formatNumber, h, textOf } from "./dom.js";
import type { Group, ReadArgs, Slice } from "./source.js";

const SHOWN = 100;
const GROUPS_SHOWN = 50;
const FIGURES = ["sum", "min", "max", "avg"] as const;

interface FindOptions {
  read(args: ReadArgs): Promise<Slice>;
  goTo(path: string, line?: number): void;
  onError(error: unknown): void;
  /** The query whose nodes "Count by" groups when the filter box is empty: the items of the table in view. */
  nodesInView(): string;
}

export function findPanel(options: FindOptions) {
  const filter = h("input", {
    type: "search",
    "aria-label": "JSONPath filter",
    placeholder: "Filter (JSONPath), e.g. $..title",
    spellcheck: "false",
    "data-testid": "filter-input",
  });
  const search = h("input", {
    type: "search",
    "aria-label": "Text to find",
    placeholder: "Search text",
    spellcheck: "false",
    "data-testid": "search-input",
  });
  const status = h("p", { class: "note", role: "status", "data-testid": "found-status" });
  const list = h("ol", { class: "found", "data-testid": "found" });
  const by = h("input", {
    type: "search",
    "aria-label": "Member to count by",
    placeholder: "Count by member, e.g. owner",
    spellcheck: "false",
    "data-testid": "count-by-input",
  });
  const figure = h("input", {
    type: "search",
    "aria-label": "Member to figure",
    placeholder: "with sum, min, max, avg of, e.g. priority",
    spellcheck: "false",
    "data-testid": "figure-input",
  });
  const groups = h("div", { class: "groups", "data-testid": "groups" });
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
    groups.replaceChildren();
    try {
      const slice = await options.read({ ...args, limit: args.aggregate ? GROUPS_SHOWN : SHOWN });
      if (slice.groups) showGroups(slice, args.aggregate!);
      else show(slice, args.search !== undefined);
    } catch (error) {
      fill(status);
      options.onError(error);
    }
  }
  function show(slice: Slice, hits: boolean): void {
    const values = Array.isArray(slice.value) ? slice.value : [slice.value];
    const total = slice.total ?? values.length;
    const unit = hits ? "hit" : "node";
    fill(
      status,
      `${formatNumber(total)} ${unit}${total === 1 ? "" : "s"}` +
        (total > values.length ? `, the first ${values.length} shown` : "") +
        (slice.note ? ` · ${slice.note}` : ""),
    );
    values.forEach((value, at) => {
      const hit = hits ? (value as { path: string; text: string; line?: number }) : undefined;
      const path = hit ? hit.path : (slice.paths?.[at] ?? slice.path);
      const link = h(
        "button",
        { type: "button", class: "link", "data-testid": "found-path" },
        path + (hit?.line ? ` line ${hit.line}` : ""),
      );
      link.addEventListener("click", () => options.goTo(path, hit?.line));
      list.append(
        h(
          "li",
          { "data-testid": "found-item" },
          link,
          h("span", { class: "summary" }, textOf(hit ? hit.text : value, 300)),
        ),
      );
    });
  }
  /** The groups as a table: group, count, the figures asked for, and each group's examples as links. */
  function showGroups(slice: Slice, asked: NonNullable<ReadArgs["aggregate"]>): void {
    const shown = slice.groups!;
    const count = slice.groupCount ?? shown.length;
    fill(
      status,
      `${formatNumber(count)} group${count === 1 ? "" : "s"} ` +
        `of ${formatNumber(slice.total ?? 0)} nodes of ${slice.path}` +
        (count > shown.length ? `, the first ${shown.length} shown` : "") +
        (slice.note ? ` · ${slice.note}` : ""),
    );
    const figures = FIGURES.filter((name) => asked[name] !== undefined);
    const head = h(
      "tr",
      {},
      h("th", {}, asked.by ?? "group"),
      h("th", {}, "count"),
      ...figures.map((name) => h("th", {}, `${name} of ${asked[name]}`)),
      h("th", {}, "examples"),
    );
    const rows = shown.map((group: Group) => {
      const examples = group.examples.map((path) => {
        const link = h("button", { type: "button", class: "link", "data-testid": "group-example" }, path);
        link.addEventListener("click", () => options.goTo(path));
        return link;
      });
      const cells = figures.map((name) =>
        h(
          "td",
          { class: "number" },
          group[name] === null || group[name] === undefined ? "–" : formatNumber(group[name]!),
        ),
      );
      return h(
        "tr",
        { "data-testid": "group" },
        h("td", {}, textOf(group.key, 120)),
        h("td", { class: "number" }, formatNumber(group.count)),
        ...cells,
        h("td", {}, ...examples),
      );
    });
    fill(groups, h("table", {}, h("thead", {}, head), h("tbody", {}, ...rows)));
  }
  const countBy = () => {
    const member = by.value.trim();
    if (member === "") return;
    const of = figure.value.trim();
    const aggregate = of === "" ? { by: member } : { by: member, sum: of, min: of, max: of, avg: of };
    void run({ path: filter.value.trim() || options.nodesInView(), aggregate });
  };
  const count = h("button", { type: "button" }, "Count");
  count.addEventListener("click", countBy);
  for (const input of [by, figure]) input.addEventListener("keydown", (event) => event.key === "Enter" && countBy());
  const element = h(
    "section",
    { class: "finders", "aria-label": "Find" },
    form(filter, "Filter", (text) => ({ path: text.trim() })),
    form(search, "Search", (text) => ({ path: "$", keys: [], search: text })),
    h("div", { class: "find count", role: "search" }, by, figure, count),
    status,
    list,
    groups,
  );
  return { element };
}
