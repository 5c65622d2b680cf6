/**
 * The canonical path of S7.5 and the segments a path parses into, in their own file so that both the path front and the
 * refusals can name places.
 */

/** One step of a parsed path (S7.2). */
export type PathSegment =
  | { kind: "name"; name: string } // a key, from `.name` or `['name']`
  // a list index from `[n]`, negative from the end; strict (RFC 9535): never an object key
  | { kind: "index"; index: number; strict?: boolean }
  | { kind: "token"; token: string }; // dot or pointer token: list index when canonical digits, else a key

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The canonical path of S7.5: `$`, `.name`, `['other name']`, `[n]`. */
export function formatPath(steps: readonly (string | number)[]): string {
  // A path of many steps is joined from its parts: added one by one, it would be a chain of pieces holding about
  // 20 times its characters (an aggregate keeps up to three paths a group, S24.3: 2,000 paths 1,000 steps deep
  // held 112 MB instead of 6). A short one is added, which is twice as fast.
  if (steps.length > JOINED_STEPS) return "$" + steps.map(stepText).join("");
  let out = "$";
  for (const step of steps) out += stepText(step);
  return out;
}

const JOINED_STEPS = 16;

function stepText(step: string | number): string {
  if (typeof step === "number") return `[${step}]`;
  if (IDENTIFIER.test(step)) return `.${step}`;
  return `['${JSON.stringify(step).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}']`;
}
