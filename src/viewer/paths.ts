/** Canonical paths (S7.5) as the viewer builds and reads them: `$`, `.name`, `['name']`, `[n]`. */
export type Key = string | number;

const NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function pathOf(keys: readonly Key[]): string {
  let path = "$";
  for (const key of keys) {
    if (typeof key === "number") path += `[${key}]`;
    else if (NAME.test(key)) path += `.${key}`;
    else path += `['${JSON.stringify(key).slice(1, -1).replace(/'/g, "\\u0027").replace(/\\"/g, '"')}']`;
  }
  return path;
}

/** The keys of a canonical path, or undefined for anything else (a filter, a dot path). */
export function keysOf(path: string): Key[] | undefined {
  if (!path.startsWith("$")) return undefined;
  const keys: Key[] = [];
  const step = /\.([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]/y;
  step.lastIndex = 1;
  while (step.lastIndex < path.length) {
    const match = step.exec(path);
    if (!match) return undefined;
    if (match[1] !== undefined) keys.push(match[1]);
    else if (match[2] !== undefined) keys.push(Number(match[2]));
    else keys.push(JSON.parse(`"${match[3]!.replace(/\\'/g, "'").replace(/"/g, '\\"')}"`) as string);
  }
  return keys;
}

/** The value at `keys` inside a local value (an answer that did not fold, or the preview). */
export function valueAt(value: unknown, keys: readonly Key[]): unknown {
  let at = value;
  for (const key of keys) {
    if (at === null || typeof at !== "object" || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key as string];
  }
  return at;
}
