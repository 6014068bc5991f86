#!/usr/bin/env bash
# `npm run bench`: build, then the benchmark (native, wasm SIMD, wasm scalar, plain JS side by side).
set -euo pipefail
cd "$(dirname "$0")/.."
bash build-scripts/setup.sh
bash build-scripts/build-native.sh
bash build-scripts/build-wasm.sh
node tests/bench/bench.mjs "$@"
