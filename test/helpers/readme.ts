// The README's code blocks, read from README.md itself (S17.4): tests run what a reader copies, never a copy.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "./packed-package.js";

export interface ReadmeBlock {
  /** The nearest heading above the block, without its #s. */
  readonly heading: string;
  readonly lang: string;
  readonly code: string;
  /** Its place among the blocks under the same heading, from 0. */
  readonly index: number;
}

/** Every fenced block of README.md, in order. */
export function readmeBlocks(): ReadmeBlock[] {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const blocks: ReadmeBlock[] = [];
  let heading = "";
  const lines = readme.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const title = /^#{1,6}\s+(.*)$/.exec(line);
    if (title) heading = title[1]!.trim();
    const fence = /^```(\w*)\s*$/.exec(line);
    if (!fence) continue;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== "```"; i++) body.push(lines[i]!);
    const index = blocks.filter((block) => block.heading === heading).length;
    blocks.push({ heading, lang: fence[1]!, code: body.join("\n") + "\n", index });
  }
  return blocks;
}

/** The `index`th block under a heading (whole heading text), or a clear failure naming it. */
export function readmeBlock(heading: string, index = 0): string {
  const block = readmeBlocks().find((candidate) => candidate.heading === heading && candidate.index === index);
  if (!block) throw new Error(`README.md has no code block ${index} under the heading "${heading}"`);
  return block.code;
}
