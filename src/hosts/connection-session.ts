import { randomBytes, toHex } from "../records/crypto/backend.js";

/**
 * S8.1: a connection that is not HTTP (stdio, an in-process pair) serves exactly one client. When it has
 * no session id of its own, it counts as one verified session: a random id minted for that connection,
 * so a stdio server folds for its client and two processes sharing a store cannot read each other's
 * handles. HTTP requests keep their own session id, or none (then only a caller makes them fold).
 */
const mintedIds = new WeakMap<object, string>();

/** The two members of the SDK's request context this needs. */
interface CallContext {
  sessionId?: string;
  http?: unknown;
}

/**
 * `ctx` with `sessionId` set to its connection's minted id when the call came over a connection that is not HTTP and
 * has none.
 */
export function withConnectionSession<T extends CallContext | undefined>(server: object, ctx: T): T {
  if (!ctx || ctx.sessionId || isHttp(ctx)) return ctx;
  const connection = currentTransport(server);
  if (!connection) return ctx;
  let id = mintedIds.get(connection);
  if (!id) mintedIds.set(connection, (id = randomId()));
  return { ...ctx, sessionId: id };
}

/** The SDK puts the HTTP request on `ctx.http.req` for every HTTP transport; stdio and in-memory have none. */
function isHttp(ctx: CallContext): boolean {
  return (ctx.http as { req?: unknown } | undefined)?.req !== undefined;
}

/** `McpServer.server.transport`: public in the SDK; one transport per connection, replaced on reconnect. */
function currentTransport(server: object): object | undefined {
  const transport = (server as { server?: { transport?: unknown } }).server?.transport;
  return typeof transport === "object" && transport !== null ? transport : undefined;
}

/** 128 random bits as hex; `getRandomValues` exists in every page (secure context or not) and in Node. */
function randomId(): string {
  return `connection-${toHex(randomBytes(16))}`;
}
