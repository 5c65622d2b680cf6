// S9.5: onShutdown() closes connections and timers: a process that used a store exits by itself afterwards.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { useRedisWithUpstashBridge } from "../helpers/redis-with-upstash-bridge.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const dir = mkdtempSync(join(tmpdir(), "result-handles-shutdown-"));
const servers = useRedisWithUpstashBridge();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Runs a module script with the package's Node build; resolves with its exit code, output and the ms from "closed" to
 * exit.
 */
function run(script: string): Promise<{ code: number | null; output: string; exitAfterClosedMs: number | undefined }> {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: root });
    let output = "";
    let closedAt: number | undefined;
    const killer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    const collect = (chunk: Buffer) => {
      output += chunk;
      if (closedAt === undefined && output.includes("closed")) closedAt = performance.now();
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.on("exit", (code) => {
      clearTimeout(killer);
      resolveRun({
        code,
        output,
        exitAfterClosedMs: closedAt === undefined ? undefined : performance.now() - closedAt,
      });
    });
  });
}

describe("S9.5 onShutdown lets the process exit", () => {
  const storages = () => ({
    redis: { type: "redis", redis: { url: servers.redis.url } },
    sqlite: { type: "sqlite", sqlite: { path: join(dir, "shutdown.sqlite") } },
    upstash: { type: "upstash", upstash: { url: servers.bridge.url, token: servers.bridge.token } },
  });

  it.each(["redis", "sqlite", "upstash"] as const)(
    "%s: after onShutdown the process ends on its own, promptly",
    async (name) => {
      const storage = storages()[name];
      const { code, output, exitAfterClosedMs } = await run(`
      import { ResultHandlesPlugin } from "./src/runtimes/node/index.ts";
      const plugin = ResultHandlesPlugin.init({ storage: ${JSON.stringify(storage)} });
      const store = await plugin.store();
      const handle = store.newHandle();
      await store.save(handle, { kept: true }, { session: "s" });
      if (!(await store.read(handle, { session: "s" }))) throw new Error("not read back");
      await plugin.onShutdown();
      console.log("closed");`);
      expect(output.trim()).toBe("closed");
      expect(code).toBe(0);
      expect(exitAfterClosedMs).toBeLessThan(2000);
    },
    20_000,
  );

  it("redis without onShutdown keeps its connection: the control that shows the test above can fail", async () => {
    const { code, output } = await run(`
      import { ResultHandlesPlugin } from "./src/runtimes/node/index.ts";
      const plugin = ResultHandlesPlugin.init({ storage: ${JSON.stringify(storages().redis)} });
      await plugin.store();
      console.log("closed");
      setTimeout(() => { console.log("still running"); process.exit(3); }, 3000).unref();`);
    expect(output).toContain("still running");
    expect(code).toBe(3);
  }, 20_000);
});
