// Gives the CommonJS entries their own declaration files (index.d.cts), as the exports map expects.
import { copyFileSync } from "node:fs";
for (const entry of ["node", "browser"]) copyFileSync(`dist/${entry}/index.d.ts`, `dist/${entry}/index.d.cts`);
