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

/** The `ResultQueryError` that `answer` rejects with; anything else is rethrown, and no rejection fails the test. */
export async function rejectionOf(answer: Promise<unknown>): Promise<ResultQueryError> {
  try {
    await answer;
  } catch (error) {
    if (error instanceof ResultQueryError) return error;
    throw error;
  }
  throw new Error("not refused");
}
