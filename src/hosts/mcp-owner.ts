/**
 * Who owns an MCP call (S8.1, S16.2): the transport's session id, and the authenticated subject. One
 * OAuth client serves many users, so its `clientId` names a user only when the token carries no subject
 * at all; a subject that is present but unusable makes the call anonymous, never the shared client id.
 */
import type { Owner } from "../records/crypto/keys.js";

/** The parts of the SDK's `ServerContext` that name the caller. */
export interface McpRequestContextLike {
  sessionId?: string;
  http?: { authInfo?: { clientId?: string; extra?: Record<string, unknown> } };
}

/** The caller a call's `authInfo` names, or `unusable` (with what was found) when its `sub` cannot name one. */
export type CallerOf = { caller?: string } | { unusable: string };

/**
 * S16.2: `extra.sub` when it is a non-empty string or a finite number (its decimal text); absent or
 * `null`, the `clientId`; anything else (an empty string, a boolean, an object, NaN) names nobody.
 */
export function callerOf(authInfo: { clientId?: string; extra?: Record<string, unknown> } | undefined): CallerOf {
  const extra = authInfo?.extra;
  const sub = extra === undefined || extra === null || typeof extra !== "object" ? undefined : extra.sub;
  if (typeof sub === "string") return sub ? { caller: sub } : { unusable: "an empty string" };
  if (typeof sub === "number") return Number.isFinite(sub) ? { caller: String(sub) } : { unusable: `the number ${String(sub)}` };
  if (sub !== undefined && sub !== null) return { unusable: Array.isArray(sub) ? "a list" : `a value of type ${typeof sub}` };
  const clientId = authInfo?.clientId;
  return typeof clientId === "string" && clientId ? { caller: clientId } : {};
}

/**
 * S8.1 and S16.2: the owner of a call, and why it is anonymous when its subject is unusable (for the
 * host's one warning). A call with an unusable subject has no owner at all, session included: its
 * answers go out whole.
 */
export function ownerOfCall(ctx: McpRequestContextLike | undefined): { owner: Owner; unusable?: string } {
  const found = callerOf(ctx?.http?.authInfo);
  if ("unusable" in found) return { owner: {}, unusable: found.unusable };
  const owner: Owner = {};
  if (ctx?.sessionId) owner.session = ctx.sessionId;
  if (found.caller) owner.caller = found.caller;
  return { owner };
}

/** S8.1: the transport's session id, and the authenticated subject as S16.2 says; `{}` when the subject is unusable. */
export function defaultOwner(ctx: McpRequestContextLike | undefined): Owner {
  return ownerOfCall(ctx).owner;
}
