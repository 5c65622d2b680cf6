// S9.3 S9.5 processes as users run them: the memory store's timers never keep Node alive.
import { spawnSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

describe("S9.3 S9.5 timers", () => {
  it("a memory store with answers in it does not keep a Node process alive", () => {
    const script = `
      import { ResultHandlesPlugin, ResultHandleStoreToken } from "mcp-result-handles";
      const plugin = ResultHandlesPlugin.init({ storage: { type: "memory" } });
      const store = await plugin.get(ResultHandleStoreToken);
      await store.save(store.newHandle(), { kept: true }, { session: "s" });
      console.log("saved");`;
    const started = Date.now();
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: root,
      encoding: "utf8",
      timeout: 15_000,
    });
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe("saved");
    expect(run.status).toBe(0);
    // the sweep runs every 30 s: an unref'd timer lets Node exit first
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
