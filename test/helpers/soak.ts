/**
 * How long a seeded random or run-of-windows test runs. `npm test` runs each on a smaller sample (fewer
 * rounds or queries from the same seeded generator, deterministic too); `npm run test:soak`, which CI runs
 * after `npm test`, runs them in full: the vitest project "soak", which sets SOAK=1.
 */
export const SOAK = process.env.SOAK === "1";

/** `quick` in `npm test`, `full` in the soak run. */
export const soakSized = (quick: number, full: number): number => (SOAK ? full : quick);

/**
 * The cases a store is held to in a long loop of queries: all of them on memory, and in the soak run on
 * every store; every third on the others in `npm test`. The reader is the same over every storage, and
 * what differs there (the driver's reads, failures and sizes) has its own tests on each store.
 */
export function casesOn<T>(store: string, cases: readonly T[]): readonly T[] {
  return SOAK || store === "memory" ? cases : cases.filter((_, i) => i % 3 === 0);
}
