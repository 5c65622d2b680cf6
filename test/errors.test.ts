// S13.4: every error the package throws carries a `code` and extends ResultHandlesError.
import { McpServer } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as nodeBuild from "../src/runtimes/node/index.js";
import * as pageBuild from "../src/runtimes/browser/index.js";
import { AnswerKeys } from "../src/records/crypto/keys.js";
import { webCryptoBackend } from "../src/records/crypto/webcrypto.js";
import { withinTimeout } from "../src/storage/timeout.js";
import { serializeAnswerYielding } from "../src/records/format/serialize.js";

const {
  BrowserStoreUnavailableError,
  ResultHandlesConfigurationError,
  ResultHandlesError,
  ResultHandlesPlugin,
  MemoryStorage,
  ResultHandlesPluginCore,
  ResultQueryError,
  StoreTimeoutError,
  UnsupportedMcpServerError,
} = nodeBuild;

/** One sample of each exported error class, with the code it must carry. */
const samples: Record<string, { make: () => Error; code: string }> = {
  ResultHandlesError: { make: () => new ResultHandlesError("INVALID_USAGE", "x"), code: "INVALID_USAGE" },
  ResultHandlesConfigurationError: {
    make: () => new ResultHandlesConfigurationError([{ path: "ttlSeconds", message: "must be at least 1" }]),
    code: "RESULT_HANDLES_CONFIGURATION",
  },
  BrowserStoreUnavailableError: {
    make: () => new BrowserStoreUnavailableError("redis"),
    code: "BROWSER_STORE_UNAVAILABLE",
  },
  ResultQueryError: { make: () => new ResultQueryError("RESULT_PATH_NOT_FOUND", "x"), code: "RESULT_PATH_NOT_FOUND" },
  UnsupportedMcpServerError: {
    make: () => new UnsupportedMcpServerError("it has no registerTool()"),
    code: "UNSUPPORTED_MCP_SERVER",
  },
  StoreTimeoutError: { make: () => new StoreTimeoutError("get", 5), code: "STORE_TIMEOUT" },
};

function exportedErrorClasses(build: Record<string, unknown>): string[] {
  return Object.entries(build)
    .filter(
      ([, value]) =>
        typeof value === "function" &&
        (value === Error || (value as { prototype?: unknown }).prototype instanceof Error),
    )
    .map(([name]) => name)
    .sort();
}

async function thrown(action: () => unknown): Promise<unknown> {
  try {
    await action();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

function expectCoded(error: unknown, code: string) {
  expect(error).toBeInstanceOf(ResultHandlesError);
  expect((error as { code: string }).code).toBe(code);
}

describe("S13.4 one base error class with codes", () => {
  it("every error class either build exports extends ResultHandlesError (whose constructor requires a code)", () => {
    for (const build of [nodeBuild, pageBuild] as Record<string, unknown>[]) {
      const classes = exportedErrorClasses(build);
      expect(classes).toEqual(expect.arrayContaining(Object.keys(samples)));
      for (const name of classes) {
        const errorClass = build[name] as { prototype: object };
        expect(errorClass === ResultHandlesError || errorClass.prototype instanceof ResultHandlesError, name).toBe(
          true,
        );
      }
    }
  });

  for (const [name, { make, code }] of Object.entries(samples)) {
    it(`${name} extends ResultHandlesError, carries code ${code} and its own name`, () => {
      const error = make();
      expectCoded(error, code);
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe(name);
      expect(error.message.length).toBeGreaterThan(0);
    });
  }

  it("both builds share the same base class, so one instanceof check covers both", () => {
    expect(pageBuild.ResultHandlesError).toBe(nodeBuild.ResultHandlesError);
  });
});

describe("docs/api.md: the errors table", () => {
  it(
    "names every exported error class and every code but the result_query ones (listed in their " + "own table)",
    async () => {
      const { readFileSync } = await import("node:fs");
      const page = readFileSync(new URL("../docs/api.md", import.meta.url), "utf8");
      const table = page.slice(page.indexOf("\n## Errors\n"));
      const source = readFileSync(new URL("../src/errors.ts", import.meta.url), "utf8");
      const allCodes = source.slice(
        source.indexOf("export type ResultHandlesErrorCode"),
        source.indexOf("export type ResultQueryErrorCode"),
      );
      const codes = [...allCodes.matchAll(/\| "([A-Z_]+)"/g)].map((match) => match[1]!);
      expect(codes).toContain("RESULT_HANDLES_CONFIGURATION");
      for (const code of codes) expect(table, code).toContain(`\`${code}\``);
      for (const name of exportedErrorClasses(nodeBuild)) expect(table, name).toContain(`\`${name}\``);
    },
  );
});

describe("S13.4 the throw sites use coded errors", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("install on a server without the SDK internals: UNSUPPORTED_MCP_SERVER", async () => {
    const plugin = ResultHandlesPlugin.init({ storage: { type: "memory" } });
    const notAnSdkServer = { registerTool: () => undefined };
    expectCoded(await thrown(() => plugin.install(notAnSdkServer)), "UNSUPPORTED_MCP_SERVER");
    // The real SDK server still installs.
    expect(() => plugin.install(new McpServer({ name: "t", version: "1" }))).not.toThrow();
  });

  it("a store call past its timeout: STORE_TIMEOUT", async () => {
    expectCoded(await thrown(() => withinTimeout(new Promise(() => undefined), 5, "get")), "STORE_TIMEOUT");
  });

  it("S9.3 a memory store given an answer larger than its maxBytes: STORE_FULL", async () => {
    const memory = new MemoryStorage("ns", { maxBytes: 10 });
    expectCoded(await thrown(() => memory.set("k", new Uint8Array(11), 60)), "STORE_FULL");
    await memory.close();
  });

  it("S9.3 an answer in pieces larger than a memory store's maxBytes, though each piece fits: STORE_FULL", async () => {
    const memory = new MemoryStorage("ns", { maxBytes: 16 * 1024 });
    const store = new nodeBuild.ResultHandleStore(memory, 60, { pieceBytes: 4 * 1024 });
    const rows = Array.from({ length: 2000 }, (_, i) => ({ id: i, title: `row ${i}` }));
    expectCoded(await thrown(() => store.save(store.newHandle(), rows, { session: "s" })), "STORE_FULL");
    await memory.close();
  });

  it(
    "seal or save with a handle that is not a UUID v4 (a caller's bug, not a refused query): " + "INVALID_USAGE",
    async () => {
      const store = new nodeBuild.ResultHandleStore(new MemoryStorage("ns"), 60);
      expectCoded(await thrown(() => store.save("not-a-uuid", [1], { session: "s" })), "INVALID_USAGE");
      const json = await serializeAnswerYielding([1]);
      expectCoded(
        await thrown(() => store.seal("6f1c3c1e-8c39-1a57-9a52-8d6c4c1b2f10", json, { session: "s" })),
        "INVALID_USAGE",
      );
    },
  );

  it("no WebCrypto in the runtime: WEBCRYPTO_UNAVAILABLE", async () => {
    vi.stubGlobal("crypto", undefined);
    // The WebCrypto path (pages; Node derives keys with node:crypto).
    const error = await thrown(() =>
      AnswerKeys.derive("6f1c3c1e-8c39-4a57-9a52-8d6c4c1b2f10", { session: "s" }, webCryptoBackend),
    );
    expectCoded(error, "WEBCRYPTO_UNAVAILABLE");
  });

  it("an unknown token and the bare core class: INVALID_USAGE", async () => {
    const plugin = ResultHandlesPlugin.init({ storage: { type: "memory" } });
    expectCoded(await thrown(() => plugin.get(Symbol("other") as never)), "INVALID_USAGE");
    expectCoded(await thrown(() => ResultHandlesPluginCore.init()), "INVALID_USAGE");
  });

  it("bad options: RESULT_HANDLES_CONFIGURATION; a server store in a page: BROWSER_STORE_UNAVAILABLE", async () => {
    expectCoded(await thrown(() => ResultHandlesPlugin.init({ thresholdBytes: 1 })), "RESULT_HANDLES_CONFIGURATION");
    expectCoded(
      await thrown(() => pageBuild.ResultHandlesPlugin.init({ storage: { type: "sqlite", sqlite: { path: "x.db" } } })),
      "BROWSER_STORE_UNAVAILABLE",
    );
  });
});

describe("S7.6 the result_query codes, one list", () => {
  it(
    "the tool's outputSchema lists exactly the codes of errors.ts, and " +
      "each is a ResultHandlesErrorCode of a ResultQueryError",
    async () => {
      const { RESULT_QUERY_ERROR_CODES } = await import("../src/errors.js");
      const tool = new nodeBuild.ResultQueryTool(() => []);
      const schema = tool.outputJsonSchema as {
        properties: { error: { properties: { code: { enum: readonly string[] } } } };
      };
      expect(schema.properties.error.properties.code.enum).toEqual([...RESULT_QUERY_ERROR_CODES]);
      expect(RESULT_QUERY_ERROR_CODES).toEqual([
        "RESULT_HANDLE_NOT_FOUND",
        "RESULT_PATH_NOT_FOUND",
        "RESULT_SLICE_TOO_LARGE",
        "INVALID_INPUT",
        "RESULT_STORE_UNAVAILABLE",
      ]);
      for (const code of RESULT_QUERY_ERROR_CODES) expectCoded(new ResultQueryError(code, "x"), code);
    },
  );
});
