/**
 * How long a seeded random or run-of-windows test runs. `npm test` runs each on a smaller sample (fewer
 * rounds or queries from the same seeded generator, deterministic too); `npm run test:soak`, which CI runs
 * after `npm test`, runs them in full: the vitest project "soak", which sets SOAK=1.
 */
export const SOAK = process.env.SOAK === "1";

/** `quick` in `npm test`, `full` in the soak run. */
export const soakSized = (quick: number, full: number): number => (SOAK ? full : quick);
