/**
 * The demo's cap on what one session (or, without a session, one caller) may fold (S16.3, S26.5): at most
 * `maxBytes` of answers per `windowMs` (the answers' lifetime); past it, that session's large answers go out
 * whole until its window ends. The memory store already shares its room fairly among owners; this keeps one
 * session from doing all the folding a public demo pays for.
 */
export class FoldCap {
  private readonly windows = new Map<string, { since: number; bytes: number }>();

  constructor(
    readonly maxBytes: number,
    private readonly windowMs: number,
  ) {}

  /** Whether `bytes` more may fold for `who` now; counted when they may. */
  admit(who: string, bytes: number, now = Date.now()): boolean {
    let window = this.windows.get(who);
    if (!window || now - window.since >= this.windowMs) this.windows.set(who, (window = { since: now, bytes: 0 }));
    if (window.bytes + bytes > this.maxBytes) return false;
    window.bytes += bytes;
    return true;
  }

  /** Forgets windows that have ended, so sessions that came and went leave nothing behind. */
  sweep(now = Date.now()): void {
    for (const [who, window] of this.windows) if (now - window.since >= this.windowMs) this.windows.delete(who);
  }
}

/** Whose fold it is, from the MCP SDK's request context the fold policy is handed: the session, else the caller. */
export function folderOf(request: unknown): string {
  const ctx = request as
    { sessionId?: unknown; http?: { authInfo?: { clientId?: unknown; extra?: { sub?: unknown } } } } | undefined;
  if (typeof ctx?.sessionId === "string") return `session:${ctx.sessionId}`;
  const auth = ctx?.http?.authInfo;
  return `caller:${String(auth?.extra?.sub ?? auth?.clientId ?? "")}`;
}
