#!/usr/bin/env bash
# `npm run build`: set-up if needed, both wasm variants, then the static page in dist/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash build-scripts/setup.sh
bash build-scripts/build-wasm.sh
if [ -f vite.config.js ] && [ -f web/index.html ]; then
  npx vite build --logLevel warn
  echo "[build] page: dist/"
fi
