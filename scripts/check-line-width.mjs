#!/usr/bin/env node
// The width check beside Prettier's (npm run format:check): Prettier lays code out within 120 columns but
// leaves comments and strings as written, so this lists every line of the tracked TypeScript and JavaScript
// files (test fixtures taken from other projects aside) longer than .prettierrc.json's printWidth, and exits 1
// when there is one. Columns are counted in characters (code points), as an editor shows them. Two kinds of
// line cannot be made shorter and pass: a line that is one regular expression literal, and an import of one
// name from a long module path (Prettier keeps both whole).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const width = JSON.parse(readFileSync(".prettierrc.json", "utf8")).printWidth;
const files = execFileSync("git", ["ls-files", "-z", "--", "*.ts", "*.mts", "*.mjs", "*.js", "*.vue"], {
  encoding: "utf8",
})
  .split("\0")
  .filter((file) => file && !file.startsWith("test/fixtures/"));
const unsplittable = /^\s*(\/.+\/[dgimsuvy]*,?|import \{ [\w$]+(?: as [\w$]+)? \} from "[^"]+";)$/;
const over = [];
for (const file of files) {
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((line, index) => {
      const columns = [...line].length;
      if (columns > width && !unsplittable.test(line)) over.push(`${file}:${index + 1}: ${columns} columns`);
    });
}
for (const line of over) console.log(line);
console.log(
  over.length ? `${over.length} lines over ${width} columns` : `no line over ${width} columns (${files.length} files)`,
);
process.exit(over.length ? 1 : 0);
