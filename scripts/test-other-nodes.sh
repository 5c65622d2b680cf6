#!/usr/bin/env bash
# S17.1: the tarball test (test/package/install.test.ts: npm pack, npm install into a scratch project,
# typecheck and run ESM and CommonJS consumers) and the FrontMCP test (S22.6: test/frontmcp, its server
# processes on the same Node) under each Node release given, default 22 and 24. Each
# release comes from npm as a binary inside the `node` package, installed into a scratch folder and put
# first on PATH (TOOLCHAIN.md); npm itself then runs on it too. dist/ must be built (npm test builds it).
# Each run writes test-results/vitest-node<N>.json, which scripts/test-summary.mjs adds to its total.
# With NODE_RELEASES set to a folder, the releases are kept there (and taken from there when already installed), and
# `--install` only installs them: .ci/run fetches them while npm test runs.
set -uo pipefail
cd "$(dirname "$0")/.."
install_only=false
[ "${1:-}" != "--install" ] || { install_only=true; shift; }
releases=("$@")
[ ${#releases[@]} -gt 0 ] || releases=(22 24)
scratch="${NODE_RELEASES:-}"
if [ -z "$scratch" ]; then
  scratch="$(mktemp -d "${TMPDIR:-/tmp}/mcp-result-handles-nodes-XXXXXX")"
  trap 'rm -rf "$scratch"' EXIT
fi
status=0
for release in "${releases[@]}"; do
  started=$SECONDS
  dir="$scratch/node$release"
  mkdir -p "$dir"
  if [ -x "$dir/node_modules/.bin/node" ]; then
    : # fetched already
  elif ! npm install --prefix "$dir" --no-audit --no-fund --no-save --silent "node@$release" >/dev/null; then
    echo "node $release: npm install node@$release failed"
    status=1
    continue
  fi
  installed=$SECONDS
  if $install_only; then continue; fi
  echo "node $release: $(PATH="$dir/node_modules/.bin:$PATH" node --version) from npm in $((installed - started)) s"
  PATH="$dir/node_modules/.bin:$PATH" node node_modules/vitest/vitest.mjs run --project node test/package/install.test.ts test/frontmcp/frontmcp.test.ts \
    --reporter=default --reporter=json --outputFile.json="test-results/vitest-node$release.json" || status=1
  echo "node $release: tarball and FrontMCP tests in $((SECONDS - installed)) s"
done
exit "$status"
