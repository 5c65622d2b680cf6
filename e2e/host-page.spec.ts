// S25.4 in Chromium: `npm run host`'s page, served on one loopback port, connects to the demo on another
// (the demo answers its CORS preflight), calls report through its form and shows the result viewer; the
// viewer's "Last row" brings row 199 fully into view. The preflight is answered for loopback origins only.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { build } from "vite";
import { startDemoServer, type DemoServer } from "../playground/server/demo-server.js";
import { serveHost } from "./viewer-host/server.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const pageDir = `${root}test-results/host-page`;
const viewerHtml = JSON.parse(
  /^export default (.*);\s*$/s.exec(readFileSync(`${root}dist/viewer/viewer-html.js`, "utf8"))![1]!,
) as string;

let demo: DemoServer;
let host: { url: string; close(): Promise<void> };

test.beforeAll(async () => {
  test.setTimeout(120_000);
  await build({
    configFile: `${root}playground/host/vite.config.ts`,
    logLevel: "warn",
    build: { outDir: pageDir, emptyOutDir: true, minify: false },
  });
  demo = await startDemoServer({ port: 0, logger: { warn: () => {}, info: () => {} }, viewer: true });
  // The page's own origin: another loopback port than the demo's. Its /mcp proxy is not used here.
  host = await serveHost(pageDir, viewerHtml, demo.url);
});

test.afterAll(async () => {
  await host?.close();
  await demo?.close();
});

test(
  "S25.4 the host page on another loopback port shows the viewer for the demo's report; Last row " + "shows row 199",
  async ({ page }) => {
    const requests: string[] = [];
    page.on("request", (request) => requests.push(`${request.method()} ${request.url()}`));
    await page.goto(`${host.url}?${new URLSearchParams({ url: demo.url, token: "demo-alice", tool: "report" })}`);
    await expect(page.locator("body")).toHaveAttribute("data-ready", "true");
    expect(new URL(host.url).port).not.toBe(new URL(demo.url).port);
    await page.getByTestId("host-list").click();
    await expect(page.getByTestId("host-status")).toContainText("report");
    await page.getByTestId("host-call").click();
    const view = page.frameLocator("[data-testid=viewer-frame]");
    await expect(view.getByTestId("kind")).toHaveText("Folded answer");
    await expect(view.getByTestId("table-status")).toContainText("200 rows");
    await view.getByTestId("table-last").click();
    const last = view.locator("[data-testid=row][data-index='199']");
    await expect(last).toContainText("T-199");
    await expect(view.getByTestId("selected-path")).toHaveText("$.rows[199]");
    // The host page's form stands above the frame: the frame is scrolled into the window first.
    await page.locator("[data-testid=viewer-frame]").scrollIntoViewIfNeeded();
    // Inside the scroller, not under its lower edge (IntersectionObserver counts the scroller's clip; a
    // fraction of a pixel at the edge is lost to rounding).
    await expect(last).toBeInViewport({ ratio: 0.9 });
    const [row, scroller] = await Promise.all([last.boundingBox(), view.getByTestId("table").boundingBox()]);
    expect(row!.y + row!.height).toBeLessThanOrEqual(scroller!.y + scroller!.height);
    // The same after the layout settles (the selected row's details below the table take their room).
    await page.waitForTimeout(300);
    await expect(last).toBeInViewport({ ratio: 0.9 });
    // Every MCP request went straight to the demo, cross-origin.
    expect(requests.filter((request) => request.includes("/mcp")).every((request) => request.includes(demo.url))).toBe(
      true,
    );
  },
);

test("S25.4 the demo answers preflights from loopback origins, any port, and refuses others", async ({ request }) => {
  const preflight = (origin: string) =>
    request.fetch(demo.url, {
      method: "OPTIONS",
      headers: {
        Origin: origin,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type",
      },
    });
  for (const origin of ["http://localhost:5174", "http://127.0.0.1:1", "http://[::1]:8080"]) {
    const answer = await preflight(origin);
    expect(answer.status(), origin).toBe(204);
    expect(answer.headers()["access-control-allow-origin"]).toBe(origin);
    expect(answer.headers()["access-control-allow-headers"]).toContain("authorization");
    expect(answer.headers()["access-control-allow-methods"]).toContain("POST");
  }
  for (const origin of ["http://example.com", "http://127.0.0.1.example.com:3000", "null"]) {
    const answer = await preflight(origin);
    expect(answer.status(), origin).toBe(403);
    expect(answer.headers()["access-control-allow-origin"]).toBeUndefined();
  }
});
