// How the docs pages write a result_query answer after `←`, so UPDATE_DOCS_EXCHANGES=1 can write them again
// from what the code answers (readme-exchanges.test.ts): JSON with a space inside braces and after commas,
// as the pages were written by hand, and a refusal's text wrapped at about 110 characters.

/** A JSON value on one line, `{ "key": value, … }` and `[a, b]`. */
export function spaced(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(spaced).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    return entries.length === 0
      ? "{}"
      : `{ ${entries.map(([key, item]) => `${JSON.stringify(key)}: ${spaced(item)}`).join(", ")} }`;
  }
  return JSON.stringify(value);
}

/** The `←` lines of one answer: a JSON answer on one line, or the refusal's text in lines of about 110. */
export function answerLines(answer: { json: unknown } | { text: string }): string[] {
  if ("json" in answer) return jsonLines(answer.json);
  const lines: string[] = [];
  let line = "←";
  for (const word of answer.text.split(/\s+/)) {
    if (line.length + word.length + 1 > 110 && line.trim() !== "←") {
      lines.push(line);
      line = " ";
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}

/** A JSON answer on one line, or, past about 110 characters, its `value` list one item a line. */
function jsonLines(json: unknown): string[] {
  const line = `← ${spaced(json)}`;
  const value = (json as { value?: unknown }).value;
  if (line.length <= 110 || !Array.isArray(value) || value.length < 2) return [line];
  const entries = Object.entries(json as Record<string, unknown>);
  const at = entries.findIndex(([key]) => key === "value");
  const member = ([key, item]: [string, unknown]) => `${JSON.stringify(key)}: ${spaced(item)}`;
  const before = entries.slice(0, at).map(member).join(", ");
  const after = entries
    .slice(at + 1)
    .map(member)
    .join(", ");
  return [
    `← { ${before ? `${before}, ` : ""}"value": [`,
    ...value.map((item, i) => `      ${spaced(item)}${i < value.length - 1 ? "," : "]" + (after ? "," : " }")}`),
    ...(after ? [`    ${after} }`] : []),
  ];
}
