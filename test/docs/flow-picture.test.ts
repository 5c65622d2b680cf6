// The README's picture (docs/flow.svg) is drawn from a real run: redrawing it now gives the same bytes.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

it("docs/flow.svg shows the sizes a real fold and result_query produce today", async () => {
  const dir = mkdtempSync(join(tmpdir(), "flow-"));
  try {
    const out = join(dir, "flow.svg");
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/draw-flow.ts", out], {
      cwd: root,
    });
    const figures = JSON.parse(stdout) as Record<string, number>;
    expect(figures.answer).toBe(6990);
    expect(figures.folded).toBeLessThanOrEqual(4096 / 2); // S5.4
    expect(readFileSync(out, "utf8"), "docs/flow.svg is stale: run npm run docs:flow and commit it").toBe(
      readFileSync(join(root, "docs", "flow.svg"), "utf8"),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 30_000);
