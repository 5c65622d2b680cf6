/**
 * Where a JSONPath node is (S14.3): a node's place as a parent link, so a node 3000 levels deep costs one
 * step, not a copy of its path. What an evaluation costs is charged to the call's meter (`CostMeter`).
 */

/** A node's place as a parent link: `concat` (the only thing json-p3 does with a location) is one step. */
export class Location {
  constructor(
    readonly parent: Location | undefined,
    readonly step: string | number,
    /** The value here, when the root's was given: a search over overlapping nodes looks up its ancestors (S14.4). */
    readonly value?: unknown,
  ) {}
  concat(step: string | number): Location {
    const container = this.value;
    return new Location(
      this,
      step,
      container !== null && typeof container === "object"
        ? (container as Record<string | number, unknown>)[step]
        : undefined,
    );
  }
  /** The values of the containers above this place, nearest first. */
  *ancestors(): Generator<unknown> {
    for (let at = this.parent; at; at = at.parent) yield at.value;
  }
  /** Keys and indexes from the root, for the canonical path of a node that is returned. */
  steps(): (string | number)[] {
    const out: (string | number)[] = [];
    for (let at: Location | undefined = this; at?.parent; at = at.parent) out.push(at.step);
    return out.reverse();
  }
}
