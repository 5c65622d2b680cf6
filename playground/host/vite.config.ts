import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

/**
 * `npm run host` (S25.4): the MCP Apps host page on a loopback port of its own. It talks to MCP servers on
 * other loopback ports from the browser, which the demo allows (CORS for loopback origins only).
 */
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "./",
  resolve: { conditions: ["browser", "module", "import", "default"] },
  server: { host: "127.0.0.1", port: Number(process.env.HOST_PORT ?? 5174) },
  build: {
    outDir: fileURLToPath(new URL("../../dist-host", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    rolldownOptions: { tsconfig: false },
  },
});
