/**
 * A long string as numbered lines (S19.3), read in pages of characters from the start as the person
 * scrolls, with only the visible lines in the DOM.
 */
import { fill, formatNumber, h } from "./dom.js";
import { pathOf, type Key } from "./paths.js";
import type { Source } from "./source.js";
import { drawOncePerFrame, rowsInView } from "./rows-in-view.js";

const LINE_HEIGHT = 20;
const CHARS = 50_000;

export class LinesView {
  readonly element: HTMLElement;
  private readonly scroller: HTMLElement;
  private readonly body: HTMLElement;
  private readonly status: HTMLElement;
  private readonly lines: string[] = [];
  /** Where each line read so far starts, in characters of the string (what `offset` counts). */
  private readonly starts: number[] = [];
  private chosen = -1;
  /** The last line read so far, which may go on in the next page. */
  private tail = "";
  private read = 0;
  private loading: Promise<void> | undefined;
  private readonly schedule = drawOncePerFrame(() => this.draw());
  private failed = false;

  constructor(
    private readonly source: Source,
    private readonly keys: Key[],
    private readonly total: number,
    first: string,
    private readonly onError: (error: unknown) => void,
    /** A line was chosen: its number (1-based), where it starts and how long it is, in characters. */
    private readonly onChoose: (line: number, offset: number, length: number) => void,
  ) {
    this.scroller = h("div", {
      class: "scroll lines",
      tabindex: 0,
      role: "document",
      "aria-label": `Text of ${pathOf(keys)}`,
      "data-testid": "lines",
    });
    this.body = h("div", { class: "rows" });
    this.scroller.append(this.body);
    this.status = h("p", { class: "note" });
    this.element = h("div", { class: "table" }, h("div", { class: "bar" }, this.status), this.scroller);
    if (first.length === total) this.take(first);
    this.scroller.addEventListener("scroll", () => this.schedule());
    new ResizeObserver(() => this.schedule()).observe(this.scroller);
    this.schedule();
  }

  private take(text: string): void {
    const parts = (this.tail + text).split("\n");
    this.read += text.length;
    this.tail = this.read >= this.total ? "" : parts.pop()!;
    for (const part of parts) {
      const last = this.lines.length - 1;
      this.starts.push(last < 0 ? 0 : this.starts[last]! + this.lines[last]!.length + 1);
      this.lines.push(part);
    }
  }

  /** Scrolls to a line (1-based) read so far, or to the end of what is read. */
  reveal(line: number): void {
    this.scroller.scrollTop = Math.max(0, (line - 3) * LINE_HEIGHT);
    if (line <= this.lines.length) this.choose(line - 1);
    this.schedule();
  }

  private choose(at: number): void {
    this.chosen = at;
    this.onChoose(at + 1, this.starts[at]!, this.lines[at]!.length);
    this.schedule();
  }

  private draw(): void {
    const { from, to } = rowsInView(this.scroller, LINE_HEIGHT, this.lines.length);
    this.body.style.height = `${this.lines.length * LINE_HEIGHT}px`;
    const drawn: HTMLElement[] = [];
    for (let at = from; at < to; at++) {
      const line = h(
        "div",
        { class: "line", "data-testid": "line", "aria-selected": at === this.chosen ? "true" : undefined },
        h("span", { class: "index" }, String(at + 1)),
        h("span", {}, this.lines[at]!),
      );
      line.style.transform = `translateY(${at * LINE_HEIGHT}px)`;
      line.addEventListener("click", () => this.choose(at));
      drawn.push(line);
    }
    this.body.replaceChildren(...drawn);
    fill(
      this.status,
      `${formatNumber(this.total)} characters · ${formatNumber(this.lines.length)} lines read` +
        (this.read < this.total ? ` · ${Math.floor((100 * this.read) / this.total)}%` : ""),
    );
    if (this.read < this.total && !this.failed && to + 50 > this.lines.length) void this.more();
  }

  private more(): Promise<void> {
    this.loading ??= this.source
      .read({ path: pathOf(this.keys), keys: this.keys, offset: this.read, limit: CHARS })
      .then(
        (slice) => this.take(slice.value as string),
        (error: unknown) => {
          this.failed = true; // no retry loop: the person sees the refusal
          this.onError(error);
        },
      )
      .finally(() => {
        this.loading = undefined;
        this.schedule();
      });
    return this.loading;
  }
}
