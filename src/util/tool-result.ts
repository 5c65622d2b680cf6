/** The parts of an MCP `CallToolResult` the core reads and writes; hosts pass theirs through as is. */
export interface ContentBlock {
  type: string;
  text?: string;
  [key: string]: unknown;
}

export interface ToolResult {
  content?: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** A result whose text repeats its `structuredContent` as JSON, as MCP asks of structured results. */
export function textResult(structuredContent: Record<string, unknown>): ToolResult {
  return { content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent };
}
