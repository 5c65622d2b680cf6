/**
 * S4.8's awkward shapes as the bench folds them: very deep, very wide, wide rows, rows of mixed kinds.
 * The bench keeps these builders as they are, so a run stays comparable with the runs it is drawn beside
 * (bench/results/*.json); the hostile-answers tests use them too and add their own beside them.
 */

/** An object nested `levels` deep: `{ level, name, note, child: { ... } }`. */
export function deepObject(levels: number, noteChars = 100): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let node = root;
  for (let i = 0; i < levels; i++) {
    const child: Record<string, unknown> = {};
    Object.assign(node, {
      level: i,
      name: `node ${i}`,
      note: "n".repeat(noteChars),
      child: i === levels - 1 ? null : child,
    });
    node = child;
  }
  return root;
}

/** A list nested `levels` deep: `[i, "item i ...", [ ... ]]`. */
export function deepList(levels: number, noteChars = 100): unknown[] {
  const root: unknown[] = [];
  let list = root;
  for (let i = 0; i < levels; i++) {
    const next: unknown[] = [];
    list.push(i, `item ${i} ${"l".repeat(noteChars)}`, next);
    list = next;
  }
  return root;
}

/** One object with `keys` keys. */
export function wideObject(keys: number): Record<string, string> {
  const object: Record<string, string> = {};
  for (let i = 0; i < keys; i++) object[`key_${String(i).padStart(6, "0")}`] = `value ${i}`;
  return object;
}

/** `{ rows }` of `count` rows of 60 keys each. */
export function wideRows(count: number): { rows: Record<string, unknown>[] } {
  return {
    rows: Array.from({ length: count }, (_, row) => {
      const item: Record<string, unknown> = {};
      for (let k = 0; k < 60; k++) item[`field_${k}`] = k % 3 === 0 ? row * k : `r${row}-f${k}`;
      return item;
    }),
  };
}

/** `{ rows }` of objects with varying keys, lists, strings, numbers and nulls. */
export function mixedRows(count: number): { rows: unknown[] } {
  const rows: unknown[] = [];
  for (let i = 0; i < count; i++) {
    switch (i % 6) {
      case 0:
        rows.push({
          id: `T-${i}`,
          title: `Ticket ${i}`,
          status: ["open", "closed"][i % 2],
          tags: ["a", i % 4 ? "b" : "c"],
        });
        break;
      case 1:
        rows.push({
          user: `u${i}`,
          roles: ["a", "b"],
          profile: { age: i % 90, city: `City ${i % 40}`, [`extra${i % 70}`]: i },
        });
        break;
      case 2:
        rows.push([i, `x${i}`, { nested: [i, i + 1] }]);
        break;
      case 3:
        rows.push(`plain text row ${i} `.repeat(3));
        break;
      case 4:
        rows.push(i * 1.5);
        break;
      default:
        rows.push(null);
    }
  }
  return { rows };
}

// S21.7's shapes: the fold must cost at most about 2× one JSON.stringify on each.

/** `{ rows }` of ticket-like rows adding up to about `bytes` of JSON. */
export function rowsOf(bytes: number): { rows: Record<string, unknown>[] } {
  const row = (i: number) => ({
    id: i,
    title: `Ticket number ${i}`,
    status: i % 3 ? "open" : "closed",
    priority: i % 5,
    owner: `user${i % 97}`,
  });
  const per = JSON.stringify(row(12345)).length + 1;
  return { rows: Array.from({ length: Math.ceil(bytes / per) }, (_, i) => row(i)) };
}

/** `{ log }`: one string of `chars` characters, in lines. */
export function longString(chars: number): { log: string } {
  const line = "2026-12-01T20:00:00Z INFO request served in 12 ms\n";
  return { log: line.repeat(Math.ceil(chars / line.length)).slice(0, chars) };
}

/** A list of `count` empty lists. */
export function emptyLists(count: number): unknown[][] {
  return Array.from({ length: count }, () => []);
}

/** A chain `{ next: { next: … } }` `levels` deep, with a small value at each level. */
export function deepChain(levels: number): Record<string, unknown> {
  let node: Record<string, unknown> = { end: true };
  for (let i = 0; i < levels; i++) node = { i, next: node };
  return node;
}
