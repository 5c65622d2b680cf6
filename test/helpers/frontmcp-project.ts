// The FrontMCP test project (S22.6): the packed tarball beside the FrontMCP 1.5.2 tarballs the repository
// carries (test/fixtures/frontmcp/), with their pins, the tools of test/fixtures/frontmcp-project/ compiled
// with tsc (decorator metadata). Made once per build however many files ask, as `packedPackage` is, and
// servers of it run as processes of their own.
import { execFile, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { cleanEnv, packedPackage, root } from "./packed-package.js";
import { freePort } from "./redis-server.js";

const run = promisify(execFile);
const fixtures = join(root, "test", "fixtures", "frontmcp");
const sources = join(root, "test", "fixtures", "frontmcp-project");
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** The pins FrontMCP 1.5.2 needs (test/fixtures/frontmcp/README.md): zod 4.5.x, vectoriadb 2.0.1, SDK 1.29.0. */
export const FRONTMCP_PINS = { zod: "4.5.4", vectoriadb: "2.0.1", "@modelcontextprotocol/sdk": "1.29.0" } as const;

/** The eight tarballs, each checked against the sha256 its README gives before anything installs them. */
function frontMcpTarballs(): Record<string, string> {
  const readme = readFileSync(join(fixtures, "README.md"), "utf8");
  const dependencies: Record<string, string> = {};
  for (const [, file, sum] of readme.matchAll(
    /^\| (frontmcp-[a-z-]+-1\.5\.2\.tgz) \| [\d,]+ \| ([0-9a-f]{64}) \|$/gm,
  )) {
    const path = join(fixtures, file!);
    const actual = createHash("sha256").update(readFileSync(path)).digest("hex");
    if (actual !== sum) throw new Error(`${file}: sha256 ${actual}, the README says ${sum}`);
    dependencies[`@frontmcp/${file!.replace(/^frontmcp-/, "").replace(/-1\.5\.2\.tgz$/, "")}`] = `file:${path}`;
  }
  if (Object.keys(dependencies).length !== 8)
    throw new Error(`expected 8 FrontMCP tarballs in the README, found ${Object.keys(dependencies).length}`);
  return dependencies;
}

/** A hash of the project's sources, so a change to a tool makes a new project. */
function sourcesStamp(): string {
  const hash = createHash("sha256");
  const visit = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) visit(path);
      else hash.update(name).update(readFileSync(path));
    }
  };
  visit(sources);
  return hash.digest("hex").slice(0, 12);
}

/**
 * The installed and compiled project's folder. The first file to ask claims the folder with mkdir
 * (atomic), installs (about 15 s from npm's cache) and compiles; the others wait for its `ready` mark.
 */
export async function frontMcpProject(): Promise<string> {
  const packed = await packedPackage();
  const stamp = createHash("sha256").update(packed.tarball).update(sourcesStamp()).digest("hex").slice(0, 12);
  const dir = join(tmpdir(), `mcp-result-handles-frontmcp-${stamp}`);
  const ready = join(dir, "ready");
  if (existsSync(dir) && !existsSync(ready) && Date.now() - statSync(dir).mtimeMs > 300_000)
    rmSync(dir, { recursive: true, force: true });
  try {
    mkdirSync(dir);
  } catch {
    for (let waited = 0; !existsSync(ready); waited += 200) {
      if (waited > 240_000)
        throw new Error(
          `no FrontMCP project in ${dir} after four minutes (remove the folder if no test run is making it)`,
        );
      await sleep(200);
    }
    return dir;
  }
  try {
    cpSync(sources, dir, { recursive: true });
    const pkg = {
      name: "frontmcp-consumer",
      private: true,
      type: "module",
      dependencies: { ...frontMcpTarballs(), ...FRONTMCP_PINS, "mcp-result-handles": `file:${packed.tarball}` },
    };
    writeFileSync(join(dir, "package.json"), JSON.stringify(pkg, null, 2));
    await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--ignore-scripts"], {
      cwd: dir,
      env: cleanEnv,
      maxBuffer: 16 << 20,
    });
    // The repository's TypeScript compiles the tools against the project's own FrontMCP, zod and package.
    await run(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], {
      cwd: dir,
      maxBuffer: 16 << 20,
    }).catch((error: { stdout?: string }) => {
      throw new Error(`tsc failed in the FrontMCP project:\n${error.stdout ?? String(error)}`);
    });
    writeFileSync(`${ready}.tmp`, new Date().toISOString());
    renameSync(`${ready}.tmp`, ready);
    removeOldProjects(dir);
    return dir;
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Projects of earlier builds, older than ten minutes (no run still uses them). */
function removeOldProjects(current: string): void {
  for (const name of readdirSync(tmpdir())) {
    const dir = join(tmpdir(), name);
    if (!name.startsWith("mcp-result-handles-frontmcp-") || dir === current) continue;
    if (Date.now() - statSync(dir).mtimeMs > 600_000) rmSync(dir, { recursive: true, force: true });
  }
}

/** One FrontMCP server process of the project. */
export interface FrontMcpServer {
  readonly url: string;
  readonly pid: number;
  /** What it wrote so far (FrontMCP logs to stdout, the plugin's warnings go to stderr). */
  output(): string;
  stop(): Promise<void>;
}

/** Starts `out/server.js` on a free loopback port; resolves once FrontMCP says its bootstrap is complete. */
export async function startFrontMcpServer(
  dir: string,
  env: Record<string, string> = {},
  node = process.execPath,
): Promise<FrontMcpServer> {
  const port = await freePort();
  const child: ChildProcessWithoutNullStreams = spawn(node, [join(dir, "out", "server.js")], {
    cwd: dir,
    env: { ...cleanEnv, PORT: String(port), JWT_SECRET: "frontmcp-test-secret-of-32-characters", ...env },
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise<void>((resolveExit) => child.once("exit", () => resolveExit()));
  await new Promise<void>((started, failed) => {
    const timer = setTimeout(() => failed(new Error(`FrontMCP did not start within 60 s: ${output}`)), 60_000);
    const check = () => {
      if (output.includes("FrontMCP bootstrap complete")) (clearTimeout(timer), started());
    };
    child.stdout.on("data", check);
    void exited.then(() => (clearTimeout(timer), failed(new Error(`FrontMCP exited: ${output}`))));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    pid: child.pid!,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
