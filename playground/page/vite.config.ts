import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const root = fileURLToPath(new URL(".", import.meta.url));

/**
 * The in-page playground (S11.3). It imports `mcp-result-handles` by its own name, resolved through the
 * package's `exports` with the `browser` condition: the page runs the page build in dist/, as a site
 * that installed the package would (`npm run playground` builds it first).
 */
export default defineConfig({
  root,
  base: "./",
  resolve: { conditions: ["browser", "module", "import", "default"] },
  server: { host: "127.0.0.1", port: 5173, strictPort: true },
  preview: { host: "127.0.0.1", port: 4173, strictPort: true },
  build: {
    outDir: fileURLToPath(new URL("../../dist-playground", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    sourcemap: true,
    reportCompressedSize: true,
    // The repo tsconfig maps the package name to src/runtimes/node for tests; the page must resolve it like a user
    // would.
    rolldownOptions: { tsconfig: false },
  },
});
