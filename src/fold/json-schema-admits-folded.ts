/**
 * S4.6 for a tool whose output schema is plain JSON Schema (WebMCP tools list one; nothing validates it
 * here): does it admit `{ preview, shape, handle }`? A deliberately small rule that errs on the side of
 * not folding, since a folded answer the schema refuses breaks the agent's reading of the tool:
 *
 * - `true` admits; `false` does not.
 * - `anyOf`: some branch admits. `oneOf`: exactly one branch admits and every other branch surely rejects
 *   the folded object (`false`, a `type` without "object", a `required` key it lacks, or
 *   `additionalProperties: false` without one of its keys); a branch this rule merely cannot read might
 *   match too, and two matches fail a `oneOf`.
 * - Otherwise the schema must be an object schema using only `type` ("object", or a list holding it),
 *   `properties`, `required`, `additionalProperties` and annotations (`title`, `description`, ...). Any
 *   other keyword (`allOf`, `$ref`, `not`, `enum`, `const`, `if`, `patternProperties`, `minProperties`...)
 *   means "not admitted".
 * - `required` names only `preview`, `shape` and `handle`.
 * - `additionalProperties` other than `true` requires all three to be listed in `properties`.
 * - A listed `preview` may carry only annotations, or an `anyOf` of every JSON type (a preview is any JSON); `handle`
 *   may add only `type`
 *   "string"; `shape` only `type` "object" and unconstraining `propertyNames`/`additionalProperties`.
 *   So `z.toJSONSchema(foldedAnswerSchema)` admits, and an `anyOf` holding it does.
 */
import { hasOwn, isPlainObject } from "../util/json.js";
import { FOLDED_KEYS } from "./folded-answer.js";

const ANNOTATIONS = new Set([
  "title",
  "description",
  "$comment",
  "$schema",
  "$id",
  "examples",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
]);
const OBJECT_KEYWORDS = new Set([...ANNOTATIONS, "type", "properties", "required", "additionalProperties"]);
const FOLDED_TYPES: Record<(typeof FOLDED_KEYS)[number], string | undefined> = {
  preview: undefined,
  shape: "object",
  handle: "string",
};

export function jsonSchemaAdmitsFoldedAnswer(schema: unknown): boolean {
  if (typeof schema === "boolean") return schema;
  if (!isPlainObject(schema)) return false;
  const { anyOf, oneOf, ...rest } = schema;
  if (anyOf !== undefined || oneOf !== undefined) {
    // Only a pure union: keywords beside it would constrain every branch in ways this rule does not read.
    if (Object.keys(rest).some((key) => !ANNOTATIONS.has(key))) return false;
    if (anyOf !== undefined && oneOf !== undefined) return false;
    const branches = anyOf ?? oneOf;
    if (!Array.isArray(branches)) return false;
    if (anyOf !== undefined) return branches.some(jsonSchemaAdmitsFoldedAnswer);
    const admitting = branches.filter(jsonSchemaAdmitsFoldedAnswer);
    return (
      admitting.length === 1 && branches.every((branch) => admitting.includes(branch) || surelyRejectsFolded(branch))
    );
  }
  if (Object.keys(schema).some((key) => !OBJECT_KEYWORDS.has(key))) return false;
  if (!allowsType(schema.type, "object")) return false;
  const properties = schema.properties ?? {};
  if (!isPlainObject(properties)) return false;
  const required = schema.required ?? [];
  if (!Array.isArray(required) || !required.every((name) => (FOLDED_KEYS as readonly unknown[]).includes(name)))
    return false;
  const additional = schema.additionalProperties ?? true;
  if (additional !== true && !FOLDED_KEYS.every((key) => hasOwn(properties, key))) return false;
  return FOLDED_KEYS.every((key) => !hasOwn(properties, key) || admitsMember(properties[key], FOLDED_TYPES[key]));
}

/** A schema that no `{ preview, shape, handle }` object can match, whatever else it says. */
function surelyRejectsFolded(schema: unknown): boolean {
  if (schema === false) return true;
  if (!isPlainObject(schema)) return false;
  if (schema.type !== undefined && !allowsType(schema.type, "object")) return true;
  if (
    Array.isArray(schema.required) &&
    schema.required.some((name) => !(FOLDED_KEYS as readonly unknown[]).includes(name))
  )
    return true;
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  return schema.additionalProperties === false && FOLDED_KEYS.some((key) => !hasOwn(properties, key));
}

/** A property schema that admits any value of `type` (any JSON when `type` is undefined). */
function admitsMember(schema: unknown, type: string | undefined): boolean {
  if (typeof schema === "boolean") return schema;
  if (!isPlainObject(schema)) return false;
  for (const key of Object.keys(schema)) {
    if (ANNOTATIONS.has(key)) continue;
    if (key === "type" && type !== undefined && allowsType(schema.type, type)) continue;
    // What zod writes for a record of string keys (`shape`): any string key, any value.
    if (type === "object" && key === "propertyNames" && admitsMember(schema.propertyNames, "string")) continue;
    if (type === "object" && key === "additionalProperties" && admitsMember(schema.additionalProperties, undefined))
      continue;
    // Any JSON spelled one type per branch (S18.3, `ANY_JSON_SCHEMA`): every JSON type, each branch unconstrained.
    if (type === undefined && key === "anyOf" && anyJson(schema.anyOf)) continue;
    return false;
  }
  return true;
}

const JSON_TYPES = ["object", "array", "string", "number", "boolean", "null"];

function anyJson(branches: unknown): boolean {
  if (!Array.isArray(branches)) return false;
  const types = branches.map((branch) =>
    isPlainObject(branch) && typeof branch.type === "string" && admitsMember(branch, branch.type)
      ? branch.type
      : undefined,
  );
  return JSON_TYPES.every((type) => types.includes(type));
}

function allowsType(type: unknown, wanted: string): boolean {
  return type === undefined || type === wanted || (Array.isArray(type) && type.includes(wanted));
}
