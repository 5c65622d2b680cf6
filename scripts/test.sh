#!/usr/bin/env bash
# npm test: every suite, each step's time printed:
#   1. the package's build (the tests of the tarball, the docs and the site read dist/);
#   2. the Vitest projects "node" and "browser" (two files at a time), with the docs site's build beside
#      them (about one core for 20 s; its output kept in test-results/docs-site.log, printed when it ends);
#   3. the Playwright end-to-end tests of the playground and the site;
#   4. the Vitest project "attacks" (S16, S21), alone: it times the server and a bystander.
# Playwright waits for the Vitest files: run beside them, Chromium slowed them by more than it saved
# (345 s against 329 s). Every step runs even when one before it failed (but for the build); the exit
# status is the first failure's. test-results/.started marks the run, so scripts/test-summary.mjs counts
# only this run's reports.
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
}

step "build" npm run build --silent
[ "$status" -eq 0 ] || exit "$status"
site_began=$SECONDS
npm run docs:site --silent > test-results/docs-site.log 2>&1 &
site_pid=$!
step "vitest node and browser" npx vitest run --project node --project browser
site_rc=0
wait "$site_pid" || site_rc=$?
cat test-results/docs-site.log
echo "npm test: docs site (beside vitest): $((SECONDS - site_began)) s (exit $site_rc)"
[ "$site_rc" -eq 0 ] || [ "$status" -ne 0 ] || status=$site_rc
step "end-to-end (Playwright)" npx playwright test
step "vitest attacks (alone)" npx vitest run --project attacks --outputFile.json=test-results/vitest-attacks.json
exit "$status"
