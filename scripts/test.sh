#!/usr/bin/env bash
# npm test: every suite, each step's time printed. Two cores: what is not timed runs beside other work.
#   0. Prettier's check (.prettierrc.json: 120 columns) and the width of comments and strings, a few seconds;
#   1. the package's build, alone: it empties dist/ first, and tests of every project read it (the tarball,
#      the docs, the viewer's HTML the page build serves);
#   2. the Vitest project "node", three files at a time (two left a quarter of the two cores idle while
#      files waited on redis-server, child processes and timers: 173 s alone against 141 s), with the
#      Vitest project "browser" (Chromium; report test-results/vitest-browser.json) and the builds of the docs site and of the playground's page
#      (about one core for 25 s) beside it; the output of what ran beside is kept in
#      test-results/<name>.log and printed when it ends;
#   3. the Playwright end-to-end tests of the playground and the site;
#   4. the Vitest project "attacks" (S16, S21), alone: it times the server and a bystander.
# Playwright beside the Vitest files slowed them by more than it saved (345 s against 329 s), and beside the
# attacks it doubled their times. Every step runs even when one before it failed (but when the build
# fails). The last line (S25.5) is scripts/test-summary.mjs's: every step that failed (by its exit status, or a
# test failed or a report missing in its report), or "all N steps passed", and the exit status says the
# same (1 on any failure). test-results/.started marks the run, so only this run's reports count, and each
# step's exit status goes to test-results/steps.tsv (.ci/run adds its own steps after these).
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p test-results
touch test-results/.started
: > test-results/steps.tsv

step() { # name, command...: runs it, prints its time, records its exit status
  local name=$1 began=$SECONDS rc=0
  shift
  "$@" || rc=$?
  echo "npm test: $name: $((SECONDS - began)) s (exit $rc)"
  printf '%s\t%s\n' "$rc" "$name" >> test-results/steps.tsv
}
summary() { node scripts/test-summary.mjs "npm test"; }

# Runs "$@" in the background, its output in test-results/NAME.log (spaces as dashes); `joined NAME PID BEGAN` waits for it and prints it.
beside() {
  local name=$1
  shift
  "$@" > "test-results/${name// /-}.log" 2>&1 &
}
joined() { # name, pid, began
  local rc=0
  wait "$2" || rc=$?
  cat "test-results/${1// /-}.log"
  echo "npm test: $1 (beside): $((SECONDS - $3)) s (exit $rc)"
  printf '%s\t%s\n' "$rc" "$1" >> test-results/steps.tsv
}

step "format (Prettier's check)" npm run format:check --silent
step "build" npm run build --silent
grep -q $'^0\tbuild$' test-results/steps.tsv || { summary; exit 1; }

browser_began=$SECONDS
beside "vitest browser" npx vitest run --project browser --outputFile.json=test-results/vitest-browser.json
browser_pid=$!
site_began=$SECONDS
beside "docs site and playground" bash -c "npm run docs:site --silent && npm run playground:build --silent"
site_pid=$!
step "vitest node" npx vitest run --project node --maxWorkers=3
joined "vitest browser" "$browser_pid" "$browser_began"
joined "docs site and playground" "$site_pid" "$site_began"

step "end-to-end (Playwright)" env E2E_PREBUILT=1 npx playwright test
step "vitest attacks" npx vitest run --project attacks --outputFile.json=test-results/vitest-attacks.json
summary
