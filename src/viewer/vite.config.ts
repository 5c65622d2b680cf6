import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";

const root = fileURLToPath(new URL(".", import.meta.url));
const outDir = fileURLToPath(new URL("../../dist/viewer", import.meta.url));

/**
 * One self-contained HTML file (S19.1): the script and styles inlined, nothing loaded from anywhere. A
 * `</script` or `<!--` inside the script's text is escaped (as `<\/script`, `<\!--`, the same in any JS
 * string or pattern), so the file's own markup cannot end early. It is written as `viewer-html.js`, the
 * page as a string, which every build of the package imports lazily to serve `ui://result-handles/viewer`.
 */
const singleFile: Plugin = {
  name: "viewer-single-file",
  enforce: "post",
  generateBundle(_options, bundle) {
    const page = bundle["index.html"];
    if (!page || page.type !== "asset") throw new Error("viewer build: no index.html");
    let html = String(page.source);
    const rendered = Object.values(bundle).flatMap((file) =>
      file.type === "chunk"
        ? Object.entries(file.modules)
            .filter(([, module]) => module.renderedLength > 0)
            .map(([id]) => id)
        : [],
    );
    for (const [name, file] of Object.entries(bundle)) {
      if (file.type === "chunk") {
        const code = file.code.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
        html = html.replace(
          new RegExp(`<script type="module" crossorigin src="[^"]*${escape(name)}"></script>`),
          () => `<script type="module">${code}</script>`,
        );
        delete bundle[name];
      } else if (name.endsWith(".css")) {
        html = html.replace(
          new RegExp(`<link rel="stylesheet" crossorigin href="[^"]*${escape(name)}">`),
          () => `<style>${String(file.source)}</style>`,
        );
        delete bundle[name];
      }
    }
    if (/<script[^>]*\ssrc=|<link[^>]*\shref="(?!data:)/i.test(html))
      throw new Error("viewer build: a script or stylesheet was left outside the page");
    delete bundle["index.html"];
    // The packages bundled into the page, named in it, with their license texts in a file beside it.
    const packages = bundledPackages(rendered);
    const notice = packages.map((pkg) => `${pkg.name} ${pkg.version} (${pkg.license})`).join(", ");
    html = html.replace(
      /^(<!doctype html>)/i,
      `$1\n<!-- mcp-result-handles result viewer. Bundles ${notice}; ` +
        `license texts: dist/viewer/THIRD-PARTY-LICENSES.txt in the mcp-result-handles package. -->`,
    );
    const texts = packages
      .map((pkg) => `${pkg.name} ${pkg.version} (${pkg.license})\n\n${pkg.text}`)
      .join(`\n\n${"-".repeat(72)}\n\n`);
    this.emitFile({ type: "asset", fileName: "THIRD-PARTY-LICENSES.txt", source: texts });
    this.emitFile({ type: "asset", fileName: "viewer-html.js", source: `export default ${JSON.stringify(html)};\n` });
    this.emitFile({
      type: "asset",
      fileName: "viewer-html.d.ts",
      source: "declare const html: string;\nexport default html;\n",
    });
  },
};

/** Each package of node_modules a module of the bundle came from: name, version, license and its text. */
function bundledPackages(moduleIds: string[]) {
  const roots = new Set<string>();
  for (const id of moduleIds) {
    const at = id.lastIndexOf("/node_modules/");
    if (at < 0) continue;
    const parts = id.slice(at + "/node_modules/".length).split("/");
    roots.add(
      id.slice(0, at + "/node_modules/".length) + (parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!),
    );
  }
  return [...roots].sort().map((dir) => {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
      name: string;
      version: string;
      license?: string;
    };
    const file = ["LICENSE", "LICENSE.md", "LICENSE.txt"]
      .map((name) => join(dir, name))
      .find((path) => existsSync(path));
    return {
      name: pkg.name,
      version: pkg.version,
      license: pkg.license ?? "see its package",
      text: file ? readFileSync(file, "utf8").trim() : "(no license file in the package)",
    };
  });
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export default defineConfig({
  root,
  base: "./",
  logLevel: "warn",
  plugins: [singleFile],
  build: {
    outDir,
    emptyOutDir: true,
    target: "es2022",
    minify: true,
    modulePreload: false,
    cssCodeSplit: false,
    assetsInlineLimit: Number.MAX_SAFE_INTEGER,
    reportCompressedSize: false,
    rolldownOptions: { tsconfig: false, output: { codeSplitting: false } },
  },
});
