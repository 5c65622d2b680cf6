// The page bundle that `vite preview` serves (built by the webServer step before any test runs).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { expect, test } from "@playwright/test";

const assets = "dist-playground/assets";

/** The packages a bundle's sourcemap names, each by the node_modules folder it came from. */
function bundledPackages(): Map<string, string[]> {
  const packages = new Map<string, string[]>();
  for (const file of readdirSync(assets).filter((name) => name.endsWith(".js.map"))) {
    for (const source of JSON.parse(readFileSync(join(assets, file), "utf8")).sources as string[]) {
      const at = source.lastIndexOf("node_modules/");
      if (at < 0) continue;
      const parts = source.slice(at + "node_modules/".length).split("/");
      const name = parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
      const folder = source.slice(0, at).replace(/^(\.\.\/)+/, "") + `node_modules/${name}`;
      packages.set(name, [...new Set([...(packages.get(name) ?? []), folder])]);
    }
  }
  return packages;
}

test("S10.2 the page bundle holds one copy of the MCP SDK: the WebMCP polyfill brings none", () => {
  const packages = bundledPackages();
  expect(packages.get("@mcp-b/webmcp-polyfill")).toEqual(["node_modules/@mcp-b/webmcp-polyfill"]);
  expect(packages.get("@modelcontextprotocol/server")).toEqual(["node_modules/@modelcontextprotocol/server"]);
  for (const [name, folders] of packages) {
    expect(folders, `${name} bundled from more than one folder`).toHaveLength(1);
    expect(folders[0], `${name} is a nested copy`).toBe(`node_modules/${name}`);
  }
  expect([...packages.keys()].filter((name) => name.startsWith("@mcp-b/"))).toEqual(["@mcp-b/webmcp-polyfill"]);
});

test("the page bundle's size, gzip (reported), and the batch worker's apart", () => {
  let raw = 0;
  let gzip = 0;
  let worker = 0;
  let viewer = 0;
  for (const file of readdirSync(assets).filter((name) => /\.(js|css)$/.test(name))) {
    const bytes = readFileSync(join(assets, file));
    // The batch worker (S14.6) is its own file, fetched only when a filter over a large answer starts it.
    if (file.startsWith("batch-worker-")) {
      worker += gzipSync(bytes, { level: 9 }).byteLength;
      continue;
    }
    // The result viewer's page (S19.4) is its own file too, fetched when the first answer is shown.
    if (file.startsWith("viewer-html-")) {
      viewer += gzipSync(bytes, { level: 9 }).byteLength;
      continue;
    }
    raw += bytes.byteLength;
    gzip += gzipSync(bytes, { level: 9 }).byteLength;
  }
  test.info().annotations.push({
    type: "bundle",
    description:
      `${raw} bytes, ${gzip} bytes gzip (JS + CSS); batch worker ` +
      `${worker} bytes gzip; viewer ${viewer} bytes gzip`,
  });
  console.log(
    `playground bundle: ${raw} bytes, ${gzip} bytes gzip (JS + CSS); batch ` +
      `worker: ${worker} bytes gzip; viewer page: ${viewer} bytes gzip`,
  );
  // Two MCP SDK packages (client, server) and zod make most of it; then JSONPath (json-p3) and its
  // linear-time regex engine (re2js, S14.3): 211 KB measured when this bound was raised from 200 KB; then the
  // viewer's host side (ext-apps AppBridge, S19.4: about 19 KB) and sections 18 and 21 (hints from the
  // answer, notes of empty answers, the cost meter: about 10 KB): 240.5 KB measured when raised to 250 KB;
  // then sections 23 to 26 (aggregates, host cuts, the notes of values seen, holds in wide objects: about
  // 13 KB, all of it the package's own query code): 253.9 KB measured when raised to 262 KB.
  expect(gzip).toBeLessThan(262_000);
  // The worker holds JSONPath and re2js again (a worker shares no code with the page): 62 KB measured.
  expect(worker).toBeGreaterThan(0);
  expect(worker).toBeLessThan(80_000);
  // The viewer's one HTML file as a string (S19.5 bounds it at 80 KB gzip).
  expect(viewer).toBeGreaterThan(0);
  expect(viewer).toBeLessThan(82_000);
});
