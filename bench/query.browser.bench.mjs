// `node bench/query.browser.bench.mjs` (after `npm run build`): bench/query.bench.mjs's loop in Chromium,
// on the page build (dist/browser). No server: Playwright answers the page's requests from disk.
import { readFile } from "node:fs/promises";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright";

const root = fileURLToPath(new URL("..", import.meta.url));
const origin = "http://127.0.0.1:9"; // never contacted: every request is fulfilled below
const args = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
];

const page$ = `<!doctype html><script type="importmap">{"imports":{"zod":"/node_modules/zod/index.js"}}</script><body>bench</body>`;

async function main() {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args });
  try {
    const page = await browser.newPage();
    await page.route(`${origin}/**`, async (route) => {
      const path = new URL(route.request().url()).pathname;
      if (path === "/") return route.fulfill({ contentType: "text/html", body: page$ });
      const body = await readFile(join(root, path)).catch(() => undefined);
      if (!body) return route.fulfill({ status: 404, body: "" });
      return route.fulfill({ contentType: extname(path) === ".js" ? "text/javascript" : "application/octet-stream", body });
    });
    page.on("console", (message) => console.log(message.text()));
    await page.goto(`${origin}/`);
    const only = process.argv[2];
    await page.evaluate(async (only) => {
      const { MemoryStorage, ResultHandleStore, ResultHandlesPlugin, ResultQueryTool, foldToolResult } = await import("/dist/browser/index.js");
      const owner = { session: "bench-session", caller: "bench" };
      const ticket = (i) => ({
        id: `T-${i}`,
        title: `Ticket ${i}: printer on floor ${i % 12} jams on duplex`,
        status: ["open", "pending", "closed"][i % 3],
        priority: i % 5,
        assignee: { id: i % 97, name: `Agent ${i % 97}` },
        tags: ["hardware", "printer", i % 2 ? "urgent" : "routine"],
        createdAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
      });
      const answerOf = (bytes) => {
        const rows = [];
        for (let size = 12, i = 0; size < bytes; i++) {
          const row = ticket(i);
          rows.push(row);
          size += JSON.stringify(row).length + 1;
        }
        return { rows, total: rows.length };
      };
      const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
      const time = async (fn) => {
        const start = performance.now();
        await fn();
        return performance.now() - start;
      };
      console.log(`Chromium ${navigator.userAgent.match(/Chrome\/(\S+)/)?.[1]}; ms, medians (timer resolution 0.1 ms); store: memory`);
      for (const [label, bytes, rounds] of [
        ["100 KB", 100_000, 41],
        ["1 MB", 1_000_000, 21],
        ["10 MB", 10_000_000, 11],
      ]) {
        if (only && only !== label) continue;
        const value = answerOf(bytes);
        const json = JSON.stringify(value);
        const plugin = ResultHandlesPlugin.init({ storage: { type: "memory", memory: { maxEntries: 0, maxBytes: 64 * 1024 * 1024 } } });
        const tool = new ResultQueryTool(() => [plugin]);
        const query = { path: "$.rows", offset: Math.floor(value.rows.length / 2), limit: 20 };
        const t = { stringify: [], parse: [], fold: [], foldText: [], save: [], first: [], repeat: [] };
        const store = new ResultHandleStore(new MemoryStorage("bench", { maxEntries: 0, maxBytes: 64 * 1024 * 1024 }), 60);
        for (let round = -2; round < rounds; round++) {
          const stringify = await time(() => JSON.stringify(value));
          const parse = await time(() => JSON.parse(json));
          let folded;
          const fold = await time(async () => {
            folded = await foldToolResult(plugin, { toolName: "tickets", result: { structuredContent: value }, owner });
          });
          const foldText = await time(() =>
            foldToolResult(plugin, { toolName: "tickets", result: { structuredContent: value, content: [{ type: "text", text: json }] }, owner }),
          );
          const save = await time(() => store.save(store.newHandle(), value, owner));
          const handle = folded.structuredContent?.handle;
          if (!handle) throw new Error("the answer did not fold");
          let answer;
          const first = await time(async () => {
            answer = await tool.query({ ...query, handle }, owner);
          });
          if (answer.value.length !== 20) throw new Error("wrong slice");
          const repeat = await time(() => tool.query({ ...query, handle }, owner));
          if (round >= 0) Object.entries({ stringify, parse, fold, foldText, save, first, repeat }).forEach(([k, v]) => t[k].push(v));
        }
        await plugin.onShutdown();
        await store.onShutdown();
        const m = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, median(v)]));
        console.log(
          `${label.padEnd(7)} stringify ${m.stringify.toFixed(1)}  parse ${m.parse.toFixed(1)}  fold ${m.fold.toFixed(1)} (${(m.fold / m.stringify).toFixed(2)}× stringify)  ` +
            `fold text+structured ${m.foldText.toFixed(1)} (${(m.foldText / m.stringify).toFixed(2)}×)  store.save ${m.save.toFixed(1)} (${(m.save / m.stringify).toFixed(2)}×)  ` +
            `first query ${m.first.toFixed(1)} (${(m.first / m.parse).toFixed(3)}× parse)  repeated ${m.repeat.toFixed(2)} (${(m.repeat / m.parse).toFixed(3)}× parse)`,
        );
      }
    }, only);
  } finally {
    await browser.close();
  }
}

await main();
