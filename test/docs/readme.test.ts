// S17.4, S20.4 every code block of the README and of the docs site's pages (docs/*.md) runs as written, read
// from the files themselves (never copied here). This file keeps the list of blocks and where each one runs,
// fails on a block with no runner, and checks the shell blocks. The TypeScript fragments run in
// readme-fragments.test.ts, the result_query exchanges in readme-exchanges.test.ts, the page blocks in
// Chromium (readme-page.test.ts), the servers in examples.test.ts, runtimes/deno-bun.test.ts and
// runtimes/workers.test.ts.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "../helpers/packed-package.js";
import { blocksOf, docBlock, docBlocks } from "../helpers/doc-blocks.js";

const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

/** A block's name: its file, its heading and its place under that heading. */
const nameOf = (file: string, heading: string, index: number) => `${file} › ${heading}#${index}`;

/** Where each block runs: `here` (below), or the test files that extract and run it. */
const RUNNERS: Record<string, string> = {
  "README.md › Quick start#0": "here (commands checked; .ci/run runs them on a fresh machine)",
  "README.md › Install#0": "here (packages checked; the tarball installs in every scratch project)",
  "README.md › A stdio server#0": "docs/examples.test.ts, docs/readme-fragments.test.ts, runtimes/deno-bun.test.ts",
  "docs/getting-started.md › Install#0": "here (packages checked; the tarball installs in every scratch project)",
  "docs/getting-started.md › Install#1": "here (commands checked; packed-package.ts packs as npm pack does)",
  "docs/getting-started.md › A stdio server#0": "docs/examples.test.ts",
  "docs/frontmcp.md › Install#0": "here (packages checked; the FrontMCP test project installs them with their pins)",
  "docs/frontmcp.md › The reference's example#0": "frontmcp/frontmcp.test.ts",
  "docs/getting-started.md › An HTTP server#0": "docs/examples.test.ts, docs/readme-fragments.test.ts",
  "docs/getting-started.md › Clients: the MCP Inspector and one-shot CLIs#0":
    "here (checked against the HTTP example; the Inspector needs a download)",
  "docs/getting-started.md › Who owns a call#0": "docs/readme-fragments.test.ts",
  "docs/model.md › What the model receives#0": "docs/readme-fragments.test.ts",
  "docs/model.md › Reading it back, by example#0": "docs/readme-exchanges.test.ts",
  "docs/model.md › When a call is refused#0": "docs/readme-exchanges.test.ts",
  "docs/finding.md › Finding things#0": "docs/readme-exchanges.test.ts",
  "docs/finding.md › What a search answers#0": "docs/readme-exchanges.test.ts",
  "docs/finding.md › Counting without reading: aggregates#0": "docs/readme-exchanges.test.ts",
  "docs/references.md › Passing a folded answer to another tool#0": "docs/readme-fragments.test.ts",
  "docs/runtimes.md › On Cloudflare Workers and other edge runtimes#0":
    "runtimes/workers.test.ts, docs/readme-fragments.test.ts",
  "docs/runtimes.md › On Cloudflare Workers and other edge runtimes#1": "runtimes/workers.test.ts",
  "docs/runtimes.md › In web pages (WebMCP and the playground)#0":
    "docs/readme-page.test.ts, docs/readme-fragments.test.ts",
  "docs/runtimes.md › In web pages (WebMCP and the playground)#1":
    "docs/readme-page.test.ts, docs/readme-fragments.test.ts",
  "docs/api.md › Options#0": "docs/readme-fragments.test.ts",
  "docs/api.md › Errors#0": "docs/readme-fragments.test.ts",
  "docs/viewer.md › Turning it on#0": "docs/viewer-page.test.ts",
  "docs/viewer.md › Turning it on#1": "docs/viewer-page.test.ts",
  "docs/viewer.md › Try it on this machine#0":
    "here (commands checked; e2e/host-page.spec.ts runs the page against the demo)",
  "docs/performance.md › Performance#0": "here (commands checked; bench/smoke.test.ts runs the bench)",
  "docs/design.md › The two flows#0": "here (a drawing, no language: nothing to run)",
  "docs/design.md › The folders#0": "here (a drawing, no language: nothing to run)",
};

describe("S17.4, S20.4 every block of the README and the docs pages has a runner", () => {
  it("lists every block, and no block that is gone", () => {
    const blocks = docBlocks().map((block) => nameOf(block.file, block.heading, block.index));
    expect(
      blocks.filter((name) => !(name in RUNNERS)),
      "blocks without a runner: add one",
    ).toEqual([]);
    expect(
      Object.keys(RUNNERS).filter((name) => !blocks.includes(name)),
      "runners of blocks no longer there",
    ).toEqual([]);
  });

  it("the runner files named extract their block from its file", () => {
    for (const [name, where] of Object.entries(RUNNERS)) {
      const [file, rest] = name.split(" › ") as [string, string];
      const heading = rest.slice(0, rest.lastIndexOf("#"));
      for (const test of where.startsWith("here") ? [] : where.split(", ")) {
        const code = readFileSync(join(root, "test", test), "utf8");
        expect(code.includes(JSON.stringify(heading)) || code.includes("HEADING"), `${test} runs "${heading}"`).toBe(
          true,
        );
        expect(code.includes(JSON.stringify(file)) || code.includes("PAGE"), `${test} reads ${file}`).toBe(true);
        expect(code).toMatch(/docBlock\(|blocksOf\(/);
      }
    }
  });

  it("the drawings are the only blocks without a language", () => {
    const bare = docBlocks()
      .filter((block) => block.lang === "")
      .map((block) => nameOf(block.file, block.heading, block.index));
    expect(bare).toEqual(Object.keys(RUNNERS).filter((name) => RUNNERS[name]!.includes("a drawing")));
  });
});

/** Every command line of a sh block, comments and continuations joined. */
const commands = (block: string) =>
  block
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .map((line) =>
      line
        .replace(/\s+#.*$/, "")
        .replace(/^#.*$/, "")
        .trim(),
    )
    .filter(Boolean)
    .flatMap((line) => line.split("&&").map((part) => part.trim()));

describe("S17.4 the shell blocks name what exists", () => {
  const scripts = Object.keys(pkg.scripts);
  const known = new Set([pkg.name, ...Object.keys(pkg.peerDependencies), ...Object.keys(pkg.devDependencies)]);

  it("every npm script, file and package they name exists", () => {
    const shell = docBlocks().filter((block) => block.lang === "sh");
    expect(shell.length).toBeGreaterThanOrEqual(5);
    for (const block of shell) {
      for (const line of commands(block.code)) {
        const script = /^npm (?:run (\S+)|(start|test))/.exec(line);
        if (script) expect(scripts, `${block.file}: ${line}`).toContain(script[1] ?? script[2]);
        const file = /^bash (\S+)/.exec(line);
        if (file) expect(existsSync(join(root, file[1]!)), `${block.file}: ${line}`).toBe(true);
        const install = /^npm install (?:-D )?([^/.][^]*)$/.exec(line);
        if (install)
          for (const name of install[1]!.split(/\s+/)) expect(known, `${block.file}: ${line}`).toContain(name);
      }
    }
  });

  it(
    "the README's first two commands start the demo and set up and run " +
      "the tests; it says the first keeps running (S20.3)",
    () => {
      const steps = commands(docBlock("README.md", "Quick start"));
      expect(steps.slice(0, 2)).toEqual(["npm install", "npm start"]);
      expect(steps.slice(2)).toEqual(["bash scripts/install-system-deps.sh", "npm install", "npm test"]);
      const readme = readFileSync(join(root, "README.md"), "utf8");
      expect(readme.slice(readme.indexOf("## Quick start"))).toMatch(
        /`npm start` keeps running until you stop it with Ctrl-C/,
      );
    },
  );

  it("the clone steps: the repository's URL, npm ci before npm pack (prepack builds with the dev tools)", () => {
    const steps = commands(docBlock("docs/getting-started.md", "Install", 1));
    expect(steps[0]).toBe(`git clone ${pkg.repository.url.replace(/^git\+/, "")}`);
    expect(steps.indexOf("npm ci")).toBeGreaterThan(-1);
    expect(steps.indexOf("npm ci")).toBeLessThan(steps.indexOf("npm pack"));
    expect(pkg.scripts.prepack).toBe("npm run build");
  });

  it(
    "the Inspector lines: npx -y, a pinned version per Node, the HTTP example's URL, a bearer token " + "it accepts",
    () => {
      const page = "docs/getting-started.md";
      const lines = commands(docBlock(page, "Clients: the MCP Inspector and one-shot CLIs"));
      for (const line of lines) expect(line).toMatch(/^npx -y @modelcontextprotocol\/inspector@(0\.15\.0|2\.12\.0) /);
      const http = docBlock(page, "An HTTP server");
      for (const line of lines.filter((line) => line.includes("--cli"))) {
        expect(line).toContain("http://127.0.0.1:3000/mcp");
        expect(http).toContain("process.env.PORT ?? 3000");
        expect(line).toContain("--protocol-era modern");
        const token = /--header "Authorization: Bearer (\S+)"/.exec(line)![1]!;
        expect(http).toContain(`["${token}", `);
      }
    },
  );

  it(
    "S20.3 the README fits the package page: at most 250 lines, " + "the picture, and a link to every page of the site",
    () => {
      const readme = readFileSync(join(root, "README.md"), "utf8");
      expect(readme.split("\n").length).toBeLessThanOrEqual(250);
      expect(readme).toContain("](docs/flow.svg)");
      const pages = readdirSync(join(root, "docs")).filter((name) => name.endsWith(".md") && name !== "index.md");
      expect(pages.length).toBeGreaterThanOrEqual(12);
      expect(pages.filter((name) => !readme.includes(`](docs/${name}`))).toEqual([]);
    },
  );

  it("the README's install line is Getting started's", () => {
    expect(docBlock("README.md", "Install")).toBe(docBlock("docs/getting-started.md", "Install"));
    expect(blocksOf("README.md").length).toBe(3);
  });
});
