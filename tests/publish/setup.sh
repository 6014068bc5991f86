#!/usr/bin/env bash
# What tests/publish/ needs beyond `npm test`'s own set-up, installed only when missing: the
# Debian site engines (Hugo, Jekyll, MkDocs; as root, one apt-get update) and the npm ones
# (VitePress, Astro with MDX) into tests/publish/node_modules from its committed lock file.
# Kept out of build-scripts/setup.sh so that `npm start` does not install them.
set -euo pipefail
log() { printf '[publish setup] %s\n' "$*"; }
cd "$(dirname "$0")"

declare -A probe=([hugo]=/usr/bin/hugo [jekyll]=/usr/bin/jekyll [mkdocs]=/usr/bin/mkdocs)
missing=()
for pkg in "${!probe[@]}"; do [ -e "${probe[$pkg]}" ] || missing+=("$pkg"); done
# shellcheck source=../../build-scripts/lib/apt-install.sh
source ../../build-scripts/lib/apt-install.sh
apt_install_missing "site engines" "${missing[@]}"

stamp=node_modules/.package-lock.json
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  log "npm ci (tests/publish/package-lock.json)"
  npm ci --no-audit --no-fund --loglevel=error
else
  log "npm dependencies: up to date"
fi
