// The in-page playground (S11.3) end to end: a production build under `vite preview`, in Debian's Chromium.
import { copyFileSync, mkdirSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { reportRows } from "../playground/demo-tools.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** The demo's tickets (S18.7) from `from` to `to`, as the page's report answers them. */
const tickets = (from: number, to: number) => reportRows().rows.slice(from, to + 1);

async function open(page: Page, search = ""): Promise<void> {
  await page.goto(search);
  await expect(page.locator("body")).toHaveAttribute("data-ready", "true");
}

async function json(page: Page, testId: string): Promise<any> {
  return JSON.parse((await page.getByTestId(testId).textContent())!);
}

async function callSignedIn(page: Page): Promise<string> {
  await page.getByTestId("call-signed-in").click();
  await expect(page.getByTestId("handle")).toHaveText(UUID);
  return (await page.getByTestId("handle").textContent())!;
}

type Query = { path?: string; offset?: string; limit?: string; page?: string; fields?: string; search?: string };

/** Fills every field of the form (blank where not given) and runs the query; returns query-result. */
async function query(page: Page, args: Query): Promise<any> {
  for (const name of ["path", "offset", "limit", "page", "fields", "search"] as const)
    await page.getByTestId(`query-${name}`).fill(args[name] ?? "");
  // The button is disabled from the click until the answer is on the page.
  await page.getByTestId("query-run").click();
  await expect(page.getByTestId("query-run")).toBeEnabled();
  return json(page, "query-result");
}

test("S4.4 an anonymous call shows the full answer: 200 rows, no handle", async ({ page }) => {
  await open(page);
  await page.getByTestId("call-anonymous").click();
  await expect(page.getByTestId("answer-bytes")).not.toHaveText("–");
  const answer = await json(page, "answer");
  expect(answer.rows).toHaveLength(200);
  expect(answer.rows[199]).toEqual(tickets(199, 199)[0]);
  expect(Number(await page.getByTestId("answer-bytes").textContent())).toBeGreaterThan(4096);
  await expect(page.getByTestId("handle")).toHaveText("");
});

test("the warning banner belongs to the last call: an anonymous call's warning clears on a signed-in call", async ({
  page,
}) => {
  await open(page);
  await expect(page.getByTestId("warnings")).toHaveText("");
  await page.getByTestId("call-anonymous").click();
  await expect(page.getByTestId("warnings")).toContainText("to an anonymous call");
  await callSignedIn(page);
  await expect(page.getByTestId("warnings")).toHaveText("");
  // A later anonymous call shows only what that call warned: the plugin says it once per tool.
  await page.getByTestId("call-anonymous").click();
  await expect(page.getByTestId("answer-kind")).toHaveText(/full answer/);
  await expect(page.getByTestId("warnings")).toHaveText("");
});

test("the page logs no console warning or error on load, after a signed-in call and after a query", async ({
  page,
}) => {
  const logged: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "warning" || message.type() === "error") logged.push(`${message.type()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => logged.push(`pageerror: ${error.message}`));
  await open(page);
  expect(logged, "on load").toEqual([]);
  await callSignedIn(page);
  await query(page, { path: "$.rows", page: "2", limit: "5" });
  // WebMCP from inside the page: the polyfill warns if anything reads the deprecated navigator.modelContext.
  await page.evaluate(async () => (document as any).modelContext.getTools());
  expect(logged, "after a call").toEqual([]);
});

test("JSON panels hide nothing: laid out for the panel's width, no line cut off on the right nor wrapped", async ({
  page,
}) => {
  await open(page);
  await callSignedIn(page);
  await query(page, { path: "$.rows", page: "2", limit: "5", fields: "id, title" });
  for (const testId of ["preview", "answer", "query-result"]) {
    const panel = page.getByTestId(testId);
    const layout = await panel.evaluate((element) => {
      const style = getComputedStyle(element);
      const height = element.scrollHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
      return {
        overflow: element.scrollWidth - element.clientWidth,
        rows: height / parseFloat(style.lineHeight),
        lines: element.textContent!.split("\n").length,
      };
    });
    expect(layout.overflow, `${testId}: nothing past the right edge`).toBeLessThanOrEqual(0);
    expect(Math.round(layout.rows), `${testId}: each line on one row`).toBe(layout.lines);
    expect(JSON.parse((await panel.textContent())!), `${testId}: still JSON`).toBeTruthy();
  }
  await expect(page.getByTestId("preview")).toContainText(`"title": "${tickets(0, 0)[0]!.title}"`);
});

test("the page speaks to users in plain words: no spec rule numbers", async ({ page }) => {
  await open(page);
  await page.getByTestId("call-anonymous").click();
  await expect(page.getByTestId("answer-bytes")).not.toHaveText("–");
  await callSignedIn(page);
  await page.getByTestId("call-anonymous").click();
  await expect(page.getByTestId("handle")).toHaveText("");
  expect(await page.locator("body").innerText()).not.toMatch(/\bS\d+(\.\d+)?\b|SPEC/);
});

test("S5 a signed-in call shows a folded answer of at most 2 KB, its handle, lifetime and shape tree", async ({
  page,
}) => {
  await open(page);
  const handle = await callSignedIn(page);
  const answer = await json(page, "answer");
  expect(Object.keys(answer).sort()).toEqual(["handle", "preview", "shape"]);
  expect(answer.handle).toBe(handle);
  const bytes = Number(await page.getByTestId("answer-bytes").textContent());
  expect(bytes).toBe(new TextEncoder().encode(JSON.stringify(answer)).byteLength);
  expect(bytes).toBeLessThanOrEqual(2048);
  expect(answer.shape).toMatchObject({ type: "object", keys: { rows: { type: "array", length: 200 } } });
  await expect(page.getByTestId("shape")).toContainText("rows");
  await expect(page.getByTestId("shape")).toContainText("200 items");
  // The tree collapses: closing "rows" hides the item shape beneath it.
  const title = page.getByTestId("shape").getByText("title", { exact: true });
  await expect(title).toBeVisible();
  await page.getByTestId("shape").locator("summary", { hasText: "rows" }).first().click();
  await expect(title).toBeHidden();
  await expect(page.getByTestId("handle-ttl")).toHaveText(/expires in (9:5\d|10:00)/);
});

test("S7.1 page 2 with limit 20 shows T-20 to T-39", async ({ page }) => {
  await open(page);
  await callSignedIn(page);
  const result = await query(page, { path: "$.rows", page: "2", limit: "20" });
  expect(result).toEqual({ path: "$.rows", value: tickets(20, 39), total: 200, offset: 20, nextOffset: 40 });
});

test("S7.2 each path form names the same place", async ({ page }) => {
  await open(page);
  await callSignedIn(page);
  for (const path of [
    "$.rows[2].title",
    "$['rows'][2]['title']",
    '$["rows"][2]["title"]',
    "rows.2.title",
    "/rows/2/title",
  ]) {
    const { title } = tickets(2, 2)[0]!;
    expect(await query(page, { path }), path).toEqual({
      path: "$.rows[2].title",
      value: title,
      total: title.length,
      offset: 0,
    });
  }
  expect(await query(page, { path: "$.rows[-1]", fields: "id" })).toEqual({
    path: "$.rows[199]",
    value: { id: "T-199" },
    total: 1,
    offset: 0,
  });
  // "$" and an empty path both name the whole answer: its one key, 20 KB, is over the 4096-byte limit.
  for (const path of ["$", ""]) {
    const whole = await query(page, { path, limit: "1" });
    expect(whole.error.code, `path ${JSON.stringify(path)}`).toBe("RESULT_SLICE_TOO_LARGE");
    expect(whole.error.message).toContain("The slice at $ is");
  }
});

test("S14.4 S14.7 the search chip and field find text: hits with their paths, listed with the match marked", async ({
  page,
}) => {
  await open(page);
  await callSignedIn(page);
  await page.getByTestId("chip-search").click();
  await expect(page.getByTestId("query-search")).toHaveValue("printer");
  await expect(page.getByTestId("query-path")).toHaveValue("$");
  await page.getByTestId("query-run").click();
  await expect(page.getByTestId("query-run")).toBeEnabled();
  const printers = tickets(0, 199).flatMap((row, i) =>
    row.title.toLowerCase().includes("printer") ? [{ path: `$.rows[${i}].title`, text: row.title }] : [],
  );
  expect(await json(page, "query-result")).toEqual({
    path: "$",
    value: printers.slice(0, 20),
    total: printers.length,
    offset: 0,
    nextOffset: 20,
  });
  await expect(page.getByTestId("query-found").locator("li")).toHaveCount(20);
  await expect(page.getByTestId("query-found").locator("mark").first()).toHaveText("Printer");
  await expect(page.locator("#query-status")).toContainText(`20 hits of ${printers.length}`);
  // Typed into the field, paged like items; a plain query afterwards hides the list of hits again.
  const ids = Array.from({ length: 200 }, (_, i) => `T-${i}`).filter((id) => id.startsWith("T-1"));
  const second = await query(page, { path: "$.rows", search: "t-1", page: "2", limit: "5" });
  expect(second).toEqual({
    path: "$.rows",
    value: ids.slice(5, 10).map((id) => ({ path: `$.rows[${id.slice(2)}].id`, text: id })),
    total: ids.length,
    offset: 5,
    nextOffset: 10,
  });
  await query(page, { path: "$.rows", limit: "2" });
  await expect(page.getByTestId("query-found")).toBeHidden();
});

test(
  "S15.1 the reference button passes the folded rows to " +
    "count_tickets: a few bytes of arguments, 200 tickets counted",
  async ({ page }) => {
    await open(page);
    // No handle yet: the page says what to do first and calls nothing.
    await page.getByTestId("call-reference").click();
    await expect(page.getByTestId("reference-status")).toContainText("call report first");
    await expect(page.getByTestId("reference-result")).toHaveText("–");

    const handle = await callSignedIn(page);
    await page.getByTestId("call-reference").click();
    await expect(page.getByTestId("call-reference")).toBeEnabled();
    await expect(page.getByTestId("reference-status")).toContainText("carried 200 tickets");
    const args = await json(page, "reference-args");
    expect(args).toEqual({ tickets: { $result: handle, path: "$.rows" } });
    expect(new TextEncoder().encode(JSON.stringify(args)).byteLength).toBeLessThan(100);
    // The tool ran on the whole list the handle names, not on the reference object.
    expect(await json(page, "reference-result")).toEqual({ count: 200, first: "T-0", last: "T-199" });

    // A handle that names nothing: the tool does not run, the call gets result_query's code (S15.2).
    await page.getByTestId("query-handle").fill("00000000-0000-4000-8000-000000000000");
    await page.getByTestId("call-reference").click();
    await expect(page.getByTestId("call-reference")).toBeEnabled();
    await expect(page.locator("#reference-status .badge")).toHaveText("RESULT_HANDLE_NOT_FOUND");
  },
);

test("S7.6 limit 200 shows RESULT_SLICE_TOO_LARGE; page with offset shows INVALID_INPUT", async ({ page }) => {
  await open(page);
  await callSignedIn(page);
  const tooLarge = await query(page, { path: "$.rows", limit: "200" });
  expect(tooLarge.error.code).toBe("RESULT_SLICE_TOO_LARGE");
  await expect(page.locator("#query-status .badge")).toHaveText("RESULT_SLICE_TOO_LARGE");
  const both = await query(page, { path: "$.rows", offset: "5", page: "2", limit: "20" });
  expect(both.error.code).toBe("INVALID_INPUT");
  await expect(page.locator("#query-status .badge")).toHaveText("INVALID_INPUT");
});

test("S10.2 WebMCP tools called from inside the page fold and read back", async ({ page }) => {
  await open(page);
  const outcome = await page.evaluate(async () => {
    const modelContext = (document as any).modelContext;
    const tools: { name: string }[] = await modelContext.getTools();
    const byName = (name: string) => tools.find((tool) => tool.name === name);
    const folded = JSON.parse(await modelContext.executeTool(byName("report"), "{}"));
    const handle = folded.structuredContent.handle;
    const slice = JSON.parse(
      await modelContext.executeTool(
        byName("result_query"),
        JSON.stringify({ handle, path: "/rows", page: 2, limit: 20, fields: ["id"] }),
      ),
    );
    return { names: tools.map((tool) => tool.name), folded, slice };
  });
  expect(outcome.names).toEqual(expect.arrayContaining(["report", "result_query"]));
  expect(Object.keys(outcome.folded.structuredContent).sort()).toEqual(["handle", "preview", "shape"]);
  expect(outcome.folded._meta["frontmcp/result-handle"]).toMatchObject({ ttlSeconds: 600 });
  expect(outcome.slice.structuredContent).toEqual({
    path: "$.rows",
    value: tickets(20, 39).map(({ id }) => ({ id })),
    total: 200,
    offset: 20,
    nextOffset: 40,
  });
});

test("screenshot after a signed-in call and a query (docs/playground.png)", async ({ page }, testInfo) => {
  await open(page);
  await callSignedIn(page);
  await query(page, { path: "$.rows", page: "2", limit: "5", fields: "id, title" });
  const file = testInfo.outputPath("playground.png");
  await page.screenshot({ path: file, fullPage: true });
  await testInfo.attach("playground", { path: file, contentType: "image/png" });
  if (process.env.UPDATE_DOCS_SCREENSHOT) {
    mkdirSync("docs", { recursive: true });
    copyFileSync(file, "docs/playground.png");
  }
});

test("S9.1 IndexedDB store: after a reload within the TTL the earlier handle still reads back", async ({ page }) => {
  await open(page);
  await page.getByTestId("storage").selectOption("indexeddb"); // the switch reloads the page on the other store
  await expect(page).toHaveURL(/storage=indexeddb/);
  await expect(page.locator("body")).toHaveAttribute("data-ready", "true");
  const handle = await callSignedIn(page);
  const before = await query(page, { path: "$.rows", page: "2", limit: "20" });
  expect(before.value).toEqual(tickets(20, 39));

  await page.reload();
  await expect(page.locator("body")).toHaveAttribute("data-ready", "true");
  await page.getByTestId("query-handle").fill(handle);
  expect(await query(page, { path: "$.rows", page: "2", limit: "20" })).toEqual(before);
  await expect(page.getByTestId("warnings")).toHaveText("");

  // The contrast: the memory store of a fresh page load no longer has it.
  await open(page, "?storage=memory");
  await page.getByTestId("query-handle").fill(handle);
  expect((await query(page, { path: "$.rows", page: "2", limit: "20" })).error.code).toBe("RESULT_HANDLE_NOT_FOUND");
});
