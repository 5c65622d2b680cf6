/**
 * The viewer page as the package serves it (S19.1): one HTML file built from this folder into
 * dist/viewer/viewer-html.js (`npm run build`, after the library), imported lazily, so a server or page
 * that never turns the viewer on never loads its 250 KB. The library builds leave that import external:
 * every build (ESM and CommonJS, Node, pages, edge) shares the one file, and a page's bundler splits it off.
 */

import { describeError, ResultHandlesError } from "../errors.js";

/** The viewer's resource: what `_meta.ui.resourceUri` names on the tools it shows. */
export const VIEWER_RESOURCE_URI = "ui://result-handles/viewer";

/** The app-only tool the viewer reads folded answers with (S19.2). */
export const RESULT_VIEW_TOOL_NAME = "result_view";

let html: Promise<string> | undefined;

/** The viewer's HTML: script and styles inlined, nothing loaded from anywhere. */
export function loadViewerHtml(): Promise<string> {
  // @ts-ignore: dist/viewer/viewer-html.js (with its .d.ts) exists once the package is built; typechecks pass either
  // way.
  html ??= import("../../dist/viewer/viewer-html.js").then(
    (module: { default: string }) => module.default,
    (error: unknown) => {
      html = undefined; // a later call tries again
      // Only a source checkout without a build lands here: the package ships the file.
      throw new ResultHandlesError(
        "INVALID_USAGE",
        `The result viewer's page is not built (dist/viewer/viewer-html.js): ` +
          `run npm run build (${describeError(error)})`,
      );
    },
  );
  return html;
}
