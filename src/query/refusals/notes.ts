/**
 * The `note` of an answer (S18.2, S18.4): a search that found nothing says how much it searched, and the
 * notes of one call (lenient arguments read, an empty nodelist's missing names) join into one string, in
 * `structuredContent` and, with it, in the text.
 */
/** What a search read, in words: "a list of 200 items", "a string of 3000 lines (145804 characters)". */
export function describeSearched(value: unknown): string {
  if (typeof value === "string") {
    let lines = 1;
    for (let at = value.indexOf("\n"); at >= 0; at = value.indexOf("\n", at + 1)) lines++;
    return `a string of ${lines} ${lines === 1 ? "line" : "lines"} (${value.length} characters)`;
  }
  if (Array.isArray(value)) return plural(value.length, "a list of", "item");
  if (value !== null && typeof value === "object") return plural(Object.keys(value).length, "an object of", "key");
  return `one ${value === null ? "null" : typeof value}`;
}

export function plural(count: number, before: string, unit: string): string {
  return `${before} ${count} ${count === 1 ? unit : `${unit}s`}`;
}

/** S18.2: a search with no hit says where it looked and how much it read there. */
export function searchedNothing(needle: string, path: string, searched: string): string {
  return (
    `no string, number, boolean or key under ${path} contains ${JSON.stringify(needle)} (in any case); ` +
    `the search read all of ${path}: ${searched}`
  );
}

/** The result with the call's reading notes (S18.4) before its own note (S18.2), joined into one `note`. */
export function withNotes<Result extends { note?: string }>(
  result: Result,
  readings: readonly string[] | undefined,
): Result {
  const notes = [...(readings ?? []), ...(result.note ? [result.note] : [])];
  if (notes.length === 0) return result;
  return { ...result, note: notes.join("; ") };
}
