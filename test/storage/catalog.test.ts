// The runtime seam for storage: a build is a list of drivers plus how it refuses the types of other builds.
// Checks the two builds' lists, and that an edge-like build (S17.1) is one list away.
import { describe, expect, it } from "vitest";
import { ResultHandlesError, ResultHandlesPluginCore } from "mcp-result-handles";
import { browserRuntime } from "../../src/runtimes/browser/runtime.js";
import { edgeRuntime as edgeBuildRuntime } from "../../src/runtimes/edge/runtime.js";
import { nodeRuntime } from "../../src/runtimes/node/runtime.js";
import { defineRuntime } from "../../src/plugin/runtime.js";
import { webBase64 } from "../../src/storage/base64.js";
import { customDriver } from "../../src/storage/custom.js";
import { memoryDriver } from "../../src/storage/memory.js";
import { restDrivers } from "../../src/storage/upstash.js";

describe("each build's catalog", () => {
  it.each([
    ["node", nodeRuntime, ["custom", "memory", "redis", "sqlite", "upstash", "vercel-kv"]],
    ["browser", browserRuntime, ["custom", "indexeddb", "memory"]],
    ["edge", edgeBuildRuntime, ["custom", "memory", "upstash", "vercel-kv"]],
  ] as const)("%s opens what its drivers say runs there, and refuses the rest by name", (kind, runtime, types) => {
    const drivers = runtime.storage.drivers;
    expect(drivers.map((driver) => driver.type).sort()).toEqual(types);
    for (const driver of drivers) expect(driver.runsIn).toContain(kind);
    for (const type of runtime.storage.elsewhere) expect(types).not.toContain(type);
  });

  it("S9.2 node's auto order is redis, vercel-kv, upstash: the first of its list whose variables are set", () => {
    const withEnv = nodeRuntime.storage.drivers.filter((driver) => driver.env).map((driver) => driver.type);
    expect(withEnv).toEqual(["redis", "vercel-kv", "upstash"]);
  });
});

describe("S17.1 an edge-like build is a list of drivers and a refusal", () => {
  const rest = restDrivers({ runsIn: ["browser"], load: () => import("@upstash/redis/cloudflare"), base64: webBase64 });
  const edgeRuntime = defineRuntime("browser", () => undefined, {
    drivers: [memoryDriver, rest.upstash, rest.vercelKv, customDriver],
    elsewhere: ["redis", "sqlite", "indexeddb"],
    refuse: (type, runHere) =>
      new ResultHandlesError(
        "STORAGE_UNAVAILABLE",
        `"${type}" cannot run at the edge; these do: ${runHere.join(", ")}`,
      ),
  });
  class EdgePlugin extends ResultHandlesPluginCore {
    protected static override runtime = edgeRuntime;
  }

  it.each([
    { type: "redis" },
    { type: "redis", redis: { url: "redis://h" } },
    { type: "sqlite", sqlite: { path: "/x" } },
    { type: "indexeddb" },
  ])("refuses %j at init with a coded error naming the type and the stores that run there", (storage) => {
    let error: unknown;
    try {
      EdgePlugin.init({ storage: storage as never });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ResultHandlesError);
    expect((error as ResultHandlesError).code).toBe("STORAGE_UNAVAILABLE");
    expect((error as Error).message).toBe(
      `"${storage.type}" cannot run at the edge; these do: custom, memory, upstash, vercel-kv`,
    );
  });

  it("takes memory, upstash, vercel-kv and custom; auto is memory (no environment is read)", () => {
    expect(EdgePlugin.init().config.storage.type).toBe("memory");
    expect(
      EdgePlugin.init({ storage: { type: "upstash", upstash: { url: "https://u", token: "t" } } }).config.storage.type,
    ).toBe("upstash");
    expect(() => EdgePlugin.init({ storage: { type: "vercel-kv" } })).toThrow(
      /storage.vercelKv: required unless KV_REST_API_URL and KV_REST_API_TOKEN are set/,
    );
    const storage = { get: async () => undefined, set: async () => {}, delete: async () => {}, close: async () => {} };
    expect(EdgePlugin.init({ storage: { type: "custom", storage } }).config.storage.type).toBe("custom");
  });
});
