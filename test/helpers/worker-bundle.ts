// A Cloudflare Worker bundled as Wrangler would bundle it (S17.1): one ES module, resolved with Wrangler's
// conditions (workerd, worker, browser), so the package's edge build is the one taken. Rolldown (under
// Vite) does the bundling; Wrangler uses esbuild, which resolves the same conditions the same way.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { rolldown } from "rolldown";

export const WRANGLER_CONDITIONS = ["workerd", "worker", "browser", "import", "module", "default"];

/** Bundles `source` (TypeScript) as `name` inside `dir`, resolving packages from `dir`'s node_modules. */
export async function bundleWorker(dir: string, name: string, source: string): Promise<string> {
  const input = join(dir, name);
  writeFileSync(input, source);
  const bundle = await rolldown({ input, cwd: dir, platform: "browser", resolve: { conditionNames: WRANGLER_CONDITIONS }, logLevel: "silent" });
  try {
    const { output } = await bundle.generate({ format: "esm", codeSplitting: false });
    return output[0].code;
  } finally {
    await bundle.close();
  }
}
