#!/usr/bin/env bash
# `npm start`: set-up if needed, build, then serve dist/ on localhost and print the URL.
set -euo pipefail
cd "$(dirname "$0")/.."
bash build-scripts/build.sh
port="${PORT:-8080}"
echo "[start] serving dist/ at http://127.0.0.1:$port/  (Ctrl-C to stop)"
exec npx vite preview --host 127.0.0.1 --port "$port" --strictPort
