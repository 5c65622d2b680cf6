// A TypeScript file made runnable by plain `node`, the way tsx runs it: esbuild strips the types and
// bundles the project's own files it imports, and leaves the packages to node's own resolution. Once per
// file, in-process: `tsx` starts two node processes and its loader for every run (about 1 s of CPU a run
// against 0.25 s for node on the compiled file), and the docs' fragments and the stdio fixture run a
// dozen times per test run.
import { build } from "esbuild";
import { basename, join } from "node:path";
import { root } from "./packed-package.js";

/**
 * Compiles `file` (a .ts file) to `out`: by default next to it as `<file>.mjs` (a scratch project's
 * file, whose packages are that project's); a file of this repository goes to test-results/compiled/,
 * where its packages resolve from the repository's node_modules. That path.
 */
export async function compiledTs(file: string, out = file.replace(/\.ts$/, "") + ".mjs"): Promise<string> {
  await build({ entryPoints: [file], outfile: out, bundle: true, packages: "external", format: "esm", platform: "node", target: "node20", logLevel: "silent" });
  return out;
}

/** `compiledTs` of a file of this repository (`test/fixtures/stdio-server.ts`), into test-results/compiled/. */
export const compiledFixture = (file: string): Promise<string> => compiledTs(join(root, file), join(root, "test-results", "compiled", `${process.pid}-${basename(file, ".ts")}.mjs`));
