/** The canonical path of S7.5, in its own file so that both the path front and the refusals can name places. */
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
