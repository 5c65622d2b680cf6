#!/usr/bin/env bash
# npm test: every suite, in the order that keeps two cores busy without letting the timed tests share them.
#   1. the package's build (the tests of the tarball and the site read dist/);
#   2. at once: the Vitest projects "node" and "browser", and, beside them, the docs site's build and then
#      the Playwright end-to-end tests (mostly Chromium waiting on pages: about one core), their output kept
#      in test-results/e2e.log and printed when they end;
#   3. alone, once both have ended: the Vitest project "attacks" (S16, S21), which times the server and a
#      bystander, so nothing else of ours runs beside it.
# Every step runs even when one before it failed; the exit status is the first failure's. Each step's time
# is printed, and test-results/.started marks the run, so scripts/test-summary.mjs counts this run's reports.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p test-results
touch test-results/.started

status=0
step() { # name, command...: runs it, prints its time, keeps the first failure
  local name=$1 began=$SECONDS rc=0
  shift
  "$@" || rc=$?
  echo "npm test: $name: $((SECONDS - began)) s (exit $rc)"
  [ "$rc" -eq 0 ] || [ "$status" -ne 0 ] || status=$rc
  return 0
}

e2e() { # the docs site, then the end-to-end tests that open it and the playground
  npm run docs:site --silent && npx playwright test
}

step "build" npm run build --silent
if [ "$status" -ne 0 ]; then exit "$status"; fi

e2e_began=$SECONDS
e2e > test-results/e2e.log 2>&1 &
e2e_pid=$!
step "vitest node and browser" npx vitest run --project node --project browser
e2e_rc=0
wait "$e2e_pid" || e2e_rc=$?
cat test-results/e2e.log
echo "npm test: docs site and end-to-end (beside vitest): $((SECONDS - e2e_began)) s (exit $e2e_rc)"
[ "$e2e_rc" -eq 0 ] || [ "$status" -ne 0 ] || status=$e2e_rc

step "vitest attacks (alone)" npx vitest run --project attacks --outputFile.json=test-results/vitest-attacks.json
exit "$status"
