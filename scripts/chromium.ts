/**
 * How this project launches Chromium, for the browser tests (vitest.config.ts), the e2e tests
 * (playwright.config.ts) and the bench (bench/chromium.ts): the system's Chromium (Debian's package;
 * `CHROMIUM_PATH` overrides it), since Playwright's own browser download is not reachable on the machines
 * this project is built on, with flags that keep it off the network. Without the host-resolver rule it
 * still looks up Google's hosts.
 */
export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export const chromiumArgs = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
];
