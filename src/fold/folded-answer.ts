import { z } from "zod";
import type { Shape } from "./shape.js";
import { ANY_JSON_SCHEMA } from "../util/json.js";

/**
 * `{ preview, shape, handle }` and no other key (S2, S5.1), defined here once: the schema below, the type
 * and the key list are all read from it. Put the schema in a union with a tool's own output schema so the
 * folded form passes the tool's schema (S4.6) and the client's check of `structuredContent`.
 */
export const foldedAnswerSchema = z
  .strictObject({
    // Any JSON value, one type per branch, and `additionalProperties: true`: an empty `{}` (or a `type` list)
    // is what the MCP Inspector's schema-portability check warns about in every tool that puts this in a union (S18.3).
    preview: z
      .unknown()
      .meta({ anyOf: ANY_JSON_SCHEMA.anyOf.map((branch) => ({ ...branch })) })
      .describe("The start of the answer: every list and string cut short"),
    shape: z
      .record(z.string(), z.unknown())
      .meta({ additionalProperties: true })
      .describe("The answer's outline: types, lengths and keys"),
    handle: z.string().describe("Pass to result_query to read parts of the full answer"),
  })
  .describe("A large answer folded into a preview, its shape and a handle for result_query");

type FoldedAnswerWire = z.infer<typeof foldedAnswerSchema>;

/** What a folded answer's `structuredContent` is (S5.1): the schema's type, its `shape` the outline of S6.2. */
export type FoldedAnswer = { [K in keyof FoldedAnswerWire]: K extends "shape" ? Shape : FoldedAnswerWire[K] };

/** The keys of a folded answer, in the order they are sent. */
export const FOLDED_KEYS = Object.keys(foldedAnswerSchema.shape) as readonly (keyof FoldedAnswer)[];
