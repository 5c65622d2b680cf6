/**
 * One log line per `tools/call` (S11.1): tool, caller or anonymous, bytes, folded or not. It reads the
 * JSON-RPC messages on the server's transport, so it sees the answer as sent, after folding, and needs
 * nothing of the SDK beyond the public `connect(transport)` and the `Transport` interface.
 */
import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type McpServer,
  type Transport,
} from "@modelcontextprotocol/server";
import { RESULT_HANDLE_META_KEY } from "mcp-result-handles";

type RequestId = string | number;
interface PendingCall {
  tool: string;
  caller: string;
}

/** Makes every transport `server` connects to log its tool calls through `log`. */
export function logToolCalls(server: McpServer, log: (line: string) => void): McpServer {
  const connect = server.connect.bind(server);
  server.connect = async (transport: Transport) => {
    await connect(transport);
    tap(transport, log);
  };
  return server;
}

function tap(transport: Transport, log: (line: string) => void): void {
  const pending = new Map<RequestId, PendingCall>();
  const onmessage = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (isJSONRPCRequest(message) && message.method === "tools/call") {
      const sub = extra?.authInfo?.extra?.sub;
      // No caller but a 2025 session: not anonymous (S8.1), its large answers fold for that session.
      const caller = typeof sub === "string" ? sub : transport.sessionId ? "none (session)" : "anonymous";
      pending.set(message.id, { tool: String(message.params?.name), caller });
    }
    onmessage?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    const id = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message) ? message.id : undefined;
    const call = id === undefined ? undefined : pending.get(id);
    if (call && id !== undefined) {
      pending.delete(id);
      log(describeCall(call, message));
    }
    return send(message, options);
  };
}

function describeCall(call: PendingCall, message: unknown): string {
  const result = (message as { result?: { _meta?: Record<string, unknown>; isError?: boolean } }).result;
  const folded = result?._meta?.[RESULT_HANDLE_META_KEY] as { bytes?: number } | undefined;
  // A folded answer's _meta holds the size of the answer it replaced; otherwise measure what is sent.
  const bytes = folded?.bytes ?? new TextEncoder().encode(JSON.stringify(result ?? message)).byteLength;
  const outcome = folded ? "folded" : result?.isError ? "error, not folded" : "not folded";
  return `tools/call ${call.tool} caller=${call.caller} bytes=${bytes} ${outcome}`;
}
