/**
 * S22.7: the cost of folding through FrontMCP against FrontMCP's own unfolded answer of the same call, in
 * one run: `npm run build && node --import tsx bench/frontmcp.ts` (BENCH_MB, default 2; BENCH_ROUNDS,
 * default 15). It installs the FrontMCP test project (test/helpers/frontmcp-project.ts) and runs its
 * src/bench.ts in a process of its own: create() in-process, the plugin's server and a server without it
 * alternated, medians compared. Goal: at most 1.3×.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { frontMcpProject } from "../test/helpers/frontmcp-project.js";
import { cleanEnv } from "../test/helpers/packed-package.js";

const project = await frontMcpProject();
const { stdout } = await promisify(execFile)(process.execPath, [join(project, "out", "bench.js")], {
  cwd: project,
  env: { ...cleanEnv, ...pick("BENCH_MB", "BENCH_ROUNDS") },
  maxBuffer: 16 << 20,
});
const outcome = JSON.parse(stdout.trim().split("\n").at(-1)!) as {
  bytes: number;
  rounds: number;
  folded: boolean;
  plainMs: number;
  foldMs: number;
  ratio: number;
};
if (!outcome.folded) throw new Error("the plugin's server did not fold every call");
console.log(
  `FrontMCP ${process.version}: ${(outcome.bytes / 1e6).toFixed(2)} MB, median of ` +
    `${outcome.rounds}: unfolded ${outcome.plainMs.toFixed(1)} ms, ` +
    `folded ${outcome.foldMs.toFixed(1)} ms, ratio ${outcome.ratio.toFixed(2)}× (goal ≤ 1.3×)`,
);

function pick(...names: string[]): Record<string, string> {
  return Object.fromEntries(names.flatMap((name) => (process.env[name] ? [[name, process.env[name]!]] : [])));
}
