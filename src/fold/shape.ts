import { hasOwn, isJsonMember, KeyLists, setOwn, type JsonObject } from "../util/json.js";
import { jsonStringSize } from "../util/size.js";
import { SHAPE_LIMITS } from "../defaults.js";

/** The outline of an answer (S6.2). */
export type Shape =
  | { type: "null" | "boolean" | "number"; optional?: true }
  | { type: "string"; length: number; optional?: true }
  | { type: "array"; length: number; items?: Shape; optional?: true }
  | { type: "object"; keys?: Record<string, Shape>; keyCount?: number; optional?: true }
  | { anyOf: Shape[]; optional?: true };

interface ShapeLimits {
  /** Containers this deep (the root is 0) are reduced to `{ type, length }` or `{ type, keyCount }`. */
  depth: number;
  /** Keys listed per object; past it `keyCount` gives the true number. */
  keys: number;
  /** List items inspected to widen `items`. */
  items: number;
}

type Kind = "null" | "boolean" | "number" | "string" | "array" | "object";

/** One kind of value seen at a place of the answer; lengths and key counts are the first such value's. */
interface OutlineNode {
  type: Kind;
  /** A string's or list's length. */
  length: number;
  /** An object's true number of keys. */
  keyCount: number;
  depth: number;
  /** Widened shape of a list's items; absent for an empty list and at the depth limit. */
  items?: Place;
  /** Listed keys of an object in first-seen order (at most `limits.keys`); absent at the depth limit. */
  keys?: KeyedPlaces;
}

interface KeyedPlaces {
  names: string[];
  places: Place[];
  index: Map<string, number>;
}

/** A place in the answer (the root, a list's items, an object's key): the kinds seen there, first first. */
interface Place {
  kinds: OutlineNode[];
  /** A key missing from some of the objects that list it. */
  optional: boolean;
}

/**
 * The widened shape tree of an answer, built once to the depth S6.3 allows and rendered at any shallower
 * depth (S5.4) without visiting the answer again. Building widens in place: an item of kinds and keys
 * already seen adds no shape objects (the old way built each item's shape, then a widened copy). Recursion
 * is bounded by `limits.depth`.
 */
export class Outline {
  private constructor(
    private readonly root: Place,
    private readonly limits: ShapeLimits,
  ) {}

  static of(value: unknown, limits: ShapeLimits = SHAPE_LIMITS, keyLists = new KeyLists()): Outline {
    return new Outline(new OutlineBuilder(limits, keyLists).place(keyLists.json(value, ""), 0), limits);
  }

  /**
   * The shape with containers at `depth` or deeper reduced to `{ type, length }` or `{ type, keyCount }`,
   * and its size as UTF-8 JSON; undefined as soon as that size passes `allowanceBytes`.
   */
  render(depth: number, allowanceBytes: number): { shape: Shape; bytes: number } | undefined {
    const writer = new ShapeWriter(Math.min(depth, this.limits.depth), this.limits.keys, allowanceBytes);
    try {
      const shape = writer.place(this.root);
      return { shape, bytes: writer.bytes };
    } catch (error) {
      if (error === OVER_ALLOWANCE) return undefined;
      throw error;
    }
  }
}

function kindOf(value: unknown): Kind {
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "boolean":
      return "boolean";
    case "number":
      return "number";
    case "object":
      return Array.isArray(value) ? "array" : "object";
    default:
      return "string"; // strings, and what JSON cannot hold (bigint, function, symbol) described by String(value)
  }
}

class OutlineBuilder {
  constructor(
    private readonly limits: ShapeLimits,
    private readonly keyLists: KeyLists,
  ) {}

  place(value: unknown, depth: number): Place {
    return { kinds: [this.node(value, depth)], optional: false };
  }

  node(value: unknown, depth: number): OutlineNode {
    const type = kindOf(value);
    const node: OutlineNode = { type, length: 0, keyCount: 0, depth };
    if (type === "string") node.length = typeof value === "string" ? value.length : String(value).length;
    else if (type === "array") {
      const list = value as unknown[];
      node.length = list.length;
      if (list.length > 0 && depth < this.limits.depth) {
        node.items = this.place(this.keyLists.json(list[0], 0), depth + 1);
        this.widenByItems(node.items, list, 1, depth + 1);
      }
    } else if (type === "object") {
      const object = value as JsonObject;
      const names = this.keyLists.of(object);
      const listing = depth < this.limits.depth;
      const keys: KeyedPlaces | undefined = listing ? { names: [], places: [], index: new Map() } : undefined;
      // A wide object the serialisation wrote is counted already: only the keys listed are looked at.
      const counted = this.keyLists.membersOf(object);
      let count = 0;
      for (let i = 0; i < names.length; i++) {
        if (counted !== undefined && !(keys && keys.names.length < this.limits.keys)) break;
        const member = this.keyLists.json(object[names[i]!], names[i]!);
        if (!isJsonMember(member)) continue;
        count++;
        if (keys && keys.names.length < this.limits.keys) addKey(keys, names[i]!, this.place(member, depth + 1));
      }
      node.keyCount = counted ?? count;
      if (keys) node.keys = keys;
    }
    return node;
  }

  /** Widens `place` by one more value seen there: S6.2's optional keys and `anyOf`. */
  widen(place: Place, value: unknown, depth: number): void {
    const type = kindOf(value);
    const kinds = place.kinds;
    let node = kinds[0]!;
    for (let i = 1; node.type !== type; i++) {
      if (i === kinds.length) {
        kinds.push(this.node(value, depth));
        return;
      }
      node = kinds[i]!;
    }
    if (type === "array") {
      const list = value as unknown[];
      if (list.length === 0 || depth >= this.limits.depth) return;
      if (node.items) this.widenByItems(node.items, list, 0, depth + 1);
      else {
        node.items = this.place(this.keyLists.json(list[0], 0), depth + 1);
        this.widenByItems(node.items, list, 1, depth + 1);
      }
    } else if (type === "object" && node.keys) {
      const object = value as JsonObject;
      const keys = node.keys;
      const names = this.keyLists.of(object);
      // The usual row: its own keys are exactly those listed so far, in order. No key is inherited or new,
      // so no `hasOwn` per key (a fifth of the outline's time on rows of seven keys).
      const values = sameNames(names, keys.names) ? Object.values(object) : undefined;
      // Values in the order of `names`, in one call (unless a getter added or deleted keys meanwhile).
      if (values?.length === names.length) {
        for (let i = 0; i < values.length; i++) {
          const member = this.keyLists.json(values[i], names[i]!);
          if (isJsonMember(member)) this.widenBy(keys.places[i]!, member, depth + 1);
          else keys.places[i]!.optional = true;
        }
        return;
      }
      let present = 0;
      for (let i = 0; i < keys.names.length; i++) {
        const name = keys.names[i]!;
        const member = hasOwn(object, name) ? this.keyLists.json(object[name], name) : undefined;
        if (member !== undefined) present++;
        if (isJsonMember(member)) this.widenBy(keys.places[i]!, member, depth + 1);
        else keys.places[i]!.optional = true;
      }
      if (keys.names.length >= this.limits.keys) return;
      // Every own key is a listed one (the usual row, keys all seen before): nothing new to look up.
      if (names.length === present) return;
      for (let i = 0; i < names.length && keys.names.length < this.limits.keys; i++) {
        const name = names[i]!;
        if (keys.index.has(name)) continue;
        const member = this.keyLists.json(object[name], name);
        if (!isJsonMember(member)) continue;
        const place = this.place(member, depth + 1);
        place.optional = true;
        addKey(keys, name, place);
      }
    }
  }

  /** `widen`, without the call for a scalar of the kind first seen there (most members of most rows). */
  private widenBy(place: Place, value: unknown, depth: number): void {
    const type = kindOf(value);
    if (type === "array" || type === "object" || type !== place.kinds[0]!.type) this.widen(place, value, depth);
  }

  /** Widens by the list's items from `from`, up to the first `limits.items` (S6.3). */
  private widenByItems(place: Place, list: unknown[], from: number, depth: number): void {
    const end = Math.min(list.length, this.limits.items);
    for (let i = from; i < end; i++) this.widenBy(place, this.keyLists.json(list[i], i), depth);
  }
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function addKey(keys: KeyedPlaces, name: string, place: Place): void {
  keys.index.set(name, keys.names.length);
  keys.names.push(name);
  keys.places.push(place);
}

const OVER_ALLOWANCE = Symbol("over allowance");

/** Writes the plain `Shape` of an outline, counting its UTF-8 JSON bytes as `JSON.stringify` would write it. */
class ShapeWriter {
  bytes = 0;

  constructor(
    private readonly depth: number,
    private readonly keyLimit: number,
    private readonly allowance: number,
  ) {}

  place(place: Place): Shape {
    let shape: Shape;
    if (place.kinds.length === 1) {
      shape = this.node(place.kinds[0]!);
    } else {
      this.bytes += 12; // {"anyOf":[ ... ]}
      const anyOf = place.kinds.map((kind, i) => {
        if (i > 0) this.bytes += 1;
        return this.node(kind);
      });
      shape = { anyOf };
    }
    if (place.optional) {
      shape.optional = true;
      this.bytes += 16; // ,"optional":true
    }
    this.check();
    return shape;
  }

  private node(node: OutlineNode): Shape {
    this.bytes += 11 + node.type.length; // {"type":"..."}
    switch (node.type) {
      case "string":
        this.bytes += 10 + String(node.length).length; // ,"length":n
        return { type: "string", length: node.length };
      case "array": {
        this.bytes += 10 + String(node.length).length;
        if (!node.items || node.depth >= this.depth) return { type: "array", length: node.length };
        this.bytes += 9; // ,"items":
        return { type: "array", length: node.length, items: this.place(node.items) };
      }
      case "object": {
        if (!node.keys || node.depth >= this.depth) {
          this.bytes += 12 + String(node.keyCount).length; // ,"keyCount":n
          return { type: "object", keyCount: node.keyCount };
        }
        this.bytes += 10; // ,"keys":{}
        const keys: Record<string, Shape> = {};
        const { names, places } = node.keys;
        for (let i = 0; i < names.length; i++) {
          this.bytes += (i > 0 ? 1 : 0) + jsonStringSize(names[i]!) + 1;
          setOwn(keys, names[i]!, this.place(places[i]!));
        }
        if (node.keyCount <= this.keyLimit) return { type: "object", keys };
        this.bytes += 12 + String(node.keyCount).length;
        return { type: "object", keys, keyCount: node.keyCount };
      }
      default:
        return { type: node.type };
    }
  }

  private check(): void {
    if (this.bytes > this.allowance) throw OVER_ALLOWANCE;
  }
}
