import { z } from "zod";
import { defineDriver } from "./driver.js";
import type { NamespacedStorage } from "./types.js";

const REQUIRED = ["get", "set", "delete", "close"] as const;

/** What an object lacks to be a namespaced storage (S9.0), or undefined when it is one. */
function shortcomings(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) {
    const got = value === null ? "null" : typeof value;
    return `must be an object with the functions ${REQUIRED.join(", ")} (S9.0); got ${got}`;
  }
  const record = value as Record<string, unknown>;
  const missing = REQUIRED.filter((name) => typeof record[name] !== "function");
  const problems =
    missing.length > 0 ? [`${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} not a function`] : [];
  if (record.setTogether !== undefined && typeof record.setTogether !== "function")
    problems.push("setTogether, when given, must be a function");
  return problems.length > 0
    ? `must have the functions ${REQUIRED.join(", ")} (S9.0): ${problems.join("; ")}`
    : undefined;
}

/**
 * `{ type: "custom", storage }` (S17.3), in every build: any object with the four functions of S9.0 (and
 * `setTogether` if it evicts), the way to Cloudflare KV, Durable Objects, DynamoDB or anything else. It is
 * checked at `init` and opened as it is; its keys get the namespace like every store's.
 */
export const customDriver = defineDriver({
  type: "custom",
  runsIn: ["node", "browser", "edge"],
  options: {
    storage: z.custom<NamespacedStorage>((value) => shortcomings(value) === undefined, {
      error: (issue) => shortcomings(issue.input),
    }),
  },
  resolve: ({ storage }) => ({ storage }),
  open: async ({ storage }) => storage,
});
