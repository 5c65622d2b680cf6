/**
 * Answers of awkward shapes (S4.8): very deep, very wide, wide rows, rows of mixed kinds. The builders
 * the bench folds are its own (bench/shapes.ts, kept as they are so runs stay comparable); the tests use
 * the same ones, and add what only they need.
 */
export { deepList, deepObject, mixedRows, wideObject, wideRows } from "../../bench/shapes.js";

/** Lists inside lists, `levels` deep, nothing else: `[[[...]]]`. */
export function bareDeepList(levels: number): unknown[] {
  const root: unknown[] = [];
  let list = root;
  for (let i = 1; i < levels; i++) {
    const next: unknown[] = [];
    list.push(next);
    list = next;
  }
  return root;
}
