/**
 * The places a search over overlapping start nodes has searched (S14.4: one hit per place). A JSONPath
 * nodelist may name a place twice or nest one node in another (`$..*`, `$['rows','rows']`, `$[*,*]`):
 * a container is walked once (told by its value), and a leaf is searched once, whether it lies under a
 * container walked before or was itself a start node before (told by its parent and its key there).
 */
/** Where a search starts: a value, its steps from the root and, for overlapping start nodes, how to place it. */
export interface StartNode {
  value: unknown;
  /** Keys and list indexes from the root to the node. */
  readonly steps: readonly (string | number)[];
  /**
   * For overlapping start nodes: the values of the containers above it, nearest first, and its key in its parent
   * (below).
   */
  ancestors?(): Iterable<unknown>;
  key?(): string | number | undefined;
}

export class SearchedPlaces {
  private readonly walked = new Set<object>();
  /** Leaves searched as start nodes, by parent: their key, or the set of their keys (most parents give one). */
  private readonly leaves = new Map<object, string | number | Set<string | number>>();

  /** `tick` counts one step on the search's meter (S14.3). */
  constructor(private readonly tick: () => void) {}

  /** Notes a container about to be walked; false when it was walked already. */
  enter(container: object): boolean {
    if (this.walked.has(container)) return false;
    this.walked.add(container);
    return true;
  }

  /** Whether a start node was searched already; a leaf that was not is noted as searched now. */
  covered(node: StartNode): boolean {
    if (node.value !== null && typeof node.value === "object") return this.walked.has(node.value);
    // Under a container walked: looked for from its parent up (in `$..*` the parent was walked just
    // before), never by building its path (20,000 deep, that cost seconds).
    let parent: unknown;
    let first = true;
    for (const container of node.ancestors?.() ?? []) {
      this.tick();
      if (first) ((parent = container), (first = false));
      if (this.walked.has(container as object)) return true;
    }
    const key = node.key?.();
    if (parent === null || typeof parent !== "object" || key === undefined) return false;
    const seen = this.leaves.get(parent);
    if (seen === key || (seen instanceof Set && seen.has(key))) return true;
    if (seen === undefined) this.leaves.set(parent, key);
    else if (seen instanceof Set) seen.add(key);
    else this.leaves.set(parent, new Set([seen, key]));
    return false;
  }
}
