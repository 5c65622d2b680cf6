import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig, type DefaultTheme } from "vitepress";

/**
 * The docs site (S20.1). Pages are the Markdown files beside this folder; `api/` is written by TypeDoc
 * from the built declarations when the site is built (`npm run docs:api`), never by hand. The Playground
 * page mounts the in-page playground's own module (S20.2), so the package name resolves to the page
 * build in dist/browser, as on a site that installed it.
 */
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// The viewer page (S19) is written on another branch: listed once it is here, so the build has no dead link.
const hasViewer = existsSync(here("../viewer.md"));

const guide: DefaultTheme.SidebarItem[] = [
  { text: "Getting started", link: "/getting-started" },
  { text: "On FrontMCP", link: "/frontmcp" },
  { text: "What the model sees", link: "/model" },
  { text: "Finding things", link: "/finding" },
  { text: "Passing answers on", link: "/references" },
  ...(hasViewer ? [{ text: "The viewer", link: "/viewer" }] : []),
  { text: "Playground", link: "/playground" },
];
const operate: DefaultTheme.SidebarItem[] = [
  { text: "Storage", link: "/storage" },
  { text: "Runtimes", link: "/runtimes" },
  { text: "Security", link: "/security" },
  { text: "Performance", link: "/performance" },
  { text: "Troubleshooting", link: "/troubleshooting" },
];
const reference: DefaultTheme.SidebarItem[] = [
  { text: "API", link: "/api" },
  { text: "API from the types", link: "/api/" },
  { text: "Design", link: "/design" },
  { text: "Working on this package", link: "/contributing" },
];

export default defineConfig({
  title: "mcp-result-handles",
  description:
    "Large MCP tool answers stay on the server; the model gets { " +
    "preview, shape, handle } and reads slices with result_query.",
  lang: "en",
  cleanUrls: false,
  lastUpdated: false,
  // Offline: no font or search service; the built site is static files.
  head: [["link", { rel: "icon", href: "data:," }]],
  themeConfig: {
    nav: [
      { text: "Guide", link: "/getting-started" },
      { text: "Playground", link: "/playground" },
      { text: "API", link: "/api" },
      { text: "Design", link: "/design" },
    ],
    sidebar: [
      { text: "Use it", items: guide },
      { text: "Run it", items: operate },
      { text: "Reference", items: reference },
    ],
    outline: { level: [2, 3] },
    search: { provider: "local" },
  },
  vite: {
    resolve: {
      alias: [
        // The page build, by name, exactly as `exports` gives it to a bundler for the web.
        { find: /^mcp-result-handles$/, replacement: here("../../dist/browser/index.js") },
      ],
    },
    // The page build starts its batch workers from new URL("./batch-worker.js", import.meta.url):
    // pre-bundling would move the module away from that file.
    optimizeDeps: { exclude: ["mcp-result-handles"] },
    build: { target: "es2022", chunkSizeWarningLimit: 2048 },
  },
});
