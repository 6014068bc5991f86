#!/usr/bin/env bash
# `npm run build`: set-up if needed, both wasm variants, the trained sample, then the static page in
# dist/ and the offline single file dist/attnscale-offline.html.
set -euo pipefail
cd "$(dirname "$0")/.."
bash build-scripts/setup.sh
bash build-scripts/lib/build-wasm.sh
# The trained sample (500 steps of the training panel's default run, in Node): Vite copies it to dist/samples/.
node build-scripts/lib/make-trained-sample.mjs
if [ -f vite.config.js ] && [ -f web/index.html ]; then
  # One command, two builds: the folder build, then (vite.config.js) the offline single file.
  npx vite build --logLevel warn
  echo "[build] page: dist/ (index.html, embed.html, attn-scale-demo.js)"
  echo "[build] offline single file: dist/attnscale-offline.html ($(wc -c < dist/attnscale-offline.html) bytes)"
fi
