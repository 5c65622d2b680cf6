import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport, type McpServer } from "@modelcontextprotocol/server";

/** A real SDK client linked to a real SDK server in memory; `sessionId` plays the transport's session. */
export async function linkInMemory(server: McpServer, sessionId?: string): Promise<Client> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  if (sessionId) serverTransport.sessionId = sessionId;
  await server.connect(serverTransport);
  const client = new Client({ name: "in-memory-test", version: "1.0.0" });
  await client.connect(clientTransport);
  return client;
}
