import { describe, expect, it } from "vitest";
import {
  DEFAULT_MEMORY_MAX_ENTRIES,
  MIN_THRESHOLD_BYTES,
  RESULT_HANDLE_META_KEY,
  RESULT_QUERY_TOOL_NAME,
  ResultHandlesConfigToken,
  ResultHandlesConfigurationError,
  ResultHandlesPlugin,
} from "mcp-result-handles";

function configError(options: unknown): ResultHandlesConfigurationError {
  try {
    ResultHandlesPlugin.init(options as never);
  } catch (error) {
    expect(error).toBeInstanceOf(ResultHandlesConfigurationError);
    return error as ResultHandlesConfigurationError;
  }
  throw new Error("init accepted invalid options");
}

describe("S2 constants", () => {
  it("has the reference's values", () => {
    expect(RESULT_HANDLE_META_KEY).toBe("frontmcp/result-handle");
    expect(RESULT_QUERY_TOOL_NAME).toBe("result_query");
    expect(DEFAULT_MEMORY_MAX_ENTRIES).toBe(1000);
    expect(MIN_THRESHOLD_BYTES).toBe(1024);
  });
});

describe("S3 init options", () => {
  it("S3 applies every default", () => {
    const config = ResultHandlesPlugin.init().get(ResultHandlesConfigToken);
    expect(config).toMatchObject({
      // S4.3 S7.6: the one option is both what folds and the slice limit, two values of the resolved config
      foldBytes: 16384,
      sliceLimitBytes: 16384,
      ttlSeconds: 600,
      preview: { items: 5, chars: 500 },
      // S9.2 S9.3: auto without REDIS_URL or REST variables is memory, with its default caps.
      storage: {
        type: "memory",
        memory: { maxEntries: 1000, maxBytes: 256 * 1024 * 1024 },
        timeoutMs: 3000,
        deadlineMs: 1500,
      },
      namespace: "result-handles",
    });
    expect(config.foldPolicy("t", {}, { bytes: 1, fullName: "t", request: undefined })).toBe(true);
  });

  it("S9.3 memory's byte cap: 256 MiB in Node, 64 MiB in a page, from the one table of defaults", async () => {
    const { DEFAULT_MEMORY_MAX_BYTES } = await import("../../src/defaults.js");
    const page = await import("../../src/runtimes/browser/index.js");
    expect(ResultHandlesPlugin.init().config.storage).toMatchObject({
      memory: { maxBytes: DEFAULT_MEMORY_MAX_BYTES.node },
    });
    expect(page.ResultHandlesPlugin.init().config.storage).toMatchObject({
      memory: { maxBytes: DEFAULT_MEMORY_MAX_BYTES.browser },
    });
    expect(DEFAULT_MEMORY_MAX_BYTES.browser).toBe(64 * 1024 * 1024);
  });

  it("S3 keeps given values and fills the rest of preview", () => {
    const config = ResultHandlesPlugin.init({
      thresholdBytes: 1024,
      ttlSeconds: 1,
      preview: { items: 2 },
      namespace: "x",
    }).config;
    expect(config).toMatchObject({
      foldBytes: 1024,
      sliceLimitBytes: 1024,
      ttlSeconds: 1,
      preview: { items: 2, chars: 500 },
      namespace: "x",
    });
  });

  it("S3.1 names every problem, with its option path, in one error", () => {
    const error = configError({
      thresholdBytes: 1023,
      ttlSeconds: 0,
      preview: { items: 1.5, chars: -1, extra: true },
      foldPolicy: "yes",
      namespace: "",
      storage: { type: "memory", memory: { maxEntries: -1, colour: "red" } },
      bogus: 1,
    });
    expect(error.code).toBe("RESULT_HANDLES_CONFIGURATION");
    const paths = error.issues.map((issue) => issue.path).sort();
    expect(paths).toEqual(
      [
        "bogus",
        "foldPolicy",
        "namespace",
        "preview.chars",
        "preview.extra",
        "preview.items",
        "storage.memory.colour",
        "storage.memory.maxEntries",
        "thresholdBytes",
        "ttlSeconds",
      ].sort(),
    );
    for (const path of paths) expect(error.message).toContain(path);
    expect(error.message).toContain("at least 1024");
  });

  it.each([
    [{ thresholdBytes: Number.NaN }, "thresholdBytes"],
    [{ thresholdBytes: Number.POSITIVE_INFINITY }, "thresholdBytes"],
    [{ thresholdBytes: "4096" }, "thresholdBytes"],
    [{ ttlSeconds: 1.5 }, "ttlSeconds"],
    [{ preview: { items: 0 } }, "preview.items"],
    [{ storage: { type: "postgres" } }, "storage.type"],
    [{ storage: { type: "sqlite" } }, "storage.sqlite"],
    [{ storage: { type: "redis", redis: { host: "h" } } }, "storage.redis"],
    [{ storage: { type: "memory", timeoutMs: 0 } }, "storage.timeoutMs"],
  ])("S3.1 refuses %j at %s", (options, path) => {
    expect(configError(options).issues.map((issue) => issue.path)).toContain(path);
  });

  it("S9.1 refuses redis without url when REDIS_URL is not set, and accepts it when it is", () => {
    const saved = process.env.REDIS_URL;
    delete process.env.REDIS_URL;
    try {
      expect(configError({ storage: { type: "redis" } }).issues[0]).toMatchObject({ path: "storage.redis" });
      process.env.REDIS_URL = "redis://127.0.0.1:1";
      expect(ResultHandlesPlugin.init({ storage: { type: "redis" } }).config.storage).toEqual({
        type: "redis",
        redis: { url: "redis://127.0.0.1:1" },
        timeoutMs: 3000,
        deadlineMs: 1500,
      });
    } finally {
      if (saved === undefined) delete process.env.REDIS_URL;
      else process.env.REDIS_URL = saved;
    }
  });

  it("S26.3 storage.deadlineMs: default 1500, or a given timeoutMs when longer; a whole number of 1 or more", () => {
    const storage = (given: Record<string, unknown>) =>
      ResultHandlesPlugin.init({ storage: { type: "memory", ...given } }).config.storage;
    // within the 2 s of S21.5; the store timeout's own default (3000, S9.1) does not raise it
    expect(storage({})).toMatchObject({ timeoutMs: 3000, deadlineMs: 1500 });
    expect(storage({ timeoutMs: 500 })).toMatchObject({ timeoutMs: 500, deadlineMs: 1500 });
    expect(storage({ timeoutMs: 3000 })).toMatchObject({ timeoutMs: 3000, deadlineMs: 3000 });
    expect(storage({ timeoutMs: 8000 })).toMatchObject({ timeoutMs: 8000, deadlineMs: 8000 });
    expect(storage({ deadlineMs: 1200 })).toMatchObject({ timeoutMs: 3000, deadlineMs: 1200 });
    for (const deadlineMs of [0, -1, 1.5, "3000"]) {
      expect(configError({ storage: { type: "memory", deadlineMs } }).issues[0]).toMatchObject({
        path: "storage.deadlineMs",
      });
    }
  });

  it("S9.1 refuses upstash and vercel-kv without credentials or their variables", () => {
    expect(configError({ storage: { type: "upstash" } }).issues[0]!.message).toContain("UPSTASH_REDIS_REST_URL");
    expect(configError({ storage: { type: "vercel-kv" } }).issues[0]!.message).toContain("KV_REST_API_TOKEN");
  });

  it("S9.1 indexeddb is for pages only: the Node build refuses it", () => {
    expect(configError({ storage: { type: "indexeddb" } }).issues[0]!.path).toBe("storage.type");
  });

  it("S3.2 the Node build accepts server stores (refusal is the page build's, see the browser tests)", () => {
    // Not only "not BrowserStoreUnavailableError": any refusal of a server store in Node is wrong.
    for (const storage of [
      { type: "sqlite", sqlite: { path: "/tmp/x.sqlite" } },
      { type: "redis", redis: { url: "redis://127.0.0.1:1" } },
      { type: "upstash", upstash: { url: "http://127.0.0.1:1", token: "t" } },
      { type: "vercel-kv", vercelKv: { url: "http://127.0.0.1:1", token: "t" } },
    ] as const) {
      expect(ResultHandlesPlugin.init({ storage }).config.storage.type).toBe(storage.type);
    }
  });

  it("S2.1 S3.3 init opens nothing: a store that cannot exist is not touched until first use", async () => {
    const plugin = ResultHandlesPlugin.init({
      storage: { type: "sqlite", sqlite: { path: "/nonexistent-dir/x.sqlite" } },
    });
    expect(plugin.config.storage.type).toBe("sqlite");
    await expect(plugin.store()).rejects.toThrow();
  });
});

describe("S3.1 a misspelt option names the option it is close to (issue 16)", () => {
  it.each([
    [{ tllSeconds: 5 }, "tllSeconds", "unknown option tllSeconds; did you mean ttlSeconds?"],
    [{ thresholdbytes: 2048 }, "thresholdbytes", "unknown option thresholdbytes; did you mean thresholdBytes?"],
    [{ preview: { itmes: 2 } }, "preview.itmes", "unknown option itmes; did you mean items?"],
    [
      { storage: { type: "memory", timeOutMs: 5 } },
      "storage.timeOutMs",
      "unknown option timeOutMs; did you mean timeoutMs?",
    ],
    [
      { storage: { type: "memory", memory: { maxEntires: 1 } } },
      "storage.memory.maxEntires",
      "unknown option maxEntires; did you mean maxEntries?",
    ],
    [
      { storage: { type: "redis", redis: { url: "redis://h" }, redsi: {} } },
      "storage.redsi",
      "unknown option redsi; did you mean redis?",
    ],
  ])("%j at %s", (options, path, message) => {
    const error = configError(options);
    expect(error.issues).toEqual([{ path, message }]);
    expect(error.message).toContain(message);
  });

  it("a misspelt storage type is told the one it is close to, after the list of types", () => {
    expect(configError({ storage: { type: "memroy" } }).issues).toEqual([
      {
        path: "storage.type",
        message:
          'must be one of "auto", "custom", "indexeddb", "memory", "redis", ' +
          '"sqlite", "upstash", "vercel-kv"; did you mean "memory"?',
      },
    ]);
  });

  it("a name close to none stays plain, and every problem is still listed", () => {
    const error = configError({ bogus: 1, namespce: "x", ttlSeconds: 0, storage: { type: "memory", zzz: 1 } });
    expect(error.issues).toEqual(
      expect.arrayContaining([
        { path: "bogus", message: "unknown option" },
        { path: "namespce", message: "unknown option namespce; did you mean namespace?" },
        { path: "ttlSeconds", message: "must be at least 1" },
        { path: "storage.zzz", message: "unknown option" },
      ]),
    );
    expect(error.issues).toHaveLength(4);
  });
});
