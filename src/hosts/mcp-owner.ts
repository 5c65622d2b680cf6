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
type CallerOf = { caller?: string } | { unusable: string };

/**
 * S16.2: `extra.sub` when it is a non-empty string or a finite number (its decimal text: 0 and -0 are
 * "0", 1001 is the caller "1001" as a string sub would be) no larger than 2^53; absent or `null`, the
 * `clientId`; anything else (an empty string, a boolean, an object, NaN, 1e21) names nobody.
 */
function callerOf(authInfo: { clientId?: string; extra?: Record<string, unknown> } | undefined): CallerOf {
  const extra = authInfo?.extra;
  const sub = extra === undefined || extra === null || typeof extra !== "object" ? undefined : extra.sub;
  if (typeof sub === "string") return sub ? { caller: sub } : { unusable: "an empty string" };
  // Past 2^53 a number no longer names one subject: the token's 9007199254740993 and 9007199254740992 both
  // arrive as 9007199254740992, so two users would share an owner. Such a sub names nobody (S16.2).
  if (typeof sub === "number") {
    if (!Number.isFinite(sub)) return { unusable: `the number ${String(sub)}` };
    return Math.abs(sub) <= Number.MAX_SAFE_INTEGER
      ? { caller: String(sub) }
      : { unusable: "a number past 2^53, which many subjects round to" };
  }
  if (sub !== undefined && sub !== null)
    return { unusable: Array.isArray(sub) ? "a list" : `a value of type ${typeof sub}` };
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
