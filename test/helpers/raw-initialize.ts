/**
 * A bare 2025 `initialize` request, as a client's first POST sends it: for tests of the HTTP layer itself (limits, idle
 * sessions).
 */
export function initializeBody(clientName: string): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: clientName, version: "1" } },
  });
}

/** POSTs that `initialize` to `url` with fetch. */
export const postInitialize = (url: string, clientName: string) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: initializeBody(clientName),
  });
