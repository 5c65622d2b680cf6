// Bundles the declarations tsc wrote to .types/ into one file per entry and module format. The .d.cts
// files are real CommonJS declarations (S13.3): a CommonJS consumer never reaches an ESM .d.ts.
import { dts } from "rollup-plugin-dts";

const entries = ["node", "browser", "edge"];

export default entries.map((entry) => ({
  input: `.types/${entry}/index.d.ts`,
  output: [
    { file: `dist/${entry}/index.d.ts`, format: "es" },
    { file: `dist/${entry}/index.d.cts`, format: "es" },
  ],
  plugins: [dts()],
}));
