// S17.1 the edge build (Cloudflare Workers, Vercel Edge): what the built file holds, and what its init refuses.
// The Workers test (workers.test.ts) runs it in workerd; this one reads dist/edge and runs its sources in Node.
import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as edge from "../../src/runtimes/edge/index.js";
import * as node from "../../src/runtimes/node/index.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The code of a built entry and of every package-local chunk it imports, comments left out. */
function builtCode(entry: string): { code: string; specifiers: Set<string> } {
  const seen = new Set<string>();
  const specifiers = new Set<string>();
  let code = "";
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/^\s*\/\/.*$/gm, "");
    code += text;
    for (const match of text.matchAll(
      /(?:import|export)\s*(?:[^"'`]*?from\s*)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|require\(\s*["']([^"']+)["']\s*\)/g,
    )) {
      const specifier = match[1] ?? match[2] ?? match[3]!;
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier));
      else specifiers.add(specifier);
    }
  };
  visit(join(root, entry));
  return { code, specifiers };
}

describe("S17.1 the edge build as built", () => {
  for (const entry of ["dist/edge/index.js", "dist/edge/index.cjs"]) {
    it(
      `${entry} imports no Node module, only zod, json-p3, re2js, tokenx and ` +
        `@upstash/redis's fetch-only entry (the last two loaded on first use)`,
      () => {
        const { code, specifiers } = builtCode(entry);
        const nodeModules = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);
        expect(
          [...specifiers].filter((specifier) => nodeModules.has(specifier) || specifier.startsWith("node:")),
        ).toEqual([]);
        // json-p3 and re2js (JSONPath and its linear-time regex, S14.1, S14.3) and tokenx (S18.6, imported only
        // with thresholdTokens) are plain JavaScript, no Node API.
        expect([...specifiers].sort()).toEqual(["@upstash/redis/cloudflare", "json-p3", "re2js", "tokenx", "zod"]);
        expect(code).toContain('import("@upstash/redis/cloudflare")');
        for (const name of ["ioredis", "better-sqlite3", "idb-keyval"]) expect(code).not.toContain(name);
      },
    );

    it(
      `${entry} touches Buffer and process only as globalThis.Buffer and ` +
        `globalThis.process, where a runtime may lack them`,
      () => {
        const { code } = builtCode(entry);
        // Strings aside (log texts name them), every other mention must be a guarded property of globalThis.
        const bare = [
          ...code
            .replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g, '""')
            .matchAll(/(\S{0,12})\b(Buffer|process)\b(?!\s*:)/g),
        ]
          .filter((match) => !match[1]!.endsWith("globalThis.") && !match[1]!.endsWith("globalThis?."))
          .map((match) => match[0]);
        expect(bare).toEqual([]);
      },
    );
  }
});

describe("S17.1 the edge build's storage", () => {
  it("has the same API as the Node build", () => {
    expect(Object.keys(edge).sort()).toEqual(Object.keys(node).sort());
  });

  for (const type of ["redis", "sqlite"]) {
    it(`refuses ${type} at init with a coded error naming it and the stores that run there`, () => {
      const storage =
        type === "redis" ? { type, redis: { url: "redis://127.0.0.1:6379" } } : { type, sqlite: { path: "x.sqlite" } };
      let thrown: unknown;
      try {
        edge.ResultHandlesPlugin.init({ storage } as never);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(edge.ResultHandlesError);
      expect(thrown).toBeInstanceOf(edge.EdgeStoreUnavailableError);
      expect((thrown as edge.ResultHandlesError).code).toBe("STORAGE_UNAVAILABLE");
      const message = (thrown as Error).message;
      expect(message).toContain(`"${type}"`);
      for (const runs of ["memory", "upstash", "vercel-kv", "custom"]) expect(message).toContain(`"${runs}"`);
      expect(message).not.toContain('"indexeddb"');
    });
  }

  it("refuses indexeddb too, and the same from createResultHandleStore", async () => {
    expect(() => edge.ResultHandlesPlugin.init({ storage: { type: "indexeddb" } })).toThrow(
      edge.EdgeStoreUnavailableError,
    );
    await expect(
      edge.createResultHandleStore({ storage: { type: "redis" }, namespace: "n", ttlSeconds: 60 } as never),
    ).rejects.toThrow(/"redis" cannot run in an edge runtime/);
  });

  it("auto is memory there, whatever the environment says (a Worker's settings come as bindings)", () => {
    const saved = process.env.UPSTASH_REDIS_REST_URL;
    process.env.UPSTASH_REDIS_REST_URL = "http://127.0.0.1:1";
    process.env.UPSTASH_REDIS_REST_TOKEN = "t";
    try {
      const plugin = edge.ResultHandlesPlugin.init();
      expect(plugin.get(edge.ResultHandlesConfigToken).storage).toMatchObject({
        type: "memory",
        memory: { maxBytes: 32 * 1024 * 1024 },
      });
    } finally {
      if (saved === undefined) delete process.env.UPSTASH_REDIS_REST_URL;
      else process.env.UPSTASH_REDIS_REST_URL = saved;
      delete process.env.UPSTASH_REDIS_REST_TOKEN;
    }
  });

  it("takes upstash and vercel-kv with their credentials given", () => {
    for (const storage of [
      { type: "upstash", upstash: { url: "https://u", token: "t" } },
      { type: "vercel-kv", vercelKv: { url: "https://v", token: "t" } },
    ] as const) {
      expect(edge.ResultHandlesPlugin.init({ storage }).get(edge.ResultHandlesConfigToken).storage.type).toBe(
        storage.type,
      );
    }
  });
});
