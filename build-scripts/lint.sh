#!/usr/bin/env bash
# `npm run lint` (and the first check of `npm test`): ESLint over every JS file, Prettier's check
# of their format, the import rules of .dependency-cruiser.cjs over web/src and its neighbours,
# and clang-format over the C++ files. Runs every check, then fails if any failed, so that one
# run names every problem. `npm run format` fixes what Prettier and clang-format can.
set -uo pipefail
cd "$(dirname "$0")/.."

failed=()
check() { # check <label> <command…>
  local label=$1; shift
  echo "[lint] $label"
  "$@" || failed+=("$label")
}

check "ESLint (eslint.config.js)" npx --no-install eslint --max-warnings 0 .
check "Prettier (.prettierrc.json)" npx --no-install prettier --check --log-level warn '**/*.{js,mjs,cjs}'
check "import rules (.dependency-cruiser.cjs)" npx --no-install depcruise web/src build-scripts vite.config.js tests \
  --config .dependency-cruiser.cjs --output-type err
if [ -f build-scripts/lib/check-cpp-format.sh ]; then
  check "clang-format (.clang-format)" bash build-scripts/lib/check-cpp-format.sh
fi

if [ ${#failed[@]} -gt 0 ]; then
  echo "[lint] failed: ${failed[*]} (npm run format fixes the format)" >&2
  exit 1
fi
echo "[lint] all clean"
