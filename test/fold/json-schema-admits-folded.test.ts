// S4.6 for JSON Schema output schemas (WebMCP): the fixed rule that decides whether a tool may fold.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { foldedAnswerSchema } from "mcp-result-handles";
import { jsonSchemaAdmitsFoldedAnswer } from "../../src/fold/json-schema-admits-folded.js";

const folded = z.toJSONSchema(foldedAnswerSchema);
const rows = {
  type: "object",
  properties: { rows: { type: "array" } },
  required: ["rows"],
  additionalProperties: false,
};

describe("S4.6 does a JSON Schema admit { preview, shape, handle }?", () => {
  it.each([
    ["true", true],
    ["an empty schema", {}],
    ["an object schema requiring nothing", { type: "object", properties: { rows: { type: "array" } } }],
    ["zod's JSON Schema of foldedAnswerSchema", folded],
    ["an anyOf holding it", { anyOf: [rows, folded] }],
    ["a oneOf holding it once, beside a branch requiring a key of its own", { oneOf: [rows, folded] }],
    [
      "a oneOf holding it once, beside a string and a closed object",
      {
        oneOf: [{ type: "string" }, folded, { type: "object", properties: { rows: {} }, additionalProperties: false }],
      },
    ],
    [
      "typed properties of the folded form",
      {
        type: ["object", "null"],
        properties: { handle: { type: "string" }, shape: { type: "object" }, preview: { description: "any" } },
        additionalProperties: false,
      },
    ],
  ])("%s: folds", (_, schema) => {
    expect(jsonSchemaAdmitsFoldedAnswer(schema)).toBe(true);
  });

  it.each([
    ["false", false],
    ["a required key of its own", rows],
    [
      "additionalProperties false without the three",
      { type: "object", properties: { handle: { type: "string" } }, additionalProperties: false },
    ],
    ["an array type", { type: "array" }],
    ["handle typed as a number", { type: "object", properties: { handle: { type: "number" } } }],
    ["a constrained preview", { type: "object", properties: { preview: { type: "array" } } }],
    ["a keyword the rule does not read (allOf)", { allOf: [folded] }],
    ["a $ref", { $ref: "#/$defs/x", $defs: { x: folded } }],
    ["minProperties", { type: "object", minProperties: 4 }],
    ["an anyOf without it", { anyOf: [rows, { type: "string" }] }],
    ["a oneOf where two branches admit it", { oneOf: [folded, {}] }],
    // The other branch is one this rule cannot read (minProperties, patternProperties, a vendor keyword):
    // the folded object may match it too, and a second match fails the oneOf.
    ["a oneOf holding it beside minProperties", { oneOf: [folded, { type: "object", minProperties: 1 }] }],
    [
      "a oneOf holding it beside patternProperties",
      { oneOf: [folded, { type: "object", patternProperties: { "^p": {} } }] },
    ],
    ["a oneOf holding it beside a vendor keyword", { oneOf: [folded, { "x-kind": "rows" }] }],
    ["an anyOf with constraints beside it", { anyOf: [folded], required: ["rows"] }],
    ["not a schema", "object"],
  ])("%s: sent whole", (_, schema) => {
    expect(jsonSchemaAdmitsFoldedAnswer(schema)).toBe(false);
  });
});
