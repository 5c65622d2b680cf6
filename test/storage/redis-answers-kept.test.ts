// S21.3 S26.3: what a healthy Redis answers is kept by no one once its caller is done with it. The end of a stalled
// lane's waits (redis-client.ts `watch`) was one promise of the lane's that every command raced: it kept a reaction
// per command, and with it the command's answer, until the lane stalled, which a healthy Redis never does: every
// piece ever read stayed in memory (100 MB more per 1,000 reads of 100 KB). A real redis-server, the real driver.
import { runInNewContext } from "node:vm";
import { setFlagsFromString } from "node:v8";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisDriver } from "../../src/storage/redis.js";
import { openDriver } from "./contract.js";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.js";

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
}, 30_000);
afterAll(async () => {
  await redis?.dispose();
});

/** The collector, to learn what is still held (the flag set for this one call). */
function collector(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

describe("S21.3 Redis answers", () => {
  it("are not kept once read", async () => {
    const storage = await openDriver(redisDriver, { redis: { url: redis.url } }, "answers-kept", 3000);
    await storage.set("piece", new Uint8Array(100_000).fill(7), 60);
    const gc = collector();
    const held = async () => {
      for (let i = 0; i < 3; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10)); // what a finished task held, let go
        gc();
      }
      const { heapUsed, arrayBuffers } = process.memoryUsage();
      return (heapUsed + arrayBuffers) / 1e6;
    };
    const before = await held();
    for (let i = 0; i < 500; i++) {
      const [one, other] = await Promise.all([storage.get("piece"), storage.get("piece")]); // two in flight at once
      expect([one?.byteLength, other?.byteLength]).toEqual([100_000, 100_000]);
    }
    const grown = (await held()) - before;
    console.log(
      `1,000 answers of 100 KB (100 MB) read from Redis: ${grown.toFixed(1)} MB more held after a collection`,
    );
    expect(grown).toBeLessThan(30); // 4-26 MB (buffers not given back yet); 105 MB before
    await storage.close();
  }, 60_000);
});
