// S20.4 the built docs site (docs/.vitepress/dist, from `npm run docs:build`) opened in Chromium page by page,
// served by a small static server of its own on an ephemeral loopback port: every page renders without a
// console error or page error, every internal link and image it shows resolves (the file, and the anchor
// in it), and the Playground page (S20.2) folds an answer and reads a slice of it back.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, relative } from "node:path";
import { expect, test, type Page } from "@playwright/test";

const dist = join(process.cwd(), "docs", ".vitepress", "dist");
const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".json": "application/json",
  ".woff2": "font/woff2",
};

/** What a static host serves for a URL path: the file, else `<path>.html`, else `<path>/index.html`. */
function fileFor(pathname: string): string | undefined {
  const base = normalize(join(dist, decodeURIComponent(pathname)));
  if (!base.startsWith(dist)) return undefined;
  for (const candidate of [base, `${base}.html`, join(base, "index.html")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

let server: Server;
let origin = "";
test.beforeAll(async () => {
  expect(existsSync(join(dist, "index.html")), "build the site first: npm run docs:build").toBe(true);
  server = createServer((request, response) => {
    const file = fileFor(new URL(request.url!, "http://x").pathname);
    if (!file)
      return void response.writeHead(404, { "content-type": "text/html" }).end(readFileSync(join(dist, "404.html")));
    response
      .writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" })
      .end(readFileSync(file));
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.afterAll(() => new Promise<void>((done) => server.close(() => done())));

/** Every page of the built site, as its URL path. */
function pages(dir = dist): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "assets" ? [] : pages(path);
    return name.endsWith(".html") && name !== "404.html" ? ["/" + relative(dist, path).split("\\").join("/")] : [];
  });
}

/** The ids a built page defines, for the anchors that point into it. */
const idsOf = (file: string) =>
  new Set([...readFileSync(file, "utf8").matchAll(/\sid="([^"]+)"/g)].map((match) => match[1]!));

/** Opens a page, waits until the app has hydrated, and returns the errors it logged. */
async function visit(page: Page, path: string): Promise<string[]> {
  const errors: string[] = [];
  page.on("console", (message) => void (message.type() === "error" && errors.push(`${path}: ${message.text()}`)));
  page.on("pageerror", (error) => void errors.push(`${path}: ${error.message}`));
  page.on(
    "response",
    (response) => void (response.status() >= 400 && errors.push(`${path}: ${response.status()} ${response.url()}`)),
  );
  await page.goto(origin + path, { waitUntil: "load" });
  await expect(page.locator("#app .VPContent")).toBeVisible();
  return errors;
}

test("S20.4 every page renders without an error, and every internal link and image on it resolves", async ({
  context,
}) => {
  test.setTimeout(240_000);
  const all = pages();
  // The pages S20.1 names, the Playground of S20.2 and the API page TypeDoc wrote.
  for (const name of [
    "index",
    "getting-started",
    "model",
    "finding",
    "references",
    "storage",
    "runtimes",
    "security",
    "performance",
    "api",
    "troubleshooting",
    "design",
    "playground",
    "api/index",
  ]) {
    expect(all, name).toContain(`/${name}.html`);
  }
  // TypeDoc's page names every value the package exports, each under a heading of its own.
  const api = idsOf(join(dist, "api", "index.html"));
  const exported = Object.keys(await import(join(process.cwd(), "dist", "node", "index.js"))).filter(
    (name) => name !== "default",
  );
  expect(exported.length).toBeGreaterThan(20);
  expect(exported.filter((name) => !api.has(name.toLowerCase().replaceAll("_", "-")))).toEqual([]);
  // The viewer's page (S19) comes from another branch: once it is in docs/, it is built and crawled too.
  if (existsSync(join(process.cwd(), "docs", "viewer.md"))) expect(all).toContain("/viewer.html");

  const errors: string[] = [];
  const targets = new Map<string, string>(); // link or image URL → the page that shows it
  const pictures: string[] = []; // the alt text of every picture that decoded
  const queue = [...all];
  /** One tab reads pages off the queue until it is empty; a few tabs share the crawl. */
  const crawl = async (page: Page) => {
    for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
      page.removeAllListeners();
      errors.push(...(await visit(page, path)));
      const links = await page.$$eval("a[href]", (nodes) => nodes.map((node) => (node as HTMLAnchorElement).href));
      for (const url of links) if (url.startsWith(origin) && !targets.has(url)) targets.set(url, path);
      // Small pictures are inlined as data: URLs, the others are files: either way each must decode.
      await page.waitForFunction(() => [...document.images].every((image) => image.complete));
      for (const image of await page.$$eval("img", (nodes) =>
        nodes.map((node) => ({ src: node.currentSrc, alt: node.alt, width: node.naturalWidth })),
      )) {
        if (image.width > 0) pictures.push(image.alt);
        else errors.push(`${path}: the picture "${image.alt}" (${image.src.slice(0, 80)}) does not load`);
        if (image.src.startsWith(origin)) targets.set(image.src, path);
      }
    }
    await page.close();
  };
  await Promise.all(Array.from({ length: 3 }, async () => crawl(await context.newPage())));
  expect(errors).toEqual([]);

  const broken: string[] = [];
  for (const [url, from] of targets) {
    const { pathname, hash } = new URL(url);
    const file = fileFor(pathname);
    if (!file) broken.push(`${from} → ${pathname} (no such file)`);
    else if (hash.length > 1 && file.endsWith(".html") && !idsOf(file).has(decodeURIComponent(hash.slice(1))))
      broken.push(`${from} → ${pathname}${hash} (no such anchor)`);
  }
  expect(broken).toEqual([]);
  expect(targets.size).toBeGreaterThan(50); // the crawl read links, not an empty page
  expect([...targets.keys()].filter((url) => new URL(url).hash.length > 1).length).toBeGreaterThan(20); // and anchors
  // The pictures are there and decode: the flow, the bench chart and the playground's screenshot.
  for (const alt of ["An answer of 6,990 bytes folds", "Fold and result_query cost", "The playground after"]) {
    expect(
      pictures.some((shown) => shown.startsWith(alt)),
      alt,
    ).toBe(true);
  }
});

test(
  "S20.2 the Playground page runs the in-page playground: a signed-in call folds, result_query " + "reads a slice",
  async ({ page }) => {
    const errors = await visit(page, "/playground.html");
    await expect(page.locator("body")).toHaveAttribute("data-ready", "true");
    // The whole answer first (anonymous), to know what the slice must hold.
    await page.getByTestId("call-anonymous").click();
    await expect(page.getByTestId("answer-kind")).toHaveText(/full answer/);
    const whole = JSON.parse((await page.getByTestId("answer").textContent())!) as { rows: Record<string, unknown>[] };
    await page.getByTestId("call-signed-in").click();
    await expect(page.getByTestId("answer-kind")).toHaveText(/folded from/);
    const folded = JSON.parse((await page.getByTestId("answer").textContent())!);
    expect(Object.keys(folded).sort()).toEqual(["handle", "preview", "shape"]);
    await expect(page.getByTestId("query-handle")).toHaveValue(folded.handle);
    await page.getByTestId("query-path").fill("$.rows[-1]");
    await page.getByTestId("query-run").click();
    await expect(page.getByTestId("query-run")).toBeEnabled();
    const slice = JSON.parse((await page.getByTestId("query-result").textContent())!);
    expect(slice).toMatchObject({ path: `$.rows[${whole.rows.length - 1}]`, value: whole.rows.at(-1) });
    // The playground's styles hold inside its box: the site's own layout keeps its look.
    expect(await page.evaluate(() => getComputedStyle(document.body).padding)).toBe("0px");
    expect(errors).toEqual([]);
  },
);

test("S20.2 the Playground works again after the site's own navigation leaves it and comes back", async ({ page }) => {
  const errors = await visit(page, "/playground.html");
  await expect(page.locator("body")).toHaveAttribute("data-ready", "true");
  // In-site links change pages without loading a document; the playground wires a fresh one on return.
  await page.locator(".VPSidebar").getByRole("link", { name: "Finding things" }).click();
  await expect(page).toHaveURL(/\/finding\.html$/);
  // Stay past the handle's one-second countdown: a timer of the playground's must not touch elements that left.
  await page.waitForTimeout(1_500);
  await page.locator(".VPSidebar").getByRole("link", { name: "Playground" }).click();
  await expect(page).toHaveURL(/\/playground\.html$/);
  await expect(page.locator("body")).toHaveAttribute("data-ready", "true");
  await page.getByTestId("call-signed-in").click();
  await expect(page.getByTestId("answer-kind")).toHaveText(/folded from/);
  await expect(page.getByTestId("query-handle")).not.toHaveValue("");
  expect(errors).toEqual([]);
});
