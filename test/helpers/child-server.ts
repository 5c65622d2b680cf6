/**
 * An MCP server over HTTP in a process of its own, started as users start one: `node --import tsx <script>` from the
 * repository's root. A test times that server's event loop apart from its own clients' work (S21.4, S26.3), breaks
 * its store under it without failing the runner (S26.4), or runs the demo of `npm start` (S9.6, S11.1).
 * The script prints a first line with its URL in it, then serves.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** How the process ended. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ChildServer {
  readonly url: string;
  /** Its first stdout line, the URL in it. */
  readonly startLine: string;
  readonly child: ChildProcess;
  /** Everything it wrote to stderr so far (warnings go there through console.warn). */
  stderr(): string;
  /**
   * Ends it: closes its IPC channel where it has one (the script then closes its server and store and exits), else
   * sends SIGTERM; SIGKILL if it still runs 5 s later. Resolves with how it ended.
   */
  stop(): Promise<ChildExit>;
}

/** Starts `script` with `env` over this process's environment; `ipc` opens a channel for `child.send`. */
export async function spawnChildServer(
  script: string,
  env: Record<string, string>,
  { ipc = false }: { ipc?: boolean } = {},
): Promise<ChildServer> {
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe", ...(ipc ? (["ipc"] as const) : [])],
  });
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exit = new Promise<ChildExit>((resolveExit) =>
    child.on("exit", (code, signal) => resolveExit({ code, signal })),
  );
  const startLine = await new Promise<string>((resolveLine, reject) => {
    child.stdout!.on("data", (chunk) => {
      stdout += chunk;
      if (stdout.includes("\n")) resolveLine(stdout.split("\n")[0]!);
    });
    void exit.then(({ code, signal }) => reject(new Error(`${script} exited (${code ?? signal}): ${stdout}${stderr}`)));
  });
  const url = /(http:\/\/\S+)/.exec(startLine)?.[1];
  if (!url) {
    child.kill("SIGKILL");
    throw new Error(`no URL in the first line of ${script}: ${startLine}`);
  }
  return {
    url,
    startLine,
    child,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        if (child.connected) child.disconnect();
        else child.kill("SIGTERM");
      }
      const killer = setTimeout(() => child.kill("SIGKILL"), 5000);
      const end = await exit;
      clearTimeout(killer);
      return end;
    },
  };
}

/** The demo server of `npm start` (playground/server/start.ts) on a free port. */
export const spawnDemo = (env: Record<string, string>) =>
  spawnChildServer("playground/server/start.ts", { PORT: "0", ...env });
