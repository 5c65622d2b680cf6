/**
 * Orders a wide object's keys may be in (S16.4), so that the index can keep only each batch's first key
 * and a binary search finds the one batch that can hold a name: `Object.keys` lists array indexes first, in
 * numeric order, then the other keys as inserted; keys inserted in order are either in code unit order
 * (`a` < `b`: dates, zero-padded ids) or in natural order (digit runs by value: `key9` < `key10`).
 * Each order is total (two keys compare equal only when they are the same), so for keys strictly
 * increasing in it, a name can lie only in the last batch whose first key is at or before it.
 */
export type KeyOrder = "code" | "natural";

/**
 * Whether an array index key (`"0"` to `"4294967294"`, no leading zero), which `Object.keys` lists first, in numeric
 * order (ECMA-262 OrdinaryOwnPropertyKeys).
 */
export function isIndexKey(key: string): boolean {
  const c = key.charCodeAt(0);
  if (!(c >= 48 && c <= 57) || key.length > 10 || (c === 48 && key.length > 1)) return false;
  for (let i = 1; i < key.length; i++) if (!isDigit(key.charCodeAt(i))) return false;
  return Number(key) < 4294967295;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Whether `a` sorts strictly before `b` in `order`, array indexes first. */
export function keyBefore(a: string, b: string, order: KeyOrder): boolean {
  const ia = isIndexKey(a);
  if (ia !== isIndexKey(b)) return ia;
  if (ia && a.length !== b.length) return a.length < b.length;
  return order === "code" || ia ? a < b : naturalCompare(a, b) < 0;
}

/**
 * Natural order: runs of digits compare by value (then the run with more leading zeros after), anything
 * else by code unit. Every digit run sorts where its first digit would among other characters, so the
 * order is total and transitive.
 */
function naturalCompare(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(j);
    if (!isDigit(ca) || !isDigit(cb)) {
      if (ca !== cb) return ca - cb;
      (i++, j++);
      continue;
    }
    let endA = i;
    while (endA < a.length && isDigit(a.charCodeAt(endA))) endA++;
    let endB = j;
    while (endB < b.length && isDigit(b.charCodeAt(endB))) endB++;
    let startA = i;
    while (startA < endA - 1 && a.charCodeAt(startA) === 48) startA++;
    let startB = j;
    while (startB < endB - 1 && b.charCodeAt(startB) === 48) startB++;
    if (endA - startA !== endB - startB) return endA - startA - (endB - startB); // fewer digits: smaller
    for (let k = 0; k < endA - startA; k++) {
      const d = a.charCodeAt(startA + k) - b.charCodeAt(startB + k);
      if (d !== 0) return d;
    }
    if (endA - i !== endB - j) return endA - i - (endB - j); // the same value: fewer leading zeros first
    i = endA;
    j = endB;
  }
  return a.length - i - (b.length - j);
}

/**
 * The order `keys` are strictly increasing in, if any: code unit order is checked as they come, natural order only once
 * that fails.
 */
export class OrderCheck {
  order: KeyOrder | undefined = "code";

  /** Takes the next key; `keys` are those before it. */
  next(keys: readonly string[], key: string): void {
    if (this.order === undefined || keys.length === 0) return;
    const previous = keys[keys.length - 1]!;
    if (keyBefore(previous, key, this.order)) return;
    if (this.order === "natural") return void (this.order = undefined);
    this.order = undefined;
    for (let i = 1; i < keys.length; i++) if (!keyBefore(keys[i - 1]!, keys[i]!, "natural")) return;
    if (keyBefore(previous, key, "natural")) this.order = "natural";
  }
}
