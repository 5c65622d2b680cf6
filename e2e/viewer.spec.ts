// S19.5: the result viewer end to end, in Chromium: a test MCP Apps host (ext-apps AppBridge, the viewer
// in a sandboxed iframe) over the real demo server on HTTP, called with alice's token.
import { copyFileSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { expect, test, type FrameLocator, type Page } from "@playwright/test";
import { build } from "vite";
import { z } from "zod";
import { startDemoServer, type DemoServer } from "../playground/server/demo-server.js";
import { serveHost } from "./viewer-host/server.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const pageDir = `${root}test-results/viewer-host`;
// The page as the package ships it: dist/viewer/viewer-html.js exports it as a string.
const viewerHtml = JSON.parse(
  /^export default (.*);\s*$/s.exec(readFileSync(`${root}dist/viewer/viewer-html.js`, "utf8"))![1]!,
) as string;
const quiet = { warn: () => {}, info: () => {} };
const HOSTILE =
  `<img src=x ` + `onerror="parent.postMessage('pwned','*')"></script><script>parent.postMessage('pwned','*')</script>`;

let demo: DemoServer;
let host: { url: string; close(): Promise<void> };

test.beforeAll(async () => {
  test.setTimeout(120_000);
  await build({
    configFile: false,
    root: `${root}e2e/viewer-host`,
    base: "./",
    logLevel: "warn",
    resolve: { conditions: ["browser", "module", "import", "default"] },
    build: {
      outDir: pageDir,
      emptyOutDir: true,
      target: "es2022",
      minify: false,
      rolldownOptions: { tsconfig: false },
    },
  });
  demo = await startDemoServer({
    port: 0,
    logger: quiet,
    viewer: true,
    extraTools: {
      folded: ["hostile", "big", "numbers"],
      register(server) {
        // A list that is no table: 3000 numbers, shown as a tree read 200 children at a time.
        server.registerTool("numbers", { description: "3000 numbers" }, async () => ({
          content: [{ type: "text", text: JSON.stringify(Array.from({ length: 3000 }, (_, i) => i * 7)) }],
        }));
        // About 10 MB: 100,000 tickets.
        server.registerTool("big", { description: "100,000 tickets" }, async () => {
          const rows = Array.from({ length: 100_000 }, (_, i) => ({
            id: `T-${i}`,
            title: `Ticket ${i} about a printer`,
            owner: `user${i % 97}`,
            note: "n".repeat(30),
          }));
          return { content: [{ type: "text", text: JSON.stringify({ rows }) }], structuredContent: { rows } };
        });
        // Strings that would run if the viewer wrote them as HTML: a folded list of them, and a small whole answer.
        server.registerTool(
          "hostile",
          { description: "Answers that hold markup", inputSchema: z.object({ n: z.number().optional() }) },
          async ({ n = 120 }) => {
            const rows = Array.from({ length: n }, (_, i) => ({ id: i, title: `${HOSTILE} ${i}`, [HOSTILE]: i }));
            return { content: [{ type: "text", text: JSON.stringify({ rows }) }], structuredContent: { rows } };
          },
        );
      },
    },
  });
  host = await serveHost(pageDir, viewerHtml, demo.url);
});

test.afterAll(async () => {
  await host?.close();
  await demo?.close();
});

async function openHost(page: Page): Promise<void> {
  await page.goto(`${host.url}?token=demo-alice`);
  await expect(page.locator("body")).toHaveAttribute("data-ready", "true");
}

const viewer = (page: Page): FrameLocator => page.frameLocator("[data-testid=viewer-frame]");

/** Calls a tool on the host's connection (alice) or as another user, and hands the result to a new viewer. */
async function callAndShow(
  page: Page,
  tool: string,
  args: Record<string, unknown> = {},
  token?: string,
  theme = "light",
): Promise<number> {
  return page.evaluate(
    async ({ tool, args, token, theme }) => {
      const testHost = (window as any).testHost;
      const result = await testHost.callTool(tool, args, token);
      const start = performance.now();
      await testHost.show(tool, result, theme);
      return start;
    },
    { tool, args, token, theme },
  );
}

const since = (page: Page, at: number) => page.evaluate((at) => performance.now() - at, at);

test("S19.5 a folded report shows its first rows at once and row 200 after paging; timings printed", async ({
  page,
}, testInfo) => {
  await openHost(page);
  const start = await callAndShow(page, "report");
  const view = viewer(page);
  await expect(view.getByTestId("kind")).toHaveText("Folded answer");
  await expect(view.locator("[data-testid=row][data-index='0']")).toContainText("T-0");
  const now = await page.evaluate(() => performance.now());
  const firstRows = now - (await page.evaluate(() => (window as any).testHost.timings.resultSent));
  const opened = now - start;
  await expect(view.getByTestId("table-status")).toContainText("200 rows");
  // Only the rows in view are in the DOM (virtualised), not all 200.
  expect(await view.getByTestId("row").count()).toBeLessThan(60);
  const paging = await page.evaluate(() => performance.now());
  await view.getByTestId("table-last").click();
  await expect(view.locator("[data-testid=row][data-index='199']")).toContainText("T-199");
  const row200 = (await page.evaluate(() => performance.now())) - paging;
  await expect(view.getByTestId("selected-path")).toHaveText("$.rows[199]");
  console.log(
    `viewer: first rows ${firstRows.toFixed(0)} ms after the host handed the result to the view ` +
      `(${opened.toFixed(0)} ms with reading the ui:// resource and starting the frame); ` +
      `row 200 ${row200.toFixed(0)} ms after "Last row" (shared CPU, noisy)`,
  );
  // The screenshot shows a search and its hits beside the table.
  await view.getByTestId("search-input").fill("printer");
  await view.getByTestId("search-input").press("Enter");
  await expect(view.getByTestId("found-status")).toHaveText(/^57 hits/); // the demo's printer tickets (S18.7)
  await view.getByTestId("found-path").nth(3).click();
  await expect(view.getByTestId("selected-path")).toHaveText("$.rows[11].title");
  await page.mouse.move(0, 0);
  // The screenshot is an artifact; UPDATE_DOCS_SCREENSHOT=1 also writes docs/viewer.png (as the playground's does).
  const file = testInfo.outputPath("viewer.png");
  await page.locator("[data-testid=viewer-frame]").screenshot({ path: file });
  await testInfo.attach("viewer", { path: file, contentType: "image/png" });
  if (process.env.UPDATE_DOCS_SCREENSHOT) copyFileSync(file, `${root}docs/viewer.png`);
});

test("S19.5 a filter and a search show their nodes and hits, linked to their rows", async ({ page }) => {
  await openHost(page);
  await callAndShow(page, "report");
  const view = viewer(page);
  await expect(view.locator("[data-testid=row][data-index='0']")).toContainText("T-0");
  await view.getByTestId("filter-input").fill("$.rows[?@.id == 'T-150']");
  await view.getByTestId("filter-input").press("Enter");
  await expect(view.getByTestId("found-status")).toHaveText(/^1 node/);
  await expect(view.getByTestId("found-path")).toHaveText(["$.rows[150]"]);
  await view.getByTestId("found-path").first().click();
  await expect(view.locator("[data-testid=row][data-index='150'][aria-selected=true]")).toContainText("T-150");
  await view.getByTestId("search-input").fill("T-19");
  await view.getByTestId("search-input").press("Enter");
  // T-19 and T-190 … T-199: eleven ids.
  await expect(view.getByTestId("found-status")).toHaveText(/^11 hits/);
  await expect(view.getByTestId("found-path").first()).toHaveText("$.rows[19].id");
  await view.getByTestId("found-path").last().click();
  await expect(view.getByTestId("selected-path")).toHaveText("$.rows[199].id");
  await expect(view.locator("[data-testid=row][data-index='199'][aria-selected=true]")).toBeVisible();
});

test("S24.1 Count by shows the filter's nodes as groups (count, figures) whose examples link to their rows", async ({
  page,
}) => {
  await openHost(page);
  await callAndShow(page, "report");
  const view = viewer(page);
  await expect(view.locator("[data-testid=row][data-index='0']")).toContainText("T-0");
  await view.getByTestId("filter-input").fill("$.rows[?@.status == 'open' && @.priority == 1]");
  await view.getByTestId("count-by-input").fill("owner");
  await view.getByTestId("count-by-input").press("Enter");
  // The demo's report (S18.7): ana and dana have 4 open priority-1 tickets each, ben and chen 3 (docs/finding.md).
  await expect(view.getByTestId("found-status")).toHaveText(/^4 groups of 14 nodes/);
  await expect(view.getByTestId("group")).toHaveCount(4);
  await expect(view.getByTestId("group").first()).toContainText("ana4");
  await view.getByTestId("group").first().getByTestId("group-example").nth(1).click();
  await expect(view.getByTestId("selected-path")).toHaveText("$.rows[60]");
  await expect(view.locator("[data-testid=row][data-index='60'][aria-selected=true]")).toContainText("ana");
  // With the filter box empty, the table in view is grouped; a figure adds its columns.
  await view.getByTestId("filter-input").fill("");
  await view.getByTestId("count-by-input").fill("status");
  await view.getByTestId("figure-input").fill("priority");
  await view.getByTestId("figure-input").press("Enter");
  await expect(view.getByTestId("found-status")).toHaveText(/^3 groups of 200 nodes of \$\.rows\[\*\]/);
  await expect(view.getByTestId("group").first()).toContainText("closed67");
  await expect(view.getByTestId("groups").locator("th")).toHaveText([
    "status",
    "count",
    "sum of priority",
    "min of priority",
    "max of priority",
    "avg of priority",
    "examples",
  ]);
});

test("S19.5 Tell the model reaches the host with the path and the handle", async ({ page }) => {
  await openHost(page);
  await callAndShow(page, "report");
  const view = viewer(page);
  const handle = (await view.getByTestId("view-handle").textContent())!;
  await view.locator("[data-testid=row][data-index='3']").click();
  // Copy path: the clipboard where the sandbox allows it, else the path left selected for Ctrl+C.
  await view.getByTestId("copy-path").click();
  await expect(view.getByTestId("told")).toHaveText(/^(Path copied|Press Ctrl\+C to copy the selected path)$/);
  await view.getByTestId("tell-model").click();
  await expect(view.getByTestId("told")).toHaveText("Sent to the conversation");
  const messages = await page.evaluate(() => (window as any).testHost.messages);
  expect(messages).toHaveLength(1);
  expect(messages[0].role).toBe("user");
  expect(messages[0].content[0].text).toContain("$.rows[3]");
  expect(messages[0].content[0].text).toContain(handle);
});

test("S19.5 bob's handle given to alice's view shows RESULT_HANDLE_NOT_FOUND", async ({ page }) => {
  await openHost(page);
  await callAndShow(page, "report", {}, "demo-bob");
  const view = viewer(page);
  await expect(view.getByTestId("error")).toContainText("RESULT_HANDLE_NOT_FOUND");
  // What the preview held is shown; nothing of bob's answer beyond it was read.
  await expect(view.locator("[data-testid=row][data-index='150']")).toHaveCount(0);
});

test("S19.5 an answer holding <img onerror> and </script> renders as text and runs nothing", async ({ page }) => {
  const requests: string[] = [];
  page.on("request", (request) => requests.push(request.url()));
  await openHost(page);
  await callAndShow(page, "hostile");
  const view = viewer(page);
  await expect(view.locator("[data-testid=row][data-index='0']")).toContainText(`${HOSTILE} 0`);
  await view.getByTestId("table-last").click();
  await expect(view.locator("[data-testid=row][data-index='119']")).toContainText(`${HOSTILE} 119`);
  await view.getByTestId("search-input").fill("onerror");
  await view.getByTestId("search-input").press("Enter");
  await expect(view.getByTestId("found-status")).toHaveText(/hits/);
  // A small answer that did not fold goes through the viewer's other path (the result itself).
  await callAndShow(page, "hostile", { n: 2 });
  await expect(viewer(page).getByTestId("kind")).toHaveText("Whole answer");
  await expect(viewer(page).locator("[data-testid=row][data-index='1']")).toContainText(`${HOSTILE} 1`);
  await page.waitForTimeout(300);
  const frame = page.frames().find((candidate) => candidate !== page.mainFrame())!;
  expect(await frame.evaluate(() => document.querySelectorAll("img, script:not([type=module])").length)).toBe(0);
  expect(await page.evaluate(() => (window as any).testHost.stray)).toEqual([]);
  expect(
    requests.filter((url) => !url.startsWith(host.url) && !url.startsWith("data:") && url !== "about:srcdoc"),
  ).toEqual([]);
  expect(requests.filter((url) => url.endsWith("/x"))).toEqual([]);
});

test(
  "S19.5 the viewer's HTML is at most 80 KB gzip, with no server " +
    "SDK; alone in a tab it requests nothing and says why",
  async ({ page }) => {
    const gzip = gzipSync(viewerHtml, { level: 9 }).byteLength;
    console.log(`viewer: ${viewerHtml.length} bytes of HTML, ${gzip} bytes gzip (${(gzip / 1024).toFixed(1)} KiB)`);
    expect(gzip).toBeLessThanOrEqual(80 * 1024);
    // The server SDK's own classes are not in it (the view side of ext-apps brings the client's Protocol and zod).
    for (const name of ["McpServer", "createMcpHandler", "StreamableHTTPServerTransport"])
      expect(viewerHtml.includes(name), name).toBe(false);
    const requests: string[] = [];
    const errors: string[] = [];
    page.on("request", (request) => requests.push(request.url()));
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("console", (message) => message.type() === "error" && errors.push(message.text()));
    await page.goto(`${host.url}viewer.html`);
    await expect(page.getByTestId("standalone")).toHaveText(/shows tool answers inside an MCP Apps host/);
    await page.waitForTimeout(300);
    expect(requests).toEqual([`${host.url}viewer.html`]);
    expect(errors).toEqual([]);
  },
);

test("S19.3 a 10 MB answer: only the visible rows in the DOM, the keyboard pages to its last row", async ({ page }) => {
  test.setTimeout(60_000);
  await openHost(page);
  const start = await callAndShow(page, "big");
  const view = viewer(page);
  await expect(view.locator("[data-testid=row][data-index='0']")).toContainText("T-0");
  const firstRows = await since(page, start);
  await expect(view.getByTestId("summary")).toContainText(/1[01],\d{3},\d{3} bytes kept on the server/);
  await expect(view.getByTestId("table-status")).toContainText("100,000 rows");
  await view.locator("[data-testid=row][data-index='0']").click();
  const end = await page.evaluate(() => performance.now());
  await view.getByTestId("table").press("End");
  await expect(view.locator("[data-testid=row][data-index='99999'][aria-selected=true]")).toContainText("T-99999");
  const lastRow = await since(page, end);
  await view.getByTestId("table").press("ArrowUp");
  await expect(view.getByTestId("selected-path")).toHaveText("$.rows[99998]");
  expect(await view.getByTestId("row").count()).toBeLessThan(60);
  // Sorting orders the rows loaded so far (the first and the last pages here), descending on a second click.
  await view.getByRole("columnheader", { name: "id" }).click();
  await view.getByRole("columnheader", { name: "id" }).click();
  await expect(view.getByTestId("table-status")).toContainText("sorted by id within the 200 loaded");
  await view.getByTestId("table").evaluate((table) => (table.scrollTop = 0));
  await expect(view.getByTestId("row").first()).toHaveAttribute("data-index", "99999");
  console.log(
    `viewer, 10 MB answer: first rows ${firstRows.toFixed(0)} ms after the result reached the host ` +
      `(with the frame's start); the last of 100,000 rows ${lastRow.toFixed(0)} ms after End`,
  );
});

test("S19.3 other JSON as a tree, a long string as numbered lines, and the host's dark theme", async ({ page }) => {
  await openHost(page);
  await callAndShow(page, "report", {}, undefined, "dark");
  const view = viewer(page);
  await expect(view.locator("[data-testid=row][data-index='0']")).toContainText("T-0");
  const background = await view.locator("body").evaluate((body) => getComputedStyle(body).backgroundColor);
  const [r, g, b] = background.match(/\d+/g)!.map(Number);
  expect(r! + g! + b!, background).toBeLessThan(3 * 80);
  // The crumb "$" opens the whole answer as a tree; its list of objects opens as a table again.
  await view.getByRole("button", { name: "$", exact: true }).click();
  await expect(view.getByTestId("tree")).toContainText("[200 items]");
  await view.getByTestId("tree").getByRole("button", { name: "table" }).click();
  await expect(view.locator("[data-testid=row][data-index='0']")).toContainText("T-0");
  // A list of numbers is a tree: 200 children, then the next 200 read from the server when asked for.
  await callAndShow(page, "numbers");
  const numbers = viewer(page).getByTestId("tree");
  await expect(numbers.locator("li[data-path='$[199]']")).toContainText("1393");
  await expect(numbers.getByTestId("tree-more")).toHaveText("2800 more…");
  await numbers.getByTestId("tree-more").click();
  await expect(numbers.locator("li[data-path='$[399]']")).toContainText("2793");
  await expect(numbers.getByTestId("tree-more")).toHaveText("2600 more…");
  // server_log: a string of 2000 lines, read page by page as numbered lines.
  await callAndShow(page, "server_log");
  await expect(viewer(page).getByTestId("lines")).toBeVisible();
  await expect(viewer(page).getByTestId("line").first()).toContainText(/^1\S/);
  await viewer(page).getByTestId("search-input").fill("WARN");
  await viewer(page).getByTestId("search-input").press("Enter");
  await expect(viewer(page).getByTestId("found-status")).toHaveText(/^[1-9][\d,]* hits?/);
  await expect(viewer(page).getByTestId("found-path").first()).toHaveText(/^\$ line \d+$/);
  const hit = (await viewer(page).getByTestId("found-path").first().textContent())!;
  await viewer(page).getByTestId("found-path").first().click();
  await expect(viewer(page).getByTestId("selected-path")).toHaveText(hit);
  await expect(viewer(page).locator("[data-testid=line][aria-selected=true]")).toContainText("WARN");
  // "Tell the model" names the line by its characters: the call it suggests reads exactly that line back.
  await viewer(page).getByTestId("tell-model").click();
  await expect(viewer(page).getByTestId("told")).toHaveText("Sent to the conversation");
  const told: string = await page.evaluate(() => (window as any).testHost.messages.at(-1).content[0].text);
  expect(told).toContain(`Look at ${hit.replace("$ ", "")} of $`);
  const args = JSON.parse(told.slice(told.indexOf("result_query ") + "result_query ".length));
  const line = await page.evaluate((args) => (window as any).testHost.callTool("result_query", args), args);
  const selected = (await viewer(page).locator("[data-testid=line][aria-selected=true] span").last().textContent())!;
  expect(line.structuredContent.value).toBe(selected);
});

test("S19.4 the playground's folded-answer panel is the same viewer, reading on the caller's connection", async ({
  page,
}) => {
  await page.goto("/");
  await expect(page.locator("body")).toHaveAttribute("data-ready", "true");
  await page.getByTestId("call-signed-in").click();
  const handle = (await page.getByTestId("handle").textContent())!;
  const view = page.frameLocator("[data-testid=viewer]");
  await expect(view.getByTestId("kind")).toHaveText("Folded answer");
  await expect(view.getByTestId("view-handle")).toHaveText(handle);
  await expect(view.locator("[data-testid=row][data-index='0']")).toContainText("T-0");
  await view.getByTestId("table-last").click();
  await expect(view.locator("[data-testid=row][data-index='199']")).toContainText("T-199");
  await view.getByTestId("tell-model").click();
  await expect(page.getByTestId("viewer-told")).toContainText(`$.rows[199] in the folded answer ${handle}`);
  // An anonymous call is sent whole: the viewer shows it from the result itself.
  await page.getByTestId("call-anonymous").click();
  await expect(view.getByTestId("kind")).toHaveText("Whole answer");
  await expect(view.locator("[data-testid=row][data-index='0']")).toContainText("T-0");
});
