/**
 * A list of objects as a table (S19.3): columns from the shape's keys, rows read a page at a time as they
 * scroll into view, and only the visible rows in the DOM, so a list of a million rows stays as fast as
 * one of ten. Sorting orders the rows loaded so far; End (or "Last") pages to the last row.
 */
import { fill, formatNumber, h, textOf } from "./dom.js";
import { pathOf, type Key } from "./paths.js";
import type { Source } from "./source.js";
import { drawOncePerFrame, rowsInView } from "./rows-in-view.js";

const ROW_HEIGHT = 28;
const PAGE = 100;

interface TableOptions {
  source: Source;
  keys: readonly Key[];
  total: number;
  columns: string[];
  /** Rows known already (the preview's first items): shown at once, replaced when their page arrives. */
  first: unknown[];
  onSelect(keys: Key[], value: unknown): void;
  onError(error: unknown): void;
}

export class TableView {
  readonly element: HTMLElement;
  private readonly scroller: HTMLElement;
  private readonly body: HTMLElement;
  private readonly status: HTMLElement;
  private readonly rows: unknown[] = [];
  private readonly pages = new Map<number, Promise<void>>();
  private order: number[] | undefined;
  private sortKey: string | undefined;
  private sortUp = true;
  private selected = -1;
  private readonly schedule = drawOncePerFrame(() => this.draw());

  constructor(private readonly options: TableOptions) {
    options.first.forEach((row, at) => (this.rows[at] = row));
    const columns = options.columns;
    this.scroller = h("div", {
      class: "scroll",
      tabindex: 0,
      role: "grid",
      "aria-rowcount": options.total,
      "aria-label": `Rows of ${pathOf(options.keys)}`,
      "data-testid": "table",
    });
    this.scroller.style.setProperty("--columns", `5em repeat(${Math.max(columns.length, 1)}, minmax(7em, 1fr))`);
    const head = h("div", { class: "row head", role: "row" }, h("span", { role: "columnheader" }, "#"));
    for (const column of columns) {
      const button = h(
        "button",
        { type: "button", role: "columnheader", title: `Sort the loaded rows by ${column}` },
        column,
      );
      button.addEventListener("click", () => this.sortBy(column));
      head.append(button);
    }
    this.body = h("div", { class: "rows" });
    this.scroller.append(head, this.body);
    this.status = h("p", { class: "note", "data-testid": "table-status" });
    const last = h("button", { type: "button", "data-testid": "table-last" }, "Last row");
    last.addEventListener("click", () => this.moveTo(this.length - 1));
    const firstButton = h("button", { type: "button" }, "First row");
    firstButton.addEventListener("click", () => this.moveTo(0));
    this.element = h(
      "div",
      { class: "table" },
      h("div", { class: "bar" }, this.status, firstButton, last),
      this.scroller,
    );
    this.scroller.addEventListener("scroll", () => this.schedule());
    this.scroller.addEventListener("keydown", (event) => this.key(event));
    new ResizeObserver(() => this.schedule()).observe(this.scroller);
    this.schedule();
  }

  private get length(): number {
    return this.order ? this.order.length : this.options.total;
  }

  /** Draws only the rows in view (plus a few), and asks for the pages they need. */
  private draw(): void {
    const { from, to } = rowsInView(this.scroller, ROW_HEIGHT, this.length);
    this.body.style.height = `${this.length * ROW_HEIGHT}px`;
    const drawn: HTMLElement[] = [];
    for (let at = from; at < to; at++) {
      const index = this.order ? this.order[at]! : at;
      const row = this.rows[index];
      if (row === undefined) void this.load(Math.floor(index / PAGE));
      drawn.push(this.rowElement(at, index, row));
    }
    this.body.replaceChildren(...drawn);
    const loaded = this.rows.filter((row) => row !== undefined).length;
    const sorted = this.sortKey ? ` · sorted by ${this.sortKey} within the ${formatNumber(loaded)} loaded` : "";
    fill(this.status, `${formatNumber(this.options.total)} rows · ${formatNumber(loaded)} loaded${sorted}`);
  }

  private rowElement(at: number, index: number, row: unknown): HTMLElement {
    const element = h("div", {
      class: "row",
      role: "row",
      "data-testid": "row",
      "data-index": index,
      "aria-rowindex": index + 1,
      "aria-selected": index === this.selected ? "true" : undefined,
    });
    element.style.transform = `translateY(${at * ROW_HEIGHT}px)`;
    element.append(h("span", { class: "index", role: "rowheader" }, String(index)));
    for (const column of this.options.columns) {
      const cell = row === undefined ? "…" : textOf((row as Record<string, unknown> | null)?.[column]);
      element.append(h("span", { role: "gridcell", title: cell }, cell));
    }
    element.addEventListener("click", () => this.select(index));
    return element;
  }

  private load(page: number): Promise<void> {
    let loading = this.pages.get(page);
    if (!loading) {
      const keys = this.options.keys;
      loading = this.options.source.read({ path: pathOf(keys), keys, offset: page * PAGE, limit: PAGE }).then(
        (slice) => {
          (slice.value as unknown[]).forEach((row, k) => (this.rows[page * PAGE + k] = row));
          this.schedule();
        },
        (error: unknown) => {
          // Not again at once: a page that failed is asked for again only after a pause (scrolling redraws often).
          setTimeout(() => this.pages.delete(page), 3000);
          this.options.onError(error);
        },
      );
      this.pages.set(page, loading);
    }
    return loading;
  }

  private sortBy(column: string): void {
    this.sortUp = this.sortKey === column ? !this.sortUp : true;
    this.sortKey = column;
    const loaded = this.rows.flatMap((row, index) => (row === undefined ? [] : [index]));
    const cell = (index: number) => (this.rows[index] as Record<string, unknown> | null)?.[column];
    loaded.sort((a, b) => compare(cell(a), cell(b)) * (this.sortUp ? 1 : -1) || a - b);
    this.order = loaded;
    this.schedule();
  }

  /** Selects the row with this index in the answer, scrolling it into view (a found node links here). */
  reveal(index: number, chosen?: Key[]): void {
    this.order = undefined;
    this.sortKey = undefined;
    this.moveTo(index, chosen);
  }

  /** Scrolls to a position and selects its row, or `chosen` (a place inside it) once its page is here. */
  private moveTo(at: number, chosen?: Key[]): void {
    if (this.length === 0) return;
    const clamped = Math.max(0, Math.min(this.length - 1, at));
    this.scrollToShow(clamped);
    const index = this.order ? this.order[clamped]! : clamped;
    void this.load(Math.floor(index / PAGE)).then(() => {
      this.select(index, chosen);
      // Selecting shows the row's path and value below the table, which makes the scroller shorter: the
      // row is brought into view again once that layout is done (S25.4: "Last row" left row 199 hidden).
      requestAnimationFrame(() => this.scrollToShow(clamped));
    });
  }

  /** Scrolls so the row at this position is wholly visible: below the sticky header, above the lower edge. */
  private scrollToShow(at: number): void {
    const head = (this.scroller.firstElementChild as HTMLElement | null)?.offsetHeight ?? ROW_HEIGHT;
    const top = at * ROW_HEIGHT; // within the rows, which start below the header
    const { scrollTop, clientHeight } = this.scroller;
    if (top < scrollTop) this.scroller.scrollTop = top;
    else if (head + top + ROW_HEIGHT > scrollTop + clientHeight)
      this.scroller.scrollTop = head + top + ROW_HEIGHT - clientHeight;
  }

  private select(index: number, chosen?: Key[]): void {
    this.selected = index;
    this.options.onSelect(chosen ?? [...this.options.keys, index], chosen ? undefined : this.rows[index]);
    this.schedule();
  }

  private key(event: KeyboardEvent): void {
    const position = this.order ? this.order.indexOf(this.selected) : this.selected;
    const pageRows = Math.max(1, Math.floor(this.scroller.clientHeight / ROW_HEIGHT) - 1);
    const moves: Record<string, number> = {
      ArrowDown: position + 1,
      ArrowUp: position - 1,
      PageDown: position + pageRows,
      PageUp: position - pageRows,
      Home: 0,
      End: this.length - 1,
    };
    const target = moves[event.key];
    if (target === undefined) return;
    event.preventDefault();
    this.moveTo(target);
  }
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  return textOf(a).localeCompare(textOf(b), "en", { numeric: true });
}
