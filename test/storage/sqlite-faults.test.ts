// S26.4 from the outside, against real SQLite files: another process holding the database's write lock
// (BEGIN IMMEDIATE, BEGIN EXCLUSIVE) never holds the server's calling thread, and a database file truncated
// under a running server (in a process of its own, so a SIGBUS fails this test rather than the runner)
// fails the call with RESULT_STORE_UNAVAILABLE while the server goes on. Runs in `npm test` (hence CI).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Client } from "@modelcontextprotocol/client";
import Sqlite from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAttackBench, watchStalls, type AttackBench, type Result } from "../helpers/attack-bench.js";
import { spawnChildServer } from "../helpers/child-server.js";
import { connect } from "../helpers/mcp-client.js";
import { metaHandleOf } from "../helpers/fold-meta.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const dir = mkdtempSync(join(tmpdir(), "result-handles-sqlite-faults-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * How long a call waits for its store in all (S26.3): storage.deadlineMs's default, which the SQLite lock's wait
 * (S9.1's timeoutMs, 3000 ms by default) does not raise.
 */
const STORE_DEADLINE_MS = 1500;
const answer = { rows: Array.from({ length: 1400 }, (_, i) => ({ id: i, title: `Row ${i} `.padEnd(1000, "x") })) };
const codeOf = (result: Result) => (result.structuredContent as { error?: { code: string } } | undefined)?.error?.code;

/**
 * Another process that takes the database's write lock with `begin` and keeps it for `holdMs`; resolves once it holds
 * it.
 */
async function lockHolder(
  file: string,
  begin: "IMMEDIATE" | "EXCLUSIVE",
  holdMs: number,
): Promise<{ done: Promise<number | null> }> {
  const script = `
    const Sqlite = require("better-sqlite3");
    const db = new Sqlite(${JSON.stringify(file)});
    db.exec("BEGIN ${begin}");
    db.prepare(
      "INSERT OR REPLACE INTO result_handles (key, value, expires_at) VALUES ('other-process', x'00', 0)",
    ).run();
    console.log("locked");
    setTimeout(() => { db.exec("COMMIT"); db.close(); }, ${holdMs});`;
  const child = spawn(process.execPath, ["-e", script], { cwd: root });
  const done = new Promise<number | null>((resolveExit) => child.on("exit", (code) => resolveExit(code)));
  await new Promise<void>((resolveLocked, reject) => {
    child.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("locked") && resolveLocked());
    void done.then((code) => reject(new Error(`the lock holder exited with ${code}`)));
  });
  return { done };
}

describe("S26.4 another process holds the SQLite database's write lock", () => {
  let bench: AttackBench;
  const file = join(dir, "locked.sqlite");
  beforeAll(async () => {
    bench = await startAttackBench({ thresholdBytes: 16_384, storage: { type: "sqlite", sqlite: { path: file } } });
    bench.answer.next = answer;
  });
  afterAll(() => bench?.close());

  for (const begin of ["IMMEDIATE", "EXCLUSIVE"] as const) {
    it(
      `BEGIN ${begin} for 4 s: a fold waits on a timer, not on the thread, ` +
        `and goes out whole; reads and a second caller go on`,
      async () => {
        const kept = metaHandleOf(await bench.alice("report"))!;
        expect(kept).toBeTypeOf("string");
        const holder = await lockHolder(file, begin, 4000);
        const stalls = watchStalls();
        const started = performance.now();
        const second = new Promise<{ result: Result; ms: number }>((resolveSecond) =>
          setTimeout(async () => {
            const due = performance.now();
            // another owner: not found, at once
            const result = await bench.bob("result_query", { handle: kept, path: "$.rows[1].id" });
            resolveSecond({ result, ms: performance.now() - due });
          }, 300),
        );
        const fold = await bench.alice("report");
        const foldMs = performance.now() - started;
        const read = await bench.alice("result_query", { handle: kept, path: "$.rows[1399].id" });
        const { result: other, ms: secondMs } = await second;
        const stallMs = stalls.stop();
        console.log(
          `S26.4 BEGIN ${begin} held by another process: the fold went out ` +
            `${metaHandleOf(fold) ? "folded" : "whole"} after ${Math.round(foldMs)} ms; ` +
            `event loop held up to ${Math.round(stallMs)} ms; a second caller answered in ${Math.round(secondMs)} ms`,
        );
        expect(metaHandleOf(fold)).toBeUndefined(); // the lock outlived the store deadline: sent whole…
        expect(fold.structuredContent).toEqual(answer); // …and complete
        expect(foldMs).toBeGreaterThanOrEqual(STORE_DEADLINE_MS - 200); // it did wait for the lock…
        expect(foldMs).toBeLessThan(STORE_DEADLINE_MS + 1500); // …no longer than the call's store deadline
        // 4.04 s before S26.4 (busy_timeout slept on the calling thread); here 44–224 ms on a loaded machine,
        // folding and (as its client) reading a 1.4 MB answer in this process.
        expect(stallMs).toBeLessThan(500);
        expect(secondMs).toBeLessThan(1000);
        expect(codeOf(other)).toBe("RESULT_HANDLE_NOT_FOUND");
        expect(read.structuredContent).toMatchObject({ value: 1399 }); // WAL: reads pass the writer's lock
        expect(await holder.done).toBe(0);
        // Once the lock is gone, folds are kept again.
        expect(metaHandleOf(await bench.alice("report"))).toBeTypeOf("string");
      },
      20_000,
    );
  }
});

describe("S26.4 the SQLite file truncated under a running server", () => {
  it("the read fails with RESULT_STORE_UNAVAILABLE, the process lives (no SIGBUS) and goes on serving", async () => {
    const file = join(dir, "truncated.sqlite");
    const server = await spawnChildServer("test/fixtures/sqlite-server.ts", { SQLITE_PATH: file });
    let client: Client | undefined;
    try {
      client = await connect(server.url, { era: "2026-07-28", token: "alice" }); // a caller: her answers fold
      const call = async (name: string, args: Record<string, unknown> = {}) =>
        (await client!.callTool({ name, arguments: args })) as Result;
      const handle = metaHandleOf(await call("report"))!;
      const seen = metaHandleOf(await call("report"))!;
      expect(handle).toBeTypeOf("string");

      // Everything into the main file; the server reads it once more (it maps the file as it is now),
      // then the file is cut to three pages under it: the pages the next read needs are gone.
      const other = new Sqlite(file);
      other.pragma("wal_checkpoint(TRUNCATE)");
      other.close();
      expect((await call("result_query", { handle: seen, path: "$.rows[1399].id" })).structuredContent).toMatchObject({
        value: 1399,
      });
      truncateSync(file, 3 * 4096);

      const started = performance.now();
      const read = await call("result_query", { handle, path: "$.rows[700].id" });
      const readMs = performance.now() - started;
      const fold = await call("report");
      const ping = await call("ping");
      console.log(
        `S26.4 truncated file: the read answered ${codeOf(read)} in ${Math.round(readMs)} ms; a fold went out ` +
          `${metaHandleOf(fold) ? "folded" : "whole"}; the server ` +
          `${server.child.exitCode === null && server.child.signalCode === null ? "lives" : "died"}`,
      );
      expect(server.child.signalCode).toBeNull(); // SIGBUS before S26.4
      expect(server.child.exitCode).toBeNull();
      expect(codeOf(read)).toBe("RESULT_STORE_UNAVAILABLE");
      expect(readMs).toBeLessThan(2000);
      expect(fold.isError).toBeFalsy();
      expect(metaHandleOf(fold)).toBeUndefined(); // the store fails: the answer goes out whole…
      expect(fold.structuredContent).toEqual(answer); // …and complete
      expect(ping.structuredContent).toEqual({ pong: true });
    } finally {
      await client?.close().catch(() => {});
      const { signal } = await server.stop();
      expect([null, "SIGTERM"]).toContain(signal); // ended by us, not by SIGBUS
    }
  }, 30_000);
});
