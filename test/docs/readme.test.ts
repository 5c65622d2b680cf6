// S17.4 every code block of README.md runs as written, read from README.md itself (never copied here). This
// file keeps the list of blocks and where each one runs, fails on a block with no runner, and checks the
// shell blocks. The TypeScript fragments run in docs/readme-fragments.test.ts, the result_query exchanges in
// docs/readme-exchanges.test.ts, the page blocks in Chromium (docs/readme-page.test.ts), the servers in
// docs/examples.test.ts, runtimes/deno-bun.test.ts and runtimes/workers.test.ts (paths under test/).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "../helpers/packed-package.js";
import { readmeBlock, readmeBlocks } from "../helpers/readme.js";

const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

/** Where each block runs: `here` (below), or the test file (under test/) that extracts and runs it. */
const RUNNERS: Record<string, string> = {
  "Quick start#0": "here (commands checked; .ci/run runs them on a fresh machine)",
  "Quick start#1": "here (packages checked; the tarball installs in every scratch project)",
  "Quick start#2": "here (commands checked; packed-package.ts packs as npm pack does)",
  "A stdio server#0": "docs/examples.test.ts, runtimes/deno-bun.test.ts",
  "An HTTP server#0": "docs/examples.test.ts",
  "On Cloudflare Workers and other edge runtimes#0": "runtimes/workers.test.ts",
  "On Cloudflare Workers and other edge runtimes#1": "runtimes/workers.test.ts",
  "Clients: the MCP Inspector and one-shot CLIs#0": "here (checked against the HTTP example; the Inspector needs a download)",
  "Who owns a call#0": "docs/readme-fragments.test.ts",
  "What the model receives#0": "docs/readme-fragments.test.ts",
  "Options#0": "docs/readme-fragments.test.ts",
  "In web pages (WebMCP and the playground)#0": "docs/readme-page.test.ts",
  "In web pages (WebMCP and the playground)#1": "docs/readme-page.test.ts",
  "Finding things#0": "docs/readme-exchanges.test.ts",
  "Finding things#1": "docs/readme-exchanges.test.ts",
  "Finding things#2": "docs/readme-exchanges.test.ts",
  "Passing a folded answer to another tool#0": "docs/readme-fragments.test.ts",
  "Errors#0": "docs/readme-fragments.test.ts",
  "Performance#0": "here (commands checked; bench/smoke.test.ts runs the bench)",
};

describe("S17.4 every README block has a runner", () => {
  it("lists every block of README.md, and no block that is gone", () => {
    const blocks = readmeBlocks().map((block) => `${block.heading}#${block.index}`);
    expect(blocks.filter((name) => !(name in RUNNERS)), "README blocks without a runner: add one").toEqual([]);
    expect(Object.keys(RUNNERS).filter((name) => !blocks.includes(name)), "runners of blocks no longer in README.md").toEqual([]);
  });

  it("the runner files named extract their block from README.md", () => {
    for (const [name, where] of Object.entries(RUNNERS)) {
      const heading = name.slice(0, name.lastIndexOf("#"));
      for (const file of where.startsWith("here") ? [] : where.split(", ")) {
        const code = readFileSync(join(root, "test", file), "utf8");
        expect(code.includes(heading) || code.includes(JSON.stringify(heading)) || code.includes("HEADING"), `${file} runs "${heading}"`).toBe(true);
        expect(code).toMatch(/readmeBlock\(/);
      }
    }
  });
});

/** Every command line of a sh block, comments and continuations joined. */
const commands = (block: string) =>
  block
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").replace(/^#.*$/, "").trim())
    .filter(Boolean)
    .flatMap((line) => line.split("&&").map((part) => part.trim()));

describe("S17.4 the README's shell blocks name what exists", () => {
  const scripts = Object.keys(pkg.scripts);
  const known = new Set([pkg.name, ...Object.keys(pkg.peerDependencies), ...Object.keys(pkg.devDependencies)]);

  it("every npm script, file and package they name exists", () => {
    for (const heading of ["Quick start", "Performance"]) {
      for (let index = 0; index < readmeBlocks().filter((block) => block.heading === heading).length; index++) {
        for (const line of commands(readmeBlock(heading, index))) {
          const script = /^npm (?:run (\S+)|(start|test))/.exec(line);
          if (script) expect(scripts, line).toContain(script[1] ?? script[2]);
          const file = /^bash (\S+)/.exec(line);
          if (file) expect(existsSync(join(root, file[1]!)), line).toBe(true);
          const install = /^npm install (?:-D )?([^/.][^]*)$/.exec(line);
          if (install) for (const name of install[1]!.split(/\s+/)) expect(known, line).toContain(name);
        }
      }
    }
  });

  it("the clone steps: the repository's URL, npm ci before npm pack (prepack builds with the dev tools)", () => {
    const steps = commands(readmeBlock("Quick start", 2));
    expect(steps[0]).toBe(`git clone ${pkg.repository.url.replace(/^git\+/, "")}`);
    expect(steps.indexOf("npm ci")).toBeGreaterThan(-1);
    expect(steps.indexOf("npm ci")).toBeLessThan(steps.indexOf("npm pack"));
    expect(pkg.scripts.prepack).toBe("npm run build");
  });

  it("the Inspector lines: npx -y, a pinned version per Node, the HTTP example's URL, a bearer token it accepts", () => {
    const lines = commands(readmeBlock("Clients: the MCP Inspector and one-shot CLIs"));
    for (const line of lines) expect(line).toMatch(/^npx -y @modelcontextprotocol\/inspector@(0\.15\.0|2\.12\.0) /);
    const http = readmeBlock("An HTTP server");
    for (const line of lines.filter((line) => line.includes("--cli"))) {
      expect(line).toContain("http://127.0.0.1:3000/mcp");
      expect(http).toContain("process.env.PORT ?? 3000");
      expect(line).toContain("--protocol-era modern");
      const token = /--header "Authorization: Bearer (\S+)"/.exec(line)![1]!;
      expect(http).toContain(`["${token}", `);
    }
  });
});
