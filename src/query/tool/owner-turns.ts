/**
 * Turns of one owner's `result_query` calls (S21.3, S21.4, S21.5): at most `running` of them read and query at a
 * time; the others wait, first come first served, and past `waiting` a call is refused at once, saying how
 * many of the owner's calls are under way. Other owners' calls never wait for these: each owner has turns of
 * its own, so one owner's many calls bound their own memory and leave the store and the loop to the others.
 */
import { ResultQueryError } from "../../errors.js";
import type { Owner } from "../../records/crypto/keys.js";

export class OwnerTurns {
  /** Per owner: how many of its calls run, and those waiting (each resolves when its turn comes). */
  private readonly owners = new Map<string, { running: number; waiting: (() => void)[] }>();

  constructor(private readonly limits: { readonly running: number; readonly waiting: number }) {}

  /** Runs `work` in one of `owner`'s turns. */
  async run<T>(owner: Owner, work: () => Promise<T>): Promise<T> {
    const key = `${owner.session ?? ""}\u0000${owner.caller ?? ""}`;
    let turns = this.owners.get(key);
    if (!turns) this.owners.set(key, (turns = { running: 0, waiting: [] }));
    if (turns.running >= this.limits.running) {
      if (turns.waiting.length >= this.limits.waiting) {
        throw new ResultQueryError(
          "INVALID_INPUT",
          `${turns.running + turns.waiting.length} of your result_query calls are under way on this server, ` +
            `${this.limits.running} running and ${this.limits.waiting} waiting their turn, the most it takes ` +
            `at once: send this call again once some of them have answered.`,
        );
      }
      await new Promise<void>((resolve) => turns!.waiting.push(resolve));
    } else turns.running++;
    try {
      return await work();
    } finally {
      const next = turns.waiting.shift();
      if (next)
        next(); // the turn passes on: running stays the same
      else if (--turns.running === 0) this.owners.delete(key);
    }
  }
}
