// S11.1 the demo server as users run it: `npm start`, its start and stop.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { connect } from "node:net";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Waits for the line naming the server's URL on stdout; rejects if the process exits first. */
function urlOf(child: ChildProcess): Promise<{ url: string; output: () => string }> {
  let output = "";
  child.stderr?.on("data", (chunk) => (output += chunk));
  return new Promise((resolveUrl, reject) => {
    child.stdout?.on("data", (chunk) => {
      output += chunk;
      const match = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output);
      if (match) resolveUrl({ url: match[1]!, output: () => output });
    });
    child.on("exit", () => reject(new Error(`exited early: ${output}`)));
  });
}

const exitOf = (child: ChildProcess) =>
  new Promise<number | null>((resolveExit) => child.on("exit", (code) => resolveExit(code)));

/** True when nothing accepts connections on the port any more. */
function portClosed(port: number): Promise<boolean> {
  return new Promise((resolveClosed) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolveClosed(false)));
    socket.once("error", () => resolveClosed(true));
  });
}

describe("S11.1 npm start", () => {
  it("a busy port ends it with one line naming the port and PORT, exit code 1, no stack trace", async () => {
    const busy = createServer();
    await new Promise<void>((listening) => busy.listen(0, "127.0.0.1", listening));
    const port = (busy.address() as AddressInfo).port;
    try {
      const run = spawnSync(process.execPath, ["--import", "tsx", "playground/server/start.ts"], {
        cwd: root,
        env: { ...process.env, PORT: String(port) },
        encoding: "utf8",
        timeout: 30_000,
      });
      expect(run.status).toBe(1);
      const lines = (run.stdout + run.stderr).trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(String(port));
      expect(lines[0]).toContain("PORT");
      expect(lines[0]).not.toMatch(/\bat \S+:\d+/); // no stack frame
    } finally {
      busy.close();
    }
  });

  it("SIGTERM to the npm process itself stops the server: the port closes and npm exits", async () => {
    const npm = spawn("npm", ["start", "--silent"], { cwd: root, env: { ...process.env, PORT: "0" } });
    const { url } = await urlOf(npm);
    const port = Number(new URL(url).port);
    expect(await portClosed(port)).toBe(false);
    const exit = exitOf(npm);
    npm.kill("SIGTERM");
    await exit;
    // The server must not outlive npm: poll briefly, since the child's close may trail npm's exit.
    let closed = false;
    for (let i = 0; i < 40 && !closed; i++) {
      closed = await portClosed(port);
      if (!closed) await new Promise((r) => setTimeout(r, 100));
    }
    expect(closed).toBe(true);
  });

  it("logs one line with its URL, serves, and stops cleanly on SIGTERM", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "playground/server/start.ts"], {
      cwd: root,
      env: { ...process.env, PORT: "0" },
    });
    let output = "";
    child.stderr.on("data", (chunk) => (output += chunk));
    const url = await new Promise<string>((resolveUrl, reject) => {
      child.stdout.on("data", (chunk) => {
        output += chunk;
        const match = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output);
        if (match) resolveUrl(match[1]!);
      });
      child.on("exit", () => reject(new Error(`exited early: ${output}`)));
    });
    expect(output.trim().split("\n")).toHaveLength(1);
    const response = await fetch(url, { method: "POST", headers: { authorization: "Bearer nope" }, body: "{}" });
    expect(response.status).toBe(401);
    const exit = new Promise<number | null>((resolveExit) => child.on("exit", (code) => resolveExit(code)));
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
  });
});
