// `npm run check:types`: packs the package into a temporary directory and checks its types with attw.
// `attw --pack .` would pack into the project root and delete mcp-result-handles-<version>.tgz afterwards,
// which is also the name of a tarball the user may have packed themselves: this leaves the root alone.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const dir = mkdtempSync(join(tmpdir(), "mcp-result-handles-attw-"));
try {
  // --json names the tarball; prepack builds dist/ first and prints to stderr, left visible.
  const [packed] = JSON.parse(
    execFileSync(npm, ["pack", "--json", "--pack-destination", dir], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      shell: process.platform === "win32",
    }),
  );
  const attw = join("node_modules", ".bin", process.platform === "win32" ? "attw.cmd" : "attw");
  execFileSync(attw, [join(dir, packed.filename), "--profile", "strict", ...process.argv.slice(2)], {
    stdio: "inherit",
    shell: process.platform === "win32",
  });
} catch (error) {
  process.exitCode = typeof error?.status === "number" ? error.status : 1;
  if (error?.status === undefined) console.error(error);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
