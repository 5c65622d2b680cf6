// docs/design.md holds every rule the code cites: a reader who meets "(S8.5)" in a comment, a test name or
// the README finds it defined there (bold identifier, **S8.5**), once. Fails when code cites a rule the
// document does not define.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const design = readFileSync(join(root, "docs/design.md"), "utf8");
/** What the repository writes and cites rules in; generated output and installed packages are not read. */
const CITING = [
  "src",
  "test",
  "bench",
  "playground",
  "e2e",
  "examples",
  "scripts",
  "README.md",
  "docs/.vitepress/config.ts",
  "docs/.vitepress/theme",
];
/** The site's own pages cite rules too (docs/api/ is TypeDoc's output, from the comments already read in src). */
const PAGES = readdirSync(join(root, "docs"))
  .filter((name) => name.endsWith(".md") && name !== "design.md")
  .map((name) => join("docs", name));
const TEXT = new Set([".ts", ".mts", ".cts", ".js", ".mjs", ".cjs", ".md", ".html", ".json", ".sh", ".vue", ".css"]);
const RULE = /\bS(\d+)\.(\d+)\b/g;

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return TEXT.has(extname(path)) ? [path] : [];
  return readdirSync(path).flatMap((name) => (name === "node_modules" ? [] : filesUnder(join(path, name))));
}

const ruleIds = (text: string) => [...text.matchAll(RULE)].map((match) => match[0]);
const byNumber = (a: string, b: string) => a.localeCompare(b, "en", { numeric: true });

describe("docs/design.md defines every rule the repository cites", () => {
  const defined = [...design.matchAll(/\*\*(S\d+\.\d+)\*\*/g)].map((match) => match[1]!);

  it("every rule is defined once", () => {
    expect(defined.length).toBeGreaterThan(50);
    expect(defined.filter((id, at) => defined.indexOf(id) !== at)).toEqual([]);
  });

  it(
    "every S<section>.<rule> cited in src, test, bench, playground, e2e, " +
      "examples, scripts, the README and the site's pages is defined",
    () => {
      const undefinedCitations: string[] = [];
      let cited = 0;
      for (const file of [...CITING, ...PAGES].flatMap((path) => filesUnder(join(root, path)))) {
        for (const id of new Set(ruleIds(readFileSync(file, "utf8")))) {
          cited++;
          if (!defined.includes(id)) undefinedCitations.push(`${id} in ${file.slice(root.length + 1)}`);
        }
      }
      expect(cited).toBeGreaterThan(100); // the scan reads the tree, not an empty folder
      expect(undefinedCitations.sort(byNumber)).toEqual([]);
    },
  );

  it("every rule the document cites in its own text is one it defines", () => {
    expect([...new Set(ruleIds(design))].filter((id) => !defined.includes(id)).sort(byNumber)).toEqual([]);
  });

  it("the README links it near the top", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    expect(readme.slice(0, 2000)).toContain("(docs/design.md)");
  });
});
