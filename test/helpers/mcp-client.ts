import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

export type Era = "2025" | "2026-07-28";

/**
 * A real MCP client over real HTTP. 2025 clients get a session; 2026-07-28 clients are stateless. `name`: the
 * `clientInfo.name` it sends (a host's, S23.2).
 */
export async function connect(url: string, options: { era: Era; token?: string; name?: string }): Promise<Client> {
  const client = new Client(
    { name: options.name ?? "result-handles-test", version: "1.0.0" },
    options.era === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  const headers: Record<string, string> = options.token ? { Authorization: `Bearer ${options.token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}
