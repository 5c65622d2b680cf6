/**
 * Descendants by name above indexed lists (S14.6): `$..title` over `{ meta, rows: [...], total }` reads what
 * lies outside the lists once, and each list batch by batch where it stands, instead of the whole answer.
 * The walk is RFC 9535's descendant order (2.5.2: a node, then its children in order, depth first), as
 * `descend` takes it: outside the lists on an explicit stack here, and each list's items as
 * the query `<the list's path>..title` reads them (an item plan, so a large list is counted on the batch
 * workers too, `listNodes`). So nodes, order, paths, `total` and pages are those over the whole value.
 * Chosen only where names cannot select a list, long string or wide object itself, and no wide object
 * lies below (`selectorFor`).
 */
import { JSONPathNode } from "json-p3";
import type { AnswerReader } from "../../records/read/answer-reader.js";
import { hasOwn, keyListOf } from "../../util/json.js";
import {
  Location,
  runFrom,
  selectFrom,
  tick,
  useMeter,
  type JsonPathNode,
  type CostMeter,
} from "../jsonpath/jsonpath.js";
import { descendantsPlanAt, type ItemPlan } from "../jsonpath/item-plan.js";
import { listNodes } from "./list-nodes.js";
import { memberNodes } from "./member-nodes.js";
import type { PiecedObject } from "../../records/read/pieced-object.js";
import { SAMPLED_KEYS } from "../refusals/member-watch.js";
import type { NodeSink } from "./node-sink.js";
import type { BatchWorkers } from "../workers/pool.js";

type Entry =
  | { value: unknown; location: Location }
  | { list: number; location: Location }
  | { object: number; location: Location };

/**
 * The nodes of `items` (descendants by name) in the reader's outside parts and lists, into `pager`, in order. A
 * piece that cannot be read throws the reader's `ReadFailed`.
 */
export async function descendantNodes(
  reader: AnswerReader,
  items: ItemPlan,
  query: string,
  pager: NodeSink,
  meter: CostMeter,
  workers?: BatchWorkers,
): Promise<void> {
  const { names, segments, rest } = items.descendants ?? unreachable();
  const emit = (nodes: Iterable<JSONPathNode>) => {
    for (const node of selectFrom(runFrom(rest, nodes), query, meter) as Iterable<JsonPathNode>)
      if (!pager.add(node)) return false;
    return true;
  };
  let start: unknown = reader.root;
  let location = new Location(undefined, "");
  for (const name of items.names) {
    // nothing there
    if (start === null || typeof start !== "object" || Array.isArray(start) || !hasOwn(start, name)) return;
    start = (start as Record<string, unknown>)[name];
    location = location.concat(name);
    useMeter(meter);
    tick(); // the node each name step yields, as `runFrom` counts it
  }
  // a wide object where the names lead (S26.1): walked from its member batches, as one met below
  const startObject = reader.objects.findIndex(
    ({ path }) => path.length === items.names.length && path.every((key, i) => key === items.names[i]),
  );
  const stack: Entry[] = [startObject >= 0 ? { object: startObject, location } : { value: start, location }];
  const watched = meter.watch?.plan.descendants.get(segments[0]!); // S18.2: the names, as `descend` watches them
  while (stack.length > 0) {
    const entry = stack.pop()!;
    useMeter(meter);
    tick(); // each value the walk visits, lists included, as `descend` counts them
    if ("list" in entry) {
      // Each item of the list, then its descendants, in order: the item plan of `<list>..names<rest>`.
      const steps = entry.location.steps();
      const at = descendantsPlanAt(steps, segments, rest);
      const plan = items.roots ? { ...at, roots: items.roots } : at; // bound as the query is (S26.1)
      const ended = await listNodes(
        reader,
        entry.list,
        plan,
        { list: query, asked: query, at: steps },
        pager,
        meter,
        workers,
      );
      if (ended === "stopped") return; // the page was refused as too large: nothing more to read
      continue;
    }
    if ("object" in entry) {
      // A wide object (S26.1): the names in it, found by the index, then each member's descendants by name, member
      // batch by member batch (`<object>..names<rest>` over its members; on the batch workers when large).
      if (!(await namesIn(reader, entry.object, names, watched, meter, (node) => emit([node])))) return;
      const steps = entry.location.steps();
      const at = descendantsPlanAt(steps, segments, rest, true);
      const plan = items.roots ? { ...at, roots: items.roots } : at;
      if ((await memberNodes(reader, entry.object, plan, query, pager, meter, workers, steps)) === "stopped") return;
      continue;
    }
    const { value, location: here } = entry;
    if (value === null || typeof value !== "object") continue;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], location: here.concat(i) });
      continue;
    }
    for (let n = 0; n < names.length; n++) {
      const name = names[n]!;
      if (watched) meter.watch!.saw(watched[n]!, value, hasOwn(value, name));
      if (
        hasOwn(value, name) &&
        (tick(), true) &&
        !emit([
          new JSONPathNode((value as Record<string, never>)[name]!, here.concat(name) as never, undefined as never),
        ])
      )
        return;
    }
    const keys = keyListOf(value);
    for (let i = keys.length - 1; i >= 0; i--) {
      const part = reader.partAt(value, keys[i]!);
      const at = here.concat(keys[i]!);
      stack.push(
        part && "list" in part
          ? { list: part.list, location: at }
          : part
            ? { object: part.object, location: at }
            : { value: (value as Record<string, unknown>)[keys[i]!], location: at },
      );
    }
  }
}

/**
 * The names `descend` tests in wide object `object` itself, in order, each found handed to `emit` (false: stop, the
 * page was refused) and charged as `descend` charges it; the watch (S18.2) sees the object's first keys where a
 * name is missing, as it sees any object's.
 */
async function namesIn(
  reader: AnswerReader,
  object: number,
  names: readonly string[],
  watched: readonly number[] | undefined,
  meter: CostMeter,
  emit: (node: JSONPathNode) => boolean,
): Promise<boolean> {
  const { path } = reader.objects[object]!;
  const at = (root: unknown) => path.reduce((value, key) => (value as Record<string, unknown>)[key], root);
  const pieced = at(await reader.named(object, names)) as PiecedObject;
  const location = path.reduce((here, key) => here.concat(key), new Location(undefined, ""));
  let sample: object | undefined;
  for (let n = 0; n < names.length; n++) {
    const name = names[n]!;
    const has = pieced.hasKey(name);
    if (watched && !has && !sample) {
      const first = at(await reader.members(object, 0, SAMPLED_KEYS)) as PiecedObject;
      sample = Object.fromEntries(first.leadingKeys(SAMPLED_KEYS).map((key) => [key, true]));
    }
    useMeter(meter);
    if (watched) meter.watch!.saw(watched[n]!, sample ?? {}, has);
    if (!has) continue;
    tick();
    if (!emit(new JSONPathNode(pieced.get(name) as never, location.concat(name) as never, undefined as never)))
      return false;
  }
  return true;
}

function unreachable(): never {
  throw new Error("unreachable: the whole answer streams for descendants by name only");
}
