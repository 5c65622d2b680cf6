// Processes as users run them: timers that never keep Node alive, and the demo server's start and stop.
import { spawn, spawnSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

describe("S9.3 S9.5 timers", () => {
  it("a memory store with answers in it does not keep a Node process alive", () => {
    const script = `
      import { ResultHandlesPlugin, ResultHandleStoreToken } from "mcp-result-handles";
      const plugin = ResultHandlesPlugin.init({ storage: { type: "memory" } });
      const store = await plugin.get(ResultHandleStoreToken);
      await store.save(store.newHandle(), { kept: true }, { session: "s" });
      console.log("saved");`;
    const started = Date.now();
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8", timeout: 15_000 });
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe("saved");
    expect(run.status).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000); // the sweep runs every 30 s: an unref'd timer lets Node exit first
  });
});

describe("S11.1 npm start", () => {
  it("logs one line with its URL, serves, and stops cleanly on SIGTERM", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "playground/server/start.ts"], { cwd: root, env: { ...process.env, PORT: "0" } });
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
