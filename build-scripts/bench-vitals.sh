#!/usr/bin/env bash
# `npm run bench:vitals`: Core Web Vitals and Lighthouse scores of the built dist/ (npm run build) as a
# static host serves it. Installs Debian's nginx-light if it is missing (as root), then runs
# build-scripts/lib/vitals/bench-vitals.mjs with the arguments given (--runs, --presets, --only,
# --dist, --before DIR to alternate with another build, --json FILE, --reports DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf '[bench:vitals] %s\n' "$*"; }
source build-scripts/lib/apt-install.sh
missing=()
[ -x /usr/sbin/nginx ] || missing+=(nginx-light)
[ -x /usr/bin/chromium ] || missing+=(chromium)
apt_install_missing "nginx and chromium" "${missing[@]}"
[ -f dist/index.html ] || { log "no dist/: run npm run build first" >&2; exit 1; }
CHROME_PATH=${CHROME_PATH:-/usr/bin/chromium} node build-scripts/lib/vitals/bench-vitals.mjs "$@"
