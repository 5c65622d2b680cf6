/** The canonical path of S7.5 and the segments a path parses into, in their own file so that both the path front and the refusals can name places. */

/** One step of a parsed path (S7.2). */
export type PathSegment =
  | { kind: "name"; name: string } // a key, from `.name` or `['name']`
  | { kind: "index"; index: number; strict?: boolean } // a list index from `[n]`, negative from the end; strict (RFC 9535): never an object key
  | { kind: "token"; token: string }; // dot or pointer token: list index when canonical digits, else a key

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The canonical path of S7.5: `$`, `.name`, `['other name']`, `[n]`. */
export function formatPath(steps: readonly (string | number)[]): string {
  let out = "$";
  for (const step of steps) {
    if (typeof step === "number") out += `[${step}]`;
    else if (IDENTIFIER.test(step)) out += `.${step}`;
    else out += `['${JSON.stringify(step).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}']`;
  }
  return out;
}
