// The code blocks of the README and of the docs site's pages (docs/*.md), read from the files themselves
// (S17.4, S20.4): tests run what a reader copies, never a copy. docs/api/ is written by TypeDoc and holds
// no block of ours.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "./packed-package.js";

export interface DocBlock {
  /** The file it is in, from the repository's root: `README.md`, `docs/getting-started.md`. */
  readonly file: string;
  /** The nearest heading above the block, without its #s. */
  readonly heading: string;
  readonly lang: string;
  readonly code: string;
  /** Its place among the blocks under the same heading of the same file, from 0. */
  readonly index: number;
}

/** The README and every page of the site, as paths from the repository's root. */
export function docFiles(): string[] {
  const pages = readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort();
  return ["README.md", ...pages.map((name) => `docs/${name}`)];
}

/** A file's text, by its path from the repository's root. */
export const docText = (file: string) => readFileSync(join(root, file), "utf8");

/** Every fenced block of one file, in order. */
export function blocksOf(file: string): DocBlock[] {
  const blocks: DocBlock[] = [];
  let heading = "";
  const lines = docText(file).split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const title = /^#{1,6}\s+(.*)$/.exec(line);
    if (title) heading = title[1]!.trim();
    const fence = /^```(\w*)\s*$/.exec(line);
    if (!fence) continue;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== "```"; i++) body.push(lines[i]!);
    const index = blocks.filter((block) => block.heading === heading).length;
    blocks.push({ file, heading, lang: fence[1]!, code: body.join("\n") + "\n", index });
  }
  return blocks;
}

/** Every fenced block of the README and the pages. */
export const docBlocks = (): DocBlock[] => docFiles().flatMap(blocksOf);

/** The `index`th block under a heading (whole heading text) of a file, or a clear failure naming it. */
export function docBlock(file: string, heading: string, index = 0): string {
  const block = blocksOf(file).find((candidate) => candidate.heading === heading && candidate.index === index);
  if (!block) throw new Error(`${file} has no code block ${index} under the heading "${heading}"`);
  return block.code;
}
