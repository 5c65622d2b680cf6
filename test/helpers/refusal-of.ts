import { ResultQueryError } from "mcp-result-handles";

/** The `ResultQueryError` that `action` throws; anything else thrown is rethrown, and no throw fails the test. */
export function refusalOf(action: () => unknown): ResultQueryError {
  try {
    action();
  } catch (error) {
    if (error instanceof ResultQueryError) return error;
    throw error;
  }
  throw new Error("not refused");
}
