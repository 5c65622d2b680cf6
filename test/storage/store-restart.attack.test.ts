// S26.3 S26.4 S26.7 attacked from the outside: the store goes away while calls read it. Redis killed (SIGKILL) while
// four filters and a window read a 10 MB answer, a second owner queries and a fold runs: every call ends within the
// store's deadline with a coded result, the loop is not held, and once Redis is started again (empty) a fold reads back
// within seconds while the old handle reads as not found. SQLite's file deleted or replaced by another file while
// filters read it: the open database goes on answering (the true values), and new folds read back. Real MCP clients
// over real HTTP, a real redis-server, real SQLite files; expected values from plain code.
import { mkdtemp, rm, unlink, rename, writeFile } from "node:fs/promises";
import { createConnection } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startAttackBench, textOf, watchStalls, type AttackBench, type Result } from "../helpers/attack-bench.js";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.js";

const handleOf = (r: Result) => (r.structuredContent as { handle: string }).handle;
/** The code of an error result, "UNCODED" for one without it (S26.7), or "ok". */
const codeOf = (r: Result) =>
  r.isError ? ((r.structuredContent as { error?: { code?: string } } | undefined)?.error?.code ?? "UNCODED") : "ok";
const rows = (n: number, tag: string) => ({
  rows: Array.from({ length: n }, (_, id) => ({ id, a: id % 10, title: `${tag} ${id}`, s: "k".repeat(40) })),
});
/** Calls sent one after another and left running; `answers` gives each one's time, code and first words. */
function timedCalls() {
  const calls: Promise<{ who: string; ms: number; code: string; text: string }>[] = [];
  return {
    call(who: string, run: () => Promise<Result>) {
      const t = performance.now();
      calls.push(
        run().then((r) => ({ who, ms: performance.now() - t, code: codeOf(r), text: textOf(r).slice(0, 160) })),
      );
    },
    answers: () => Promise.all(calls),
  };
}
const redisPid = (port: number) =>
  new Promise<number>((resolve, reject) => {
    const socket = createConnection(port, "127.0.0.1");
    let out = "";
    socket.on("data", (d) => {
      out += d;
      const m = /process_id:(\d+)/.exec(out);
      if (m) {
        socket.destroy();
        resolve(Number(m[1]));
      }
    });
    socket.on("error", reject);
    socket.write("INFO server\r\n");
  });

describe("Redis killed mid-read", () => {
  let bench: AttackBench;
  let redis: RedisServer;
  afterAll(async () => {
    await bench?.close();
    await redis?.dispose();
  });
  it("every call answers, coded, within the deadline; reads work again after a restart", async () => {
    redis = await startRedisServer();
    bench = await startAttackBench({ storage: { type: "redis", redis: { url: redis.url } } });
    bench.answer.next = rows(110_000, "Row");
    const big = handleOf(await bench.alice("report_structured"));
    bench.answer.next = rows(300, "Bob");
    const bobs = handleOf(await bench.bob("report_structured"));
    bench.answer.next = undefined;
    const pid = await redisPid(redis.port);
    const stalls = watchStalls();
    const started = performance.now();
    const { call, answers } = timedCalls();
    for (let i = 0; i < 4; i++)
      call(`alice filter ${i}`, () =>
        bench.alice("result_query", { handle: big, path: `$.rows[?@.a == ${i}].id`, limit: 2 }),
      );
    call("alice offset", () => bench.alice("result_query", { handle: big, path: "$.rows", offset: 100_000, limit: 2 }));
    await new Promise((r) => setTimeout(r, 150));
    process.kill(pid, "SIGKILL");
    const killedAt = performance.now();
    call("bob small", () => bench.bob("result_query", { handle: bobs, path: "$.rows[?@.id == 7].title" }));
    bench.answer.next = rows(20_000, "Fold");
    call("alice fold", () => bench.alice("report_structured"));
    const results = await answers();
    const hold = stalls.stop();
    for (const r of results) console.log(`  ${r.who}: ${Math.round(r.ms)} ms ${r.code} ${r.text}`);
    console.log(
      `killed at ${Math.round(killedAt - started)} ms; loop held up to ${Math.round(hold)} ms; ` +
        `load ${loadavg()[0]!.toFixed(1)}`,
    );
    await redis.stop();
    await redis.start();
    const back = performance.now();
    let firstOk = -1;
    for (let i = 0; i < 40; i++) {
      bench.answer.next = rows(300, "Again");
      const f = await bench.alice("report_structured");
      const h = (f.structuredContent as { handle?: string } | undefined)?.handle;
      if (h) {
        const q = await bench.alice("result_query", { handle: h, path: "$.rows[3].title" });
        if (codeOf(q) === "ok") {
          firstOk = performance.now() - back;
          break;
        }
        console.log("  after restart:", codeOf(q), textOf(q).slice(0, 120));
      } else console.log("  fold after restart came whole:", textOf(f).slice(0, 80));
      await new Promise((r) => setTimeout(r, 100));
    }
    console.log(`first fold+read after restart ok at ${Math.round(firstOk)} ms`);
    const old = await bench.alice("result_query", { handle: big, path: "$.rows[0]" });
    console.log(`  old handle after restart: ${codeOf(old)} ${textOf(old).slice(0, 200)}`);
    // Each call answers, coded, within the store's deadline (1500 ms) and twice that for a loaded machine
    for (const r of results) {
      expect(r.code).not.toBe("UNCODED");
      expect(r.ms).toBeLessThan(3000);
    }
    // a read that ended before the kill answered; bob's, sent after it, could not be read
    for (const r of results) expect(["ok", "RESULT_STORE_UNAVAILABLE"]).toContain(r.code);
    expect(results.find((r) => r.who === "bob small")!.code).toBe("RESULT_STORE_UNAVAILABLE");
    expect(hold).toBeLessThan(1000); // S21.4, with room for a loaded 2-core machine: 117-576 ms seen at loads 4-5
    expect(firstOk).toBeGreaterThanOrEqual(0);
    expect(firstOk).toBeLessThan(4000);
    expect(codeOf(old)).toBe("RESULT_HANDLE_NOT_FOUND"); // Redis kept nothing: the text says to call the tool again
  }, 120_000);
});

for (const how of ["deleted", "replaced"]) {
  describe(`SQLite file ${how} mid-read`, () => {
    let bench: AttackBench;
    let folder: string;
    afterAll(async () => {
      await bench?.close();
      await rm(folder, { recursive: true, force: true });
    });
    it("every call answers, coded", async () => {
      folder = await mkdtemp(join(tmpdir(), "sqlite-gone-"));
      const path = join(folder, "answers.db");
      bench = await startAttackBench({ storage: { type: "sqlite", sqlite: { path } } });
      bench.answer.next = rows(110_000, "Row");
      const big = handleOf(await bench.alice("report_structured"));
      bench.answer.next = undefined;
      const stalls = watchStalls();
      const { call, answers } = timedCalls();
      for (let i = 0; i < 3; i++)
        call(`filter ${i}`, () =>
          bench.alice("result_query", { handle: big, path: `$.rows[?@.a == ${i}].id`, limit: 2 }),
        );
      await new Promise((r) => setTimeout(r, 100));
      if (how === "deleted") {
        for (const f of ["", "-wal", "-shm"]) await unlink(path + f).catch(() => {});
      } else {
        await writeFile(join(folder, "other"), "SQLite format 3\0" + "x".repeat(5000));
        await rename(join(folder, "other"), path);
      }
      call("offset", () => bench.alice("result_query", { handle: big, path: "$.rows", offset: 100_000, limit: 2 }));
      bench.answer.next = rows(20_000, "Fold");
      call("fold", () => bench.alice("report_structured"));
      const results = await answers();
      for (const r of results) console.log(`  ${how} ${r.who}: ${Math.round(r.ms)} ms ${r.code} ${r.text}`);
      const after = await bench.alice("result_query", { handle: big, path: "$.rows[5].title" });
      console.log(
        `  ${how} then: ${codeOf(after)} ${textOf(after).slice(0, 160)}; held ${Math.round(stalls.stop())} ms`,
      );
      bench.answer.next = rows(3000, "New");
      const f = await bench.alice("report_structured");
      const h = (f.structuredContent as { handle?: string } | undefined)?.handle;
      const q = h ? await bench.alice("result_query", { handle: h, path: "$.rows[5].title" }) : f;
      console.log(`  ${how} new fold then read: ${h ? "folded" : "whole"} ${codeOf(q)} ${textOf(q).slice(0, 160)}`);
      // The open database answers, true values (every tenth row has a == i)
      for (const r of results) expect(r.code).toBe("ok");
      for (let i = 1; i < 3; i++)
        expect(results.find((r) => r.who === `filter ${i}`)!.text).toContain(`"value":[${i},${i + 10}]`);
      expect(results.find((r) => r.who === "offset")!.text).toContain('"title":"Row 100000"');
      expect(textOf(after)).toContain('"value":"Row 5"');
      expect(h).toBeTruthy();
      expect(textOf(q)).toContain('"value":"New 5"');
    }, 120_000);
  });
}
