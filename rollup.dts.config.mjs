// Bundles the declarations tsc wrote to .types/ into one file per module format. The .d.cts files are real
// CommonJS declarations (S13.3): a CommonJS consumer never reaches an ESM .d.ts. The three builds (node,
// browser, edge) declare the same API, so the browser and edge entries re-export the node entry's
// declarations instead of carrying a copy each (40 KB apiece, S13.1: the tarball stays lean).
import { writeFileSync } from "node:fs";
import { dts } from "rollup-plugin-dts";

const sameApi = ["browser", "edge"];

/** Writes `dist/<entry>/index.d.ts` and `.d.cts` re-exporting the node entry's, once it is written. */
const reexports = {
  name: "same-api-reexports",
  writeBundle() {
    for (const entry of sameApi) {
      for (const [ext, target] of [
        ["d.ts", "../node/index.js"],
        ["d.cts", "../node/index.cjs"],
      ]) {
        // Named apart: each entry defines its own plugin class and store opener, with the same declarations.
        const own = `export { ResultHandlesPlugin, createResultHandleStore, default } from "${target}";`;
        writeFileSync(
          `dist/${entry}/index.${ext}`,
          `// The ${entry} build has the node build's API (S2).\nexport * from "${target}";\n${own}\n`,
        );
      }
    }
  },
};

// The FrontMCP entry (S22.1) declares its two classes and re-exports the node entry's declarations.
const nodeEntry = /\/node\/index\.js$/;

export default [
  {
    input: ".types/runtimes/node/index.d.ts",
    output: [
      { file: "dist/node/index.d.ts", format: "es" },
      { file: "dist/node/index.d.cts", format: "es" },
    ],
    plugins: [dts(), reexports],
  },
  {
    input: ".types/frontmcp/index.d.ts",
    external: (id) => nodeEntry.test(id) || id.startsWith("@frontmcp/"),
    output: [
      { file: "dist/frontmcp/index.d.ts", format: "es", paths: (id) => (nodeEntry.test(id) ? "../node/index.js" : id) },
      {
        file: "dist/frontmcp/index.d.cts",
        format: "es",
        paths: (id) => (nodeEntry.test(id) ? "../node/index.cjs" : id),
      },
    ],
    plugins: [dts()],
  },
];
