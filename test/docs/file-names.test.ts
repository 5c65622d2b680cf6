// The pages and the code's own comments name the source files a reader should open ("the plan
// (`query/paths/plan.ts`)"): each name must be a file of src/ today. Files moved (src/node/ to
// src/runtimes/node/, records/ into format/ and read/) and pages kept naming the old places; this fails
// until a move takes its names in the pages and comments with it.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** src/'s folders: a name that starts with one of them (or with src/ and one of them) names a source file. */
const FOLDERS = readdirSync(join(root, "src")).filter((name) => statSync(join(root, "src", name)).isDirectory());
const NAMED = /(?<![\w./$-])(?:src\/)?([a-z][a-z0-9-]*(?:\/[a-z0-9.-]+)+\.(?:ts|mjs))\b/g;

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [".ts", ".md"].includes(extname(path)) ? [path] : [];
  return readdirSync(path).flatMap((name) => filesUnder(join(path, name)));
}

/** Every `folder/…/file.ts` a page or a comment of src/ names, with where it is named. */
function namedSourceFiles(): { named: string; at: string }[] {
  const pages = readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => join(root, "docs", name));
  const found: { named: string; at: string }[] = [];
  for (const file of [join(root, "README.md"), ...pages, ...filesUnder(join(root, "src"))]) {
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (file.endsWith(".ts") && /^\s*(import|export)\b.*\bfrom\b|import\(/.test(line)) return; // code, not a name
        for (const match of line.matchAll(NAMED)) {
          if (FOLDERS.includes(match[1]!.split("/")[0]!)) {
            found.push({ named: match[1]!, at: `${file.slice(root.length + 1)}:${i + 1}` });
          }
        }
      });
  }
  return found;
}

describe("the pages and comments name source files that exist", () => {
  it("every folder/file.ts named in README.md, docs/*.md and src/ is a file of src/", () => {
    const named = namedSourceFiles();
    expect(named.length).toBeGreaterThan(50); // the scan does read the names (about 200 today)
    const missing = named.filter(({ named }) => !statSync(join(root, "src", named), { throwIfNoEntry: false }));
    expect(missing.map(({ named, at }) => `${at} ${named}`)).toEqual([]);
  });
});
