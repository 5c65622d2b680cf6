// A Cloudflare Worker bundled as Wrangler would bundle it (S17.1): one ES module with every dependency
// inside, resolved with Wrangler's conditions (workerd, worker, browser), so the package's edge build is the
// one taken. Vite's library mode does the bundling (Rolldown underneath); Wrangler uses esbuild, which
// resolves the same conditions the same way.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { build, type Rolldown } from "vite";

export const WRANGLER_CONDITIONS = ["workerd", "worker", "browser", "import", "module", "default"];

/** Bundles `source` (TypeScript) as `name` inside `dir`, resolving packages from `dir`'s node_modules. */
export async function bundleWorker(dir: string, name: string, source: string): Promise<string> {
  const entry = join(dir, name);
  writeFileSync(entry, source);
  const result = (await build({
    root: dir,
    configFile: false,
    logLevel: "silent",
    resolve: { conditions: WRANGLER_CONDITIONS },
    build: {
      write: false,
      minify: false,
      target: "es2022",
      lib: { entry, formats: ["es"], fileName: "worker" },
      rolldownOptions: { output: { codeSplitting: false } },
    },
  })) as Rolldown.RolldownOutput | Rolldown.RolldownOutput[];
  const [output] = Array.isArray(result) ? result : [result];
  return output!.output[0].code;
}
