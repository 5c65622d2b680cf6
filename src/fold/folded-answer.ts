import { z } from "zod";

/**
 * `{ preview, shape, handle }` and no other key (S2). Put it in a union with a tool's own output schema
 * so the folded form passes the tool's schema (S4.6) and the client's check of `structuredContent`.
 */
export const foldedAnswerSchema = z
  .strictObject({
    preview: z.unknown().describe("The start of the answer: every list and string cut short"),
    shape: z.record(z.string(), z.unknown()).describe("The answer's outline: types, lengths and keys"),
    handle: z.string().describe("Pass to result_query to read parts of the full answer"),
  })
  .describe("A large answer folded into a preview, its shape and a handle for result_query");

export type FoldedAnswerSchema = z.infer<typeof foldedAnswerSchema>;
