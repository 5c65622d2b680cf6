// The package as users install it (S13, S17.1): `npm pack` of the built dist/, once per build however many
// test files ask (they run in parallel processes), and scratch projects that install the tarball with npm.
import { execFile } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
export const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The parent `npm test` sets npm_* variables (prefix, lifecycle, user agent) that must not steer a scratch install. */
export const cleanEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith("npm_")),
);

export interface PackedPackage {
  readonly tarball: string;
  readonly files: readonly string[];
  readonly bytes: number;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * Packs dist/ (already built: --ignore-scripts keeps prepack from rebuilding it under other test files)
 * into a folder named for this build, so files running at the same time share one tarball. The folder is
 * claimed with mkdir (atomic); the others wait for its `packed.json`.
 */
export async function packedPackage(): Promise<PackedPackage> {
  const built = join(root, "dist", "node", "index.js");
  if (!existsSync(built)) throw new Error("dist/ is missing: run `npm run build` (npm test does) first");
  const stamp = `${Math.round(statSync(built).mtimeMs)}-${statSync(join(root, "package.json")).mtimeMs | 0}`;
  const dir = join(tmpdir(), `mcp-result-handles-pack-${stamp}`);
  const manifest = join(dir, "packed.json");
  // A claim left by a run that died before packing (older than two minutes, no manifest) is taken over.
  if (existsSync(dir) && !existsSync(manifest) && Date.now() - statSync(dir).mtimeMs > 120_000)
    rmSync(dir, { recursive: true, force: true });
  try {
    mkdirSync(dir);
  } catch {
    for (let waited = 0; !existsSync(manifest); waited += 100) {
      if (waited > 60_000)
        throw new Error(`no tarball in ${dir} after a minute (remove the folder if no test run is packing)`);
      await sleep(100);
    }
    return JSON.parse(readFileSync(manifest, "utf8")) as PackedPackage;
  }
  try {
    const { stdout } = await run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], {
      cwd: root,
      env: cleanEnv,
    });
    const [packed] = JSON.parse(stdout) as [{ filename: string; size: number; files: { path: string }[] }];
    const result: PackedPackage = {
      tarball: join(dir, packed.filename),
      files: packed.files.map((file) => file.path),
      bytes: packed.size,
    };
    writeFileSync(`${manifest}.tmp`, JSON.stringify(result));
    renameSync(`${manifest}.tmp`, manifest); // whole before anyone reads it
    removeOldPacks(dir);
    return result;
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Tarballs of earlier builds, left by earlier runs, older than ten minutes (no run still reads them). */
function removeOldPacks(current: string): void {
  for (const name of readdirSync(tmpdir())) {
    const dir = join(tmpdir(), name);
    if (!name.startsWith("mcp-result-handles-pack-") || dir === current) continue;
    if (Date.now() - statSync(dir).mtimeMs > 600_000) rmSync(dir, { recursive: true, force: true });
  }
}

export interface ScratchProject {
  readonly dir: string;
  readonly packed: PackedPackage;
  dispose(): void;
}

/**
 * A scratch ES module project that installs the tarball and the given dependencies with npm (from its
 * cache where it can), and holds the given files.
 */
export async function scratchProject(
  dependencies: Record<string, string>,
  files: Record<string, string> = {},
  prefix = "install",
): Promise<ScratchProject> {
  const packed = await packedPackage();
  const dir = mkdtempSync(join(tmpdir(), `mcp-result-handles-${prefix}-`));
  const pkg = {
    name: "scratch-consumer",
    private: true,
    type: "module",
    dependencies: { ...dependencies, "mcp-result-handles": `file:${packed.tarball}` },
  };
  writeFileSync(join(dir, "package.json"), JSON.stringify(pkg, null, 2));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--ignore-scripts"], {
    cwd: dir,
    env: cleanEnv,
  });
  return { dir, packed, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
