import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * The demo server of `npm start` as its own process, as users run it: `node --import tsx playground/server/start.ts`.
 */
export interface DemoProcess {
  readonly url: string;
  /** Its first stdout line. */
  readonly startLine: string;
  readonly pid: number;
  /** Everything it wrote to stderr so far (warnings go there through console.warn). */
  stderr(): string;
  /** SIGTERM, then waits for its exit code. */
  stop(): Promise<number | null>;
}

export async function spawnDemo(env: Record<string, string>): Promise<DemoProcess> {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    ["--import", "tsx", "playground/server/start.ts"],
    {
      cwd: root,
      env: { ...process.env, PORT: "0", ...env },
    },
  );
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolveExit) => child.on("exit", (code) => resolveExit(code)));
  const startLine = await new Promise<string>((resolveLine, reject) => {
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      const line = stdout.split("\n")[0]!;
      if (stdout.includes("\n")) resolveLine(line);
    });
    void exited.then((code) => reject(new Error(`demo server exited with ${code}: ${stdout}${stderr}`)));
  });
  const url = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(startLine)?.[1];
  if (!url) throw new Error(`no URL in the start line: ${startLine}`);
  return {
    url,
    startLine,
    pid: child.pid!,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}
