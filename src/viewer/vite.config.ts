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
    for (const [name, file] of Object.entries(bundle)) {
      if (file.type === "chunk") {
        const code = file.code.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
        html = html.replace(new RegExp(`<script type="module" crossorigin src="[^"]*${escape(name)}"></script>`), () => `<script type="module">${code}</script>`);
        delete bundle[name];
      } else if (name.endsWith(".css")) {
        html = html.replace(new RegExp(`<link rel="stylesheet" crossorigin href="[^"]*${escape(name)}">`), () => `<style>${String(file.source)}</style>`);
        delete bundle[name];
      }
    }
    if (/<script[^>]*\ssrc=|<link[^>]*\shref="(?!data:)/i.test(html)) throw new Error("viewer build: a script or stylesheet was left outside the page");
    delete bundle["index.html"];
    this.emitFile({ type: "asset", fileName: "viewer-html.js", source: `export default ${JSON.stringify(html)};\n` });
    this.emitFile({ type: "asset", fileName: "viewer-html.d.ts", source: "declare const html: string;\nexport default html;\n" });
  },
};

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
