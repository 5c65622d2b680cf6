/**
 * One owner's `result_query` calls under way (S21.3, S21.4, S21.5): at most `running` of them read and query at a
 * time; the others wait, first come first served, and past `waiting` a call is refused at once, saying how
 * many of the owner's calls are under way. Other owners' calls never wait for these: each owner's are counted
 * apart, so one owner's many calls bound their own memory and leave the store and the loop to the others.
 */
import { ResultQueryError } from "../../errors.js";
import type { Owner } from "../../records/crypto/keys.js";

export class OwnerCalls {
  /** Per owner: how many of its calls run, and those waiting (each resolves when it may run). */
  private readonly owners = new Map<string, { running: number; waiting: (() => void)[] }>();

  constructor(private readonly limits: { readonly running: number; readonly waiting: number }) {}

  /** Runs `work` as one of `owner`'s calls: at once, or once one of those running has ended. */
  async run<T>(owner: Owner, work: () => Promise<T>): Promise<T> {
    const key = `${owner.session ?? ""}\u0000${owner.caller ?? ""}`;
    let calls = this.owners.get(key);
    if (!calls) this.owners.set(key, (calls = { running: 0, waiting: [] }));
    if (calls.running >= this.limits.running) {
      if (calls.waiting.length >= this.limits.waiting) {
        throw new ResultQueryError(
          "INVALID_INPUT",
          `${calls.running + calls.waiting.length} of your result_query calls are under way on this server, ` +
            `${this.limits.running} running and ${this.limits.waiting} waiting, the most it takes ` +
            `at once: send this call again once some of them have answered.`,
        );
      }
      await new Promise<void>((resolve) => calls!.waiting.push(resolve));
    } else calls.running++;
    try {
      return await work();
    } finally {
      const next = calls.waiting.shift();
      if (next)
        next(); // the next waiting call runs in its place: running stays the same
      else if (--calls.running === 0) this.owners.delete(key);
    }
  }
}
